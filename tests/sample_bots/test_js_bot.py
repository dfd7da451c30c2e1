"""The JavaScript starter bot (sample_bots/starters/js) plays whole matches of Hokm and Hand against the random bot.

The referee launches ``node sample_bots/starters/js/bot.js --port {port}`` as it would
any bot command, so these tests go through the real launcher, health check,
``Hello`` and ``Play`` streams. Each match is played once per module and
looked at from several sides: how it ended, whether its record replays, which
decisions the JS seats made, and whether they follow the strategy that
sample_bots/starters/js/README.md promises.

Needs node and ``npm ci`` in sample_bots/starters/js (CI runs it before the tests).
"""

from __future__ import annotations

import asyncio
import shlex
import shutil
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.support import ROOT
from tests.support.servers import assert_clean_end
from waraq.referee.games.cards import CARD_NAMES
from waraq.referee.games.hand import engine as hand
from waraq.referee.games.hand.melds import Add
from waraq.referee.games.hand.rules import HandRules
from waraq.referee.games.hand.view import HandView
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.games.hokm.engine import HokmView, dealer_from_events, winning_index
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.play import MatchOutcome
from waraq.referee.records.record_file import read_record
from waraq.referee.run import runner
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

pytestmark = pytest.mark.system("node")  # the JavaScript sample bot runs on Node.js

JS_DIR = ROOT / "sample_bots" / "starters" / "js"
JS_COMMAND = f"node {shlex.quote(str(JS_DIR / 'bot.js'))} --port {{port}}"
JACK = 9  # rank index: 2..10 are 0..8

# Every kind can occur: redeals and bam are on; every_round makes each side
# hakem in turn, so the JS side gets the REDEAL question too.
VARIANTS = HokmRules.from_dict(
    {
        "preset": "classic",
        "max_redeals": 2,
        "bam": True,
        "hakem_rotation": "every_round",
        "void_rule": "must_trump",
    }
)
MATCHES = {
    "classic": (HokmRules.preset("classic"), 1),
    "two": (HokmRules.preset("two"), 1),
    "three": (HokmRules.preset("three"), 1),
    # Seed 2: the JS side is asked REDEAL and BAM at least once (checked below).
    "variants": (VARIANTS, 2),
}


# -- helpers -------------------------------------------------------------------


def _require_node() -> None:
    if shutil.which("node") is None:
        pytest.fail("node is not on PATH: the JS sample bot needs Node.js (v18 or later)")
    if not (JS_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        pytest.fail(
            f"{JS_DIR / 'node_modules'} is missing: run `npm ci --prefix sample_bots/starters/js` "
            "(or `npm ci` in that folder) before these tests"
        )


@dataclass
class Played:
    rules: HokmRules
    outcome: MatchOutcome
    events: list[dict[str, Any]]
    js_seats: set[int]

    def decisions(self, seats: set[int] | None = None) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == "decision" and (seats is None or e["seat"] in seats)]


def _play(rules: HokmRules, seed: int, record_dir: Path) -> Played:
    # The bots repeat in turn: JS at even seats, random at odd ones.
    specs = [BotSpec.parse(JS_COMMAND), BotSpec.parse("random")]
    bots = [specs[seat % 2] for seat in range(rules.players)]
    report = asyncio.run(runner.run(runner.RunConfig(rules, bots, seed=seed, record_dir=record_dir)))
    (outcome,) = report.outcomes
    record = read_record(outcome.record)
    assert record.complete, f"record {outcome.record} is incomplete: {record.problem}"
    return Played(rules, outcome, record.events, {s for s in range(rules.players) if s % 2 == 0})


def _js_questions(played: Played) -> Iterator[tuple[HokmView, Any, dict[str, Any]]]:
    """(the JS seat's view, its action, the decision event) for each JS decision, by re-playing the record."""
    state = hokm.HokmState(played.rules, dealer_from_events(played.rules, played.events))
    for event in played.decisions():
        action = hokm.action_from_json(event["kind"], event["action"])
        if event["seat"] in played.js_seats:
            yield state.view(event["seat"]), action, event
        state.apply(action)


def _suit(card: int) -> int:
    return card // 13


def _rank(card: int) -> int:
    return card % 13


def _worth(card: int, trump: int) -> tuple[bool, int]:
    """The README's "lowest": any non-trump below any trump, then by rank."""
    return (_suit(card) == trump, _rank(card))


def _beats(card: int, view: HokmView) -> bool:
    trick = [c for _, c in view.trick]
    return winning_index([*trick, card], view.trump) == len(trick)


# -- one match per rules, shared by the tests -------------------------------------


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Played]:
    _require_node()
    return {name: _play(rules, seed, tmp_path_factory.mktemp(f"js-{name}")) for name, (rules, seed) in MATCHES.items()}


@pytest.fixture(params=list(MATCHES))
def played(request: pytest.FixtureRequest, matches: dict[str, Played]) -> Played:
    return matches[request.param]


