"""The referee plays Hand over gRPC: whole matches, information hiding, faults, the CLI and its records.

Bots here are real gRPC servers: the built-in sample bots launched as processes
by ``waraq match``, and test bots served in the test's event loop on port 0
(``tests/bots/recording.py``, and :class:`HandFaultBot` below), which keep
every message they receive. From the match record alone -- the decks, the
dealing order of the spec, the restocked stocks, the decisions -- the hiding
tests work out what each seat may know at each of its decisions, without the
engine's view code, and check that every card in every request is among
them.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import text_format

from tests.bots.recording import RecordingBot, eager_player
from tests.support.messages import numbers, string_lists
from waraq.bots import codec
from waraq.bots.server import start_server
from waraq.referee.games.cards import CardError
from waraq.referee.games.hand.decisions import STOCK, TAKE, TURN, Turn
from waraq.referee.games.hand.engine import new_match
from waraq.referee.games.hand.melds import CARD_NAMES, parse_card
from waraq.referee.games.hand.rules import PRESETS, HandRules
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.inprocess import play_match
from waraq.referee.match.play import MatchConfig, TimeControl, run_match
from waraq.referee.match.seats import InProcessSeat
from waraq.referee.records.record_file import RecordWriter, read_record
from waraq.referee.replay.verify import verify_record
from waraq.referee.replay.walk import INCONSISTENT, OK
from waraq.referee.run.runner import RunConfig, RunReport, match_id, run
from waraq.v1 import bot_pb2 as pb

FIRST_SEED = 900_001  # large, so that the seed written anywhere would be noticed
GENEROUS = TimeControl(decision_ms=5_000, bank_ms=5_000, startup_ms=20_000)
HAND = 14  # cards dealt to each seat; the first player gets one more (the spec's dealing)

# name: (rules, what the match must show: ("TAKE", "discard") or ("restock", None))
VARIANTS = {
    "4p": (PRESETS["short"], {("TAKE", "discard")}),
    "partners-2-rounds": (PRESETS["partners"].replace(rounds=2), {("TAKE", "discard")}),
    "3p-restock": (PRESETS["three"].replace(rounds=1), {("TAKE", "discard"), ("restock", None)}),
    "2p": (PRESETS["two"].replace(rounds=1), {("TAKE", "discard")}),
}


# -- what a seat may know, from the record alone -----------------------------------------


def may_know(rules: HandRules, events: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], set[str]]]:
    """Each decision event with the card names its seat may know when asked.

    Per deal (a void deal's cards say nothing of the next deal): the seat's own dealt cards
    (``deck[i]`` to ``(first + i) % n`` for ``i < 14 n``, ``deck[14 n]`` to the first player),
    the cards it drew from the stock (``deck[14 n + 1:]`` top first, then each restock's
    stock), and everything any seat has shown in a turn (melds, additions, swaps, discards:
    face up on the table or the pile). Every turn but the deal's first begins with a draw: the
    pile's top if the seat answered TAKE "discard" (already public), else the stock's top,
    drawn before TURN (the TAKE question comes before the draw).
    """
    n = rules.players
    known: list[set[str]] = []
    public: set[str] = set()
    stock: list[str] = []
    turns, drew = 0, False  # TURNs of this deal; whether this turn's draw was made at its TAKE
    for event in events:
        kind = event["type"]
        if kind == "deal":
            deck, first = event["deck"], event["first"]
            known = [set() for _ in range(n)]
            for i in range(HAND * n):
                known[(first + i) % n].add(deck[i])
            known[first].add(deck[HAND * n])
            stock, public, turns, drew = list(deck[HAND * n + 1 :]), set(), 0, False
        elif kind == "restock":
            stock = list(event["stock"])
        elif kind == "decision" and event["kind"] == TAKE:
            yield event, known[event["seat"]] | public
            if event["action"] == "stock":
                known[event["seat"]].add(stock.pop(0))
            drew = True  # the stock's top, or the pile's (public already)
        elif kind == "decision":
            seat = event["seat"]
            if turns and not drew:
                known[seat].add(stock.pop(0))  # drawn for the seat without asking
            yield event, known[seat] | public
            public |= turn_cards(event["action"])
            turns, drew = turns + 1, False


def turn_cards(action: dict[str, Any]) -> set[str]:
    cards = {action["discard"]}
    for step in action["steps"]:
        cards |= set(step.get("meld", [])) | set(step.get("cards", [])) | ({step["card"]} if "card" in step else set())
    return cards


# -- the cards and numbers in a message ----------------------------------------------------


def cards_in(message: Any) -> set[str]:
    found = set()
    for strings in string_lists(message):
        for text in strings:
            try:
                parse_card(text)
            except CardError:
                continue
            found.add(text)
    return found


# -- playing the matches once -----------------------------------------------------------


def shows(events: list[dict[str, Any]], kind: str, action: Any) -> bool:
    if kind == "restock":
        return any(e["type"] == "restock" for e in events)
    return any(e["type"] == "decision" and e["kind"] == kind and e["action"] == action for e in events)


def seed_showing(rules: HandRules, wanted: set[tuple[str, Any]]) -> int:
    """The first seed from FIRST_SEED whose match, played by the recording bot's players, shows ``wanted``."""
    for seed in range(FIRST_SEED, FIRST_SEED + 200):
        events = play_match(rules, seed, [eager_player(match_id(seed), s, "hand") for s in range(rules.players)]).events
        if all(shows(events, kind, action) for kind, action in wanted):
            return seed
    raise AssertionError(f"no seed shows {wanted}")


@dataclass
class Played:
    rules: HandRules
    seed: int
    path: Path  # the record
    events: list[dict[str, Any]]
    streams: dict[int, list[pb.RefereeMessage]]  # by seat


async def _run_on(bot: Any, rules: HandRules, seed: int, folder: Path, policy: str = "forfeit") -> RunReport:
    server, port = await start_server(bot, "127.0.0.1:0")
    try:
        config = RunConfig(
            rules=rules,
            bots=[BotSpec.parse(f"127.0.0.1:{port}")] * rules.players,
            seed=seed,
            policy=policy,
            time_control=GENEROUS,
            record_dir=folder,
        )
        return await run(config)
    finally:
        await server.stop(None)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Played]:
    out = {}
    for name, (rules, wanted) in VARIANTS.items():
        seed = seed_showing(rules, wanted)
        bot = RecordingBot()
        (outcome,) = asyncio.run(_run_on(bot, rules, seed, tmp_path_factory.mktemp(name))).outcomes
        streams = {s[0].start.seat: s for s in bot.streams}
        out[name] = Played(rules, seed, Path(outcome.record), read_record(outcome.record).events, streams)
    return out


def requests_with_allowed(p: Played) -> Iterator[tuple[pb.DecisionRequest, dict[str, Any], set[str]]]:
    asked = {
        seat: [m.decision for m in stream if m.WhichOneof("body") == "decision"] for seat, stream in p.streams.items()
    }
    taken: dict[int, int] = defaultdict(int)
    for event, allowed in may_know(p.rules, p.events):
        seat = event["seat"]
        yield asked[seat][taken[seat]], event, allowed
        taken[seat] += 1
    assert dict(taken) == {seat: len(r) for seat, r in asked.items()}, "one request per decision of the seat"


# -- over the wire: a whole match, and what each seat was told ---------------------------------


@pytest.mark.parametrize("name", VARIANTS)
def test_a_hand_match_over_grpc_ends_and_its_record_verifies(played, name):
    p = played[name]
    header, result = p.events[0], p.events[-1]
    assert header["game"] == "hand" and header["rules"] == p.rules.to_dict()
    assert result["type"] == "result" and result["reason"] == "score"
    assert sum(1 for e in p.events if e["type"] == "round_end" and not e.get("void")) == p.rules.rounds
    assert p.path.name == f"hand-{p.seed}.jsonl"
    verdict = verify_record(p.path)
    assert verdict.status == OK, verdict.problem