# -- the tests ---------------------------------------------------------------------


def assert_ended_by_score_without_faults(played: Played) -> None:
    assert_clean_end(played.outcome, played.events)
    # Hello was answered: the header names the JS bot at its seats.
    seats = played.events[0]["seats"]
    assert {s["seat"] for s in seats if s["bot"] == "js-sample"} == played.js_seats


def test_match_ends_by_score_without_faults(played: Played) -> None:
    assert_ended_by_score_without_faults(played)
    assert max(played.outcome.score) >= played.rules.target_score


def test_record_replays_to_the_same_result(played: Played) -> None:
    state = hokm.replay(played.rules, played.events)
    result = played.events[-1]
    assert state.result is not None
    assert list(state.result.winners) == result["winners"]
    assert list(state.result.score) == result["score"]


def test_js_seats_decide_every_kind_that_occurs(played: Played) -> None:
    occurred = {e["kind"] for e in played.decisions()}
    by_js = {e["kind"] for e in played.decisions(played.js_seats)}
    assert occurred - by_js == set(), f"only the random bot was asked {sorted(occurred - by_js)}"
    # The kinds each rule set must produce (docs/rules.md): every match names trump
    # and plays; 2 players discard and draw; the variant seed also redeals and bams.
    needed = {"TRUMP", "PLAY"}
    if played.rules.players == 2:
        needed |= {"DISCARD", "DRAW"}
    if played.rules is VARIANTS:
        needed |= {"REDEAL", "BAM"}  # seed-dependent: if this fails after an engine change, pick another seed
    assert needed <= by_js


def test_js_replies_carry_a_note_and_never_fall_back(played: Played) -> None:
    for event in played.decisions(played.js_seats):
        note = event.get("note", "")
        assert note, f"JS decision without a note: {event}"
        assert not note.startswith("fallback"), f"JS bot fell back to the first legal action: {event}"
        assert len(note.encode()) <= 1024


def test_js_decisions_follow_the_readme_strategy(played: Played) -> None:
    for view, action, event in _js_questions(played):
        kind, where = event["kind"], f"round {event['round']} seat {event['seat']}: {event}"
        if kind == "TRUMP":
            # The suit with most of the five cards; equal counts go to the higher cards.
            def strength(suit: int) -> tuple[int, list[int]]:
                # This iteration's view is the one meant: strength runs only in the assert just below.
                ranks = sorted((_rank(c) for c in view.hand if _suit(c) == suit), reverse=True)  # noqa: B023
                return len(ranks), ranks

            assert strength(action) == max(strength(s) for s in range(4)), where
        elif kind == "PLAY" and not view.trick:
            assert _rank(action) == max(_rank(c) for c in view.legal), f"lead the highest: {where}"
        elif kind == "PLAY":
            leader_seat = view.trick[winning_index([c for _, c in view.trick], view.trump)][0]
            winners = [c for c in view.legal if _beats(c, view)]
            partner_winning = view.rules.players == 4 and leader_seat == (view.seat + 2) % 4
            pool = winners if winners and not partner_winning else view.legal
            assert _worth(action, view.trump) == min(_worth(c, view.trump) for c in pool), where
        elif kind == "DISCARD":
            lowest = sorted(_worth(c, view.trump) for c in view.hand)[:2]
            assert sorted(_worth(c, view.trump) for c in action) == lowest, where
        elif kind == "DRAW":
            offered = view.offered
            wanted = _suit(offered) == view.trump or _rank(offered) >= JACK
            assert action == ("keep" if wanted else "pass"), f"{CARD_NAMES[offered]} offered: {where}"
        elif kind == "REDEAL":
            assert action is True, where
        elif kind == "BAM":
            assert action is False, where


def test_bot_prints_its_port_is_healthy_and_exits_on_sigterm() -> None:
    _require_node()
    process = subprocess.Popen(
        ["node", str(JS_DIR / "bot.js"), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = process.stdout.readline()  # "" if node died: its stderr says why
        if "port" not in line:
            process.kill()
            pytest.fail(f"bot.js printed {line!r}, stderr: {process.stderr.read()!r}")
        port = int(line.rsplit(" ", 1)[-1])
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=5) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


# -- Hand ------------------------------------------------------------------------------
#
# The same bot process plays Hand (sample_bots/starters/js/hand.js): a match per rules, JS at
# the even seats, the Python random bot at the odd ones.

HAND_MATCHES = {
    "hand-classic": (HandRules.from_dict({"preset": "classic"}), 1),
    "hand-partners": (HandRules.from_dict({"preset": "partners"}), 2),
    "hand-two": (HandRules.from_dict({"preset": "two"}), 3),
}
HAND_JOKER = 52


@pytest.fixture(scope="module")
def hand_matches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Played]:
    _require_node()
    return {
        # Hand's rules where _play's annotation says HokmRules: it plays either game, and says the narrower one.
        name: _play(rules, seed, tmp_path_factory.mktemp(f"js-{name}"))  # type: ignore[arg-type]
        for name, (rules, seed) in HAND_MATCHES.items()
    }