@pytest.mark.parametrize("name", VARIANTS)
def test_no_hand_request_carries_a_card_its_seat_could_not_have_seen(played, name):
    p = played[name]
    for kind, action in VARIANTS[name][1]:
        assert shows(p.events, kind, action), f"the match over gRPC shows no {kind} {action}"
    kinds, took = set(), 0
    for request, event, allowed in requests_with_allowed(p):
        assert (request.kind, request.seat, request.hand.round) == (event["kind"], event["seat"], event["round"])
        assert request.WhichOneof("view") == "hand"
        leaked = cards_in(request) - allowed
        assert not leaked, (
            f"seat {event['seat']}'s {event['kind']} request in round {event['round']} carries "
            f"{sorted(leaked)}, which it cannot have seen"
        )
        kinds.add(request.kind)
        took += bool(request.hand.took)
    assert kinds == {TAKE, TURN} and took, "the seats were asked both kinds, and played a taken discard"


@pytest.mark.parametrize("name", VARIANTS)
def test_match_start_names_the_game_and_partners_and_no_message_carries_the_seed(played, name):
    p = played[name]
    for seat, stream in p.streams.items():
        start = stream[0].start
        assert stream[0].WhichOneof("body") == "start" and not cards_in(stream[0])
        assert start.game == "hand" and start.players == p.rules.players
        # Partners sit opposite in a partnership: seats {0, 2} and {1, 3}.
        assert list(start.partners) == ([(seat + 2) % 4] if p.rules.partnership else [])
        for message in stream:
            text = text_format.MessageToString(message)
            assert str(p.seed) not in text and p.seed not in set(numbers(message)), f"seat {seat} was sent the seed"


def test_the_oracle_gives_the_first_player_its_15_cards_and_catches_a_strangers_card(played):
    p = played["4p"]
    first_event, first_allowed = next(may_know(p.rules, p.events))
    deal = p.events[1]
    assert first_event["seat"] == deal["first"] and first_event["kind"] == TURN and len(first_allowed) == 15
    request, event, allowed = next((r, e, a) for r, e, a in requests_with_allowed(p) if r.hand.melds)
    stranger = next(c for c in deal["deck"] if c not in allowed)  # in another hand, or the stock
    for where in ("hand", "pile", "melds"):
        forged = pb.DecisionRequest()
        forged.CopyFrom(request)
        if where == "melds":
            forged.hand.melds[0].cards.append(stranger)
        else:
            getattr(forged.hand, where).append(stranger)
        assert cards_in(forged) - allowed == {stranger}


# -- faults: an illegal turn, a turn answering a TAKE ----------------------------------------------------

BAD = 1  # the misbehaving seat


class HandFaultBot(RecordingBot):
    """Plays as the recording bot, except that seat BAD misbehaves at its first question of one kind:

    * ``illegal``: at a TURN, discards the first card (in card order) it does not hold;
    * ``turn_for_take``: at a TAKE, answers with a Turn (Action.turn) instead of Action.take.
    """

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode
        self.bad_requests: list[pb.DecisionRequest] = []

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        player, seat = None, -1
        async for message in requests:
            body = message.WhichOneof("body")
            if body == "start":
                seat = message.start.seat
                player = eager_player(message.start.match_id, seat, message.start.game)
            elif body == "decision" and player is not None:
                request = message.decision
                kind = codec.kind_of(request)
                action = codec.action_to_message(kind, player(codec.message_to_view(request)))
                wanted = TURN if self.mode == "illegal" else TAKE
                if seat == BAD and kind == wanted and not self.bad_requests:
                    self.bad_requests.append(request)
                    held = set(request.hand.hand)
                    if self.mode == "illegal":
                        action = pb.Action(turn=pb.Turn(discard=next(c for c in CARD_NAMES if c not in held)))
                    else:
                        action = pb.Action(turn=pb.Turn(discard=request.hand.hand[0]))
                yield pb.BotMessage(reply=pb.DecisionReply(seq=request.seq, action=action))


def _take_seed(rules: HandRules) -> int:
    """A seed whose match (the recording bot's players) asks seat BAD a TAKE."""
    for seed in range(FIRST_SEED, FIRST_SEED + 200):
        events = play_match(rules, seed, [eager_player(match_id(seed), s, "hand") for s in range(rules.players)]).events
        if any(e["type"] == "decision" and e["kind"] == TAKE and e["seat"] == BAD for e in events):
            return seed
    raise AssertionError("no seed asks seat 1 a TAKE")


def test_an_illegal_turn_is_an_illegal_fault_with_the_engines_reason_and_forfeits(tmp_path):
    rules = PRESETS["short"]
    bot = HandFaultBot("illegal")
    (outcome,) = asyncio.run(_run_on(bot, rules, FIRST_SEED, tmp_path)).outcomes
    (request,) = bot.bad_requests
    hand = list(request.hand.hand)
    card = next(c for c in CARD_NAMES if c not in hand)
    assert outcome.reason == "forfeit" and outcome.faulty == (BAD,)
    assert outcome.winners == (0, 2, 3)  # each for himself: every seat but the faulty one
    (fault,) = outcome.faults
    # The engine's words (it checks the discard against the hand left after no steps: the whole hand).
    assert fault.kind == "ILLEGAL"
    assert fault.detail == f"seat {BAD} discard {card!r}: does not hold it (holds {', '.join(hand)})"
    verdict = verify_record(outcome.record)
    assert verdict.status == OK, verdict.problem


def test_a_turn_answering_a_take_is_malformed(tmp_path):
    rules = PRESETS["partners"].replace(rounds=1)
    bot = HandFaultBot("turn_for_take")
    (outcome,) = asyncio.run(_run_on(bot, rules, _take_seed(rules), tmp_path)).outcomes
    assert bot.bad_requests and bot.bad_requests[0].kind == "TAKE"
    assert outcome.reason == "forfeit" and outcome.faulty == (BAD,) and outcome.winners == (0, 2)  # the other team
    (fault,) = outcome.faults
    assert (fault.kind, fault.detail) == ("MALFORMED", "a TAKE decision needs Action.take, the reply set 'turn'")
    assert verify_record(outcome.record).status == OK


def test_substitute_plays_a_random_legal_turn_for_an_illegal_one_and_the_record_verifies(tmp_path):
    rules = PRESETS["short"]
    bot = HandFaultBot("illegal")
    (outcome,) = asyncio.run(_run_on(bot, rules, FIRST_SEED, tmp_path, policy="substitute")).outcomes
    assert outcome.reason == "score" and [f.kind for f in outcome.faults] == ["ILLEGAL"]
    events = read_record(outcome.record).events
    fault = next(e for e in events if e["type"] == "fault")
    after = events[events.index(fault) + 1]
    assert after["type"] == "decision" and after["kind"] == TURN and after["seat"] == BAD
    assert fault["substituted"] == after["action"] and set(after["action"]) == {"steps", "discard"}
    verdict = verify_record(outcome.record)
    assert verdict.status == OK, verdict.problem


# -- records the engine ends itself -------------------------------------------------------------


class NeverMelds:
    """Never takes the discard and never lays a meld: nobody opens, so nobody goes out."""

    def __call__(self, view: Any) -> Any:
        return STOCK if view.kind == TAKE else Turn((), view.hand[0])


def test_a_round_nobody_can_end_is_aborted_by_the_engine_and_its_record_verifies(tmp_path):
    rules = PRESETS["two"].replace(rounds=1)
    path = tmp_path / "never.jsonl"
    seats = [InProcessSeat(lambda match, seat: NeverMelds(), "never") for _ in range(2)]
    with RecordWriter(path) as record:
        outcome = asyncio.run(run_match(MatchConfig(rules, 3, "never-3", GENEROUS), seats, record))
    # The spec's safety net: 1000 TURN decisions in a round end the match, no winners, scores so far (0-0).
    assert (outcome.reason, outcome.winners, outcome.score) == ("aborted", (), (0, 0))
    events = read_record(path).events
    assert sum(1 for e in events if e.get("kind") == TURN) == 1000
    assert events[-1] == {"type": "result", "score": [0, 0], "winners": [], "reason": "aborted"}
    verdict = verify_record(path)
    assert verdict.status == OK, verdict.problem  # an engine's "aborted" (no detail) is checked, not taken on trust
    # ... and checked it is: the same result claimed 100 turns early does not follow from the play.
    cut = [e for e in events[:-1]]
    turn_lines = [i for i, e in enumerate(cut) if e.get("kind") == TURN]
    (tmp_path / "early.jsonl").write_text(
        "\n".join(json.dumps(e) for e in cut[: turn_lines[899] + 1] + [events[-1]]) + "\n"
    )
    assert verify_record(tmp_path / "early.jsonl").status == INCONSISTENT