@pytest.fixture(params=list(HAND_MATCHES))
def hand_played(request: pytest.FixtureRequest, hand_matches: dict[str, Played]) -> Played:
    return hand_matches[request.param]


def test_hand_match_ends_by_score_without_faults(hand_played: Played) -> None:
    assert_ended_by_score_without_faults(hand_played)
    rounds = [e for e in hand_played.events if e["type"] == "round_end" and not e.get("void")]
    assert len(rounds) == hand_played.rules.rounds


def test_hand_record_replays_to_the_same_result(hand_played: Played) -> None:
    state = hand.replay(hand_played.rules, hand_played.events)
    result = hand_played.events[-1]
    assert list(state.result.winners) == result["winners"]
    assert list(state.result.score) == result["score"]


def test_js_seats_take_turn_and_meld_in_hand(hand_played: Played) -> None:
    mine = hand_played.decisions(hand_played.js_seats)
    assert {e["kind"] for e in mine} == {"TAKE", "TURN"}
    steps = [step for e in mine if e["kind"] == "TURN" for step in e["action"]["steps"]]
    assert any("meld" in s for s in steps), "the JS seats never laid a meld"
    for event in mine:
        note = event.get("note", "")
        assert note and not note.startswith("fallback"), f"JS decision without its own reason: {event}"


def _hand_charge(card: int) -> int:
    """docs/rules.md: a joker 15, ace 11, pictures 10, others their number."""
    face = card % 53
    if face == HAND_JOKER:
        return 15
    rank = face % 13
    return 11 if rank == 12 else 10 if rank >= 8 else rank + 2


def _near(a: int, b: int) -> bool:
    """README: same rank in another suit, or same suit within two ranks (the ace low and high)."""
    fa, fb = a % 53, b % 53
    if HAND_JOKER in (fa, fb) or fa == fb:
        return False
    if fa % 13 == fb % 13:
        return True

    def places(f: int) -> tuple[int, ...]:  # an ace is both below the two and above the king
        return (-1, 12) if f % 13 == 12 else (f % 13,)

    return fa // 13 == fb // 13 and any(abs(p - q) <= 2 for p in places(fa) for q in places(fb))


def _js_hand_questions(played: Played) -> Iterator[tuple[HandView, Any, hand.HandState, int]]:
    """(view, action, the state after it, deals before it) for each JS decision, by replaying the record."""
    state = hand.HandState(played.rules, hand.dealer_from_events(played.rules, played.events))
    for event in played.decisions():
        action = hand.action_from_json(event["kind"], event["action"])
        view = state.view(event["seat"])
        deals = sum(1 for e in state.events if e["type"] == "deal")
        state.apply(action)
        if event["seat"] in played.js_seats:
            yield view, action, state, deals


def test_js_hand_turns_follow_the_readme_strategy(hand_played: Played) -> None:
    checked = 0
    for view, action, after, deals in _js_hand_questions(hand_played):
        if view.kind != "TURN":
            continue
        where = f"round {view.round} seat {view.seat}: {hand.action_to_json('TURN', action)}"
        steps = list(action.steps)
        # 1. The taken discard goes down the first way the referee listed.
        if view.took is not None:
            assert tuple(steps[: len(view.uses[0])]) == view.uses[0], where
            steps = steps[len(view.uses[0]) :]
        # 4. Never a bare joker added to a table meld by the bot's own choice.
        for step in steps:
            if isinstance(step, Add):
                assert all(c % 53 != HAND_JOKER for c in step.cards), where
        # 5. The costliest loose card, else the costliest that is not a joker.
        if sum(1 for e in after.events if e["type"] == "deal") != deals:
            continue  # the round ended (out, or a void deal next): the hand is gone
        held = [*after.hands[view.seat], action.discard]
        real = [c for c in held if c % 53 != HAND_JOKER]
        loose = [c for c in real if not any(_near(c, o) for o in held)]
        pool = loose or real or held
        assert _hand_charge(action.discard) == max(map(_hand_charge, pool)), where
        assert action.discard in pool, where
        checked += 1
    assert checked > 20


def test_hello_lists_hokm_and_hand() -> None:
    _require_node()
    process = subprocess.Popen(
        ["node", str(JS_DIR / "bot.js"), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = process.stdout.readline()
        assert "port" in line, f"bot.js printed {line!r}"
        with grpc.insecure_channel(f"127.0.0.1:{int(line.rsplit(' ', 1)[-1])}") as channel:
            hello = bot_pb2_grpc.BotStub(channel).Hello(pb.HelloRequest(protocol_version=1), timeout=5)
        assert {g.game: sorted(g.players) for g in hello.games} == {"hokm": [2, 3, 4], "hand": [2, 3, 4]}
    finally:
        process.terminate()
        process.wait(timeout=5)
        process.stdout.close()
        process.stderr.close()