# -- the command line -----------------------------------------------------------------------------


def waraq(*args: str, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "120", "NO_COLOR": "1"},
    )


def test_play_hand_prints_every_round_and_the_result_of_the_same_match():
    run_ = waraq("play", "--game", "hand", "--rules", "partners", "--seed", "4")
    assert run_.returncode == 0, run_.stderr
    # The same match in-process: the command's random players are the engine's random turns,
    # each seat's generator seeded "<seed>/<seat>".
    import random

    rules = PRESETS["partners"]
    state = new_match(rules, 4)
    rngs = [random.Random(f"4/{s}") for s in range(4)]
    while not state.is_over:
        state.apply(state.random_action(rngs[state.to_act]))
    ends = [e for e in state.events if e["type"] == "round_end"]
    rows = [line for line in run_.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == len(ends) >= rules.rounds
    assert "Hand, 4 players in partnership, 5 rounds, opening 51, seed 4" in run_.stdout
    winners = " and ".join(f"seat {s}" for s in state.result.winners)
    score = " ".join(f"{'0+2' if team == 0 else '1+3'}:{v}" for team, v in enumerate(state.result.score))
    assert f"{winners} won, score {score} (score, lowest wins)" in run_.stdout


def test_rules_and_play_take_the_games_presets_and_refuse_others():
    shown = waraq("rules", "--game", "hand", "two")
    assert shown.returncode == 0 and PRESETS["two"].rules_hash in shown.stdout
    assert all(f'"{key}"' in shown.stdout for key in ("players", "partnership", "rounds", "opening_points"))
    wrong = waraq("play", "--game", "hand", "--rules", "bam")
    assert wrong.returncode == 2 and "'bam' is neither a hand preset" in wrong.stderr and not wrong.stdout
    tricks = waraq("play", "--game", "hand", "--tricks")
    assert tricks.returncode == 2 and "--tricks is for Hokm" in tricks.stderr


@pytest.mark.slow
def test_match_between_bot_processes_records_hand_matches_that_verify_replay_and_reask(tmp_path):
    run_ = waraq(
        "match",
        "--game",
        "hand",
        "--bots",
        "random",
        "heuristic",
        "--rules",
        "short",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--record",
        str(tmp_path),
    )
    assert run_.returncode == 0, run_.stderr
    assert "Hand, 4 players (short), 2 match(es) from seed 1" in run_.stdout
    assert "2 match(es): 2 by score" in run_.stdout
    assert "penalty points (lowest wins)" in run_.stdout  # Hand's totals count against a side
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == ["hand-1.jsonl", "hand-2.jsonl"]

    verified = waraq("replay", "--verify", str(tmp_path))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "2 records: 2 ok, 0 failed" in verified.stdout
    # Each verdict gives the result in Hand's terms: seat by seat, lowest wins (scores may be negative).
    for path in sorted(tmp_path.glob("*.jsonl")):
        result = read_record(path).events[-1]
        low = min(result["score"])
        scores = ", ".join(f"s{s} {v}" for s, v in enumerate(result["score"]))
        assert f"{path.name}: ok" in verified.stdout and f"score {scores}" in verified.stdout
        assert result["winners"] == [s for s, v in enumerate(result["score"]) if v == low]

    record = tmp_path / "hand-1.jsonl"
    events = read_record(record).events
    assert events[0]["game"] == "hand" and [s["bot"] for s in events[0]["seats"]] == ["random", "heuristic"] * 2
    shown = waraq("replay", str(record), "--json", "--seat", "1")
    assert shown.returncode == 0, shown.stderr
    requests = [json.loads(line) for line in shown.stdout.splitlines()]
    decisions = [e for e in events if e["type"] == "decision" and e["seat"] == 1]
    assert len(requests) == len(decisions) and requests
    assert [r["kind"] for r in requests] == [d["kind"] for d in decisions]
    assert all(set(r["hand"]) >= {"hand", "melds", "pile", "stock_size"} and "hokm" not in r for r in requests)

    asked = waraq("replay", str(tmp_path), "--ask", "random")
    assert asked.returncode == 0, asked.stdout + asked.stderr  # the same bot agrees with itself on every decision
    assert "random agrees on" in asked.stdout and "(100 %)" in asked.stdout
