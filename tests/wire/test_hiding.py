"""Information hiding across the wire: no message to a bot carries what its seat could not have seen.

A recording bot (a real gRPC server in the test's event loop) plays every seat
of matches the runner referees, and keeps every message it receives. From the
match record alone -- the deal decks, the dealing order of docs/rules.md, the plays,
the hands shown for a redeal, a 2-player seat's own draws -- the tests work
out what each seat may know at each of its decisions, without the engine's
view code, and check that every card in every request is among them.

Seeds are picked by playing the same players in-process so that the matches
show redeals, bam calls and both kinds of draw; the tests then check those
decisions really happened over the wire.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf import text_format

from tests.bots.recording import RecordingBot, eager_player
from tests.support.messages import numbers, string_lists
from waraq.bots.server import start_server
from waraq.referee.games.cards import CardError, parse_card
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.inprocess import play_match
from waraq.referee.match.play import TimeControl
from waraq.referee.records.record_file import read_record
from waraq.referee.run.runner import RunConfig, match_id, run
from waraq.v1 import bot_pb2 as pb

FIRST_SEED = 900_001  # large, so that the seed written anywhere would be noticed
GENEROUS = TimeControl(decision_ms=5_000, bank_ms=5_000, startup_ms=10_000)
LONGEST_HAND = 17  # 3-player Hokm; a deck is 51 or 52 cards

# name: (rules, decisions the match must show: (kind, action or None for any))
VARIANTS = {
    "4p-redeal-bam": (
        HokmRules.from_dict({"target_score": 1, "max_redeals": 1, "bam": True}),
        {("REDEAL", True), ("BAM", None)},
    ),
    "3p-redeal": (
        HokmRules.from_dict({"preset": "three", "target_score": 1, "max_redeals": 2}),
        {("REDEAL", True)},
    ),
    "2p-redeal-bam-burn-unseen": (
        HokmRules.from_dict({"preset": "two", "target_score": 1, "max_redeals": 1, "bam": True}),
        {("REDEAL", True), ("BAM", None), ("DRAW", "keep"), ("DRAW", "pass")},
    ),
    "2p-burn-visible": (
        HokmRules.from_dict({"preset": "two", "target_score": 1, "burn_visible": True}),
        {("DRAW", "keep"), ("DRAW", "pass")},
    ),
}


# -- what a seat may know, from the record alone --------------------------------


def receivers(players: int, hakem: int, size: int) -> list[int | None]:
    """docs/rules.md's dealing: packets of five from the hakem in play order, then fours (3 and 4
    players); with 2 players the rest of the deck is the stock (None)."""
    order = [(hakem + j) % players for j in range(players) for _ in range(5)]
    if players == 2:
        return order + [None] * (size - len(order))
    while len(order) < size:
        order += [(hakem + j) % players for j in range(players) for _ in range(4)]
    return order


def may_know(rules: HokmRules, events: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], set[str]]]:
    """Each decision event with the cards its seat may know when asked (card names).

    Within a round: its own first packet of the current deal, and after trump (3 and 4
    players) the rest of its cards; the hands shown for a redeal; every card played; with 2
    players the cards it was offered and, after a pass (or any draw if burns are visible),
    the second card. A redeal takes back the old cards, so only the shown ones stay known.
    """
    n = rules.players
    known: list[set[str]] = [set() for _ in range(n)]
    public: set[str] = set()
    deck: list[str] = []
    order: list[int | None] = []
    round_, draws = 0, 0
    for event in events:
        if event["type"] == "deal":
            if event["round"] != round_:
                round_, public = event["round"], set()
            deck, hakem, draws = event["deck"], event["hakem"], 0
            order = receivers(n, hakem, len(deck))
            for seat in range(n):
                # the first packets only: the rest of the deck is dealt after trump (or is the stock)
                known[seat] = public | {c for c, s in zip(deck[: 5 * n], order, strict=False) if s == seat}
        elif event["type"] == "decision":
            seat, kind, action = event["seat"], event["kind"], event["action"]
            allowed = set(known[seat])
            if kind == "DRAW":
                assert seat == (hakem if draws % 2 == 0 else 1 - hakem), "the hakem draws first, then in turn"
                allowed.add(deck[10 + 2 * draws])  # the top of the stock it is looking at
            yield event, allowed
            if kind == "REDEAL" and action:
                public |= {c for c, s in zip(deck[:5], order, strict=False) if s == seat}  # its first packet
            elif kind == "TRUMP" and n > 2:
                for other in range(n):
                    known[other] |= {c for c, s in zip(deck, order, strict=True) if s == other}
            elif kind == "DRAW":
                offered, second = deck[10 + 2 * draws], deck[11 + 2 * draws]
                known[seat].add(offered)
                if action == "pass" or rules.burn_visible:
                    known[seat].add(second)
                draws += 1
            elif kind == "PLAY":
                for other in range(n):
                    known[other].add(action)


# -- the cards and numbers in a message -------------------------------------------


def card_names(strings: list[str]) -> list[str]:
    found = []
    for text in strings:
        try:
            parse_card(text)
        except CardError:
            continue
        found.append(text)
    return found


def cards_in(message: Any) -> set[str]:
    return {c for strings in string_lists(message) for c in card_names(strings)}


def leaked(request: pb.DecisionRequest, allowed: set[str]) -> set[str]:
    return cards_in(request) - allowed


# -- playing the matches once ---------------------------------------------------


def seed_showing(rules: HokmRules, wanted: set[tuple[str, Any]]) -> int:
    """The first seed from FIRST_SEED whose match, played by the recording bot's players, shows ``wanted``."""
    for seed in range(FIRST_SEED, FIRST_SEED + 3000):
        events = play_match(rules, seed, [eager_player(match_id(seed), s) for s in range(rules.players)]).events
        if all(shows(events, kind, action) for kind, action in wanted):
            return seed
    raise AssertionError(f"no seed shows {wanted}")


def shows(events: list[dict[str, Any]], kind: str, action: Any) -> bool:
    return any(e["type"] == "decision" and e["kind"] == kind and action in (None, e["action"]) for e in events)


@dataclass
class Played:
    rules: HokmRules
    seed: int
    events: list[dict[str, Any]]
    streams: dict[int, list[pb.RefereeMessage]]  # by seat


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Played]:
    seeds = {name: seed_showing(rules, wanted) for name, (rules, wanted) in VARIANTS.items()}

    async def go() -> dict[str, Played]:
        bot = RecordingBot()
        server, port = await start_server(bot, "127.0.0.1:0")
        out = {}
        try:
            for name, (rules, _) in VARIANTS.items():
                folder = tmp_path_factory.mktemp(name)
                config = RunConfig(
                    rules=rules,
                    bots=[BotSpec.parse(f"127.0.0.1:{port}")] * rules.players,
                    seed=seeds[name],
                    time_control=GENEROUS,
                    record_dir=folder,
                )
                first = len(bot.streams)
                (outcome,) = (await run(config)).outcomes
                streams = {s[0].start.seat: s for s in bot.streams[first:]}
                out[name] = Played(rules, seeds[name], read_record(outcome.record).events, streams)
        finally:
            await server.stop(None)
        return out

    return asyncio.run(go())


def requests_with_allowed(p: Played) -> Iterator[tuple[pb.DecisionRequest, dict[str, Any], set[str]]]:
    """Each request the bot received, with its decision in the record and what its seat may know."""
    asked = {
        seat: [m.decision for m in stream if m.WhichOneof("body") == "decision"] for seat, stream in p.streams.items()
    }
    taken: dict[int, int] = defaultdict(int)
    for event, allowed in may_know(p.rules, p.events):
        seat = event["seat"]
        request = asked[seat][taken[seat]]
        taken[seat] += 1
        yield request, event, allowed
    assert dict(taken) == {seat: len(r) for seat, r in asked.items()}, "one request per decision of the seat"


# -- the tests ------------------------------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
def test_no_request_carries_a_card_its_seat_could_not_have_seen(played, name):
    p = played[name]
    assert p.events[-1]["type"] == "result" and p.events[-1]["reason"] in ("score", "bam")
    for kind, action in VARIANTS[name][1]:
        assert shows(p.events, kind, action), f"the match over gRPC shows no {kind} {action}"
    kinds = set()
    for request, event, allowed in requests_with_allowed(p):
        assert (request.kind, request.seat, request.hokm.round) == (event["kind"], event["seat"], event["round"])
        assert not leaked(request, allowed), (
            f"seat {event['seat']}'s {event['kind']} request in round {event['round']} carries "
            f"{sorted(leaked(request, allowed))}, which it cannot have seen"
        )
        kinds.add(request.kind)
    expected = {"TRUMP", "PLAY"} | ({"DISCARD", "DRAW"} if p.rules.players == 2 else set())
    assert expected | {k for k, _ in VARIANTS[name][1]} <= kinds


@pytest.mark.parametrize("name", VARIANTS)
def test_no_message_carries_a_deck_and_match_start_carries_no_card(played, name):
    for seat, stream in played[name].streams.items():
        assert stream[0].WhichOneof("body") == "start" and not cards_in(stream[0]), "no card before the deal"
        for message in stream:
            for strings in string_lists(message):
                assert len(card_names(strings)) <= LONGEST_HAND, (
                    f"seat {seat} was sent a list of cards longer than a hand"
                )


def test_no_message_carries_the_seed(played):
    # The dealer is public and deterministic (SeededDealer): whoever knows the seed knows every
    # deck of the match, so every hand and the stock.
    for name, p in played.items():
        for seat, stream in p.streams.items():
            for message in stream:
                text = text_format.MessageToString(message)
                assert str(p.seed) not in text and p.seed not in set(numbers(message)), (
                    f"{name}: seat {seat} was sent the seed {p.seed}, from which "
                    f"SeededDealer({p.seed}) rebuilds every deck of the match: {text[:120]!r}"
                )


def test_the_oracle_knows_a_hakem_sees_five_cards_to_name_trump_and_nobody_sees_an_unseen_burn(played):
    four = played["4p-redeal-bam"]
    first_event, first_allowed = next(may_know(four.rules, four.events))
    assert first_event["kind"] in ("REDEAL", "TRUMP") and len(first_allowed) == 5
    two = played["2p-redeal-bam-burn-unseen"]
    deals = [e for e in two.events if e["type"] == "deal"]
    keeps = [e for e in two.events if e["type"] == "decision" and e["kind"] == "DRAW" and e["action"] == "keep"]
    assert keeps
    # Draw k turns stock cards 10 + 2k and 11 + 2k: a burned card is the second one of a keep.
    deck = deals[-1]["deck"]
    draws = [
        e for e in two.events if e["type"] == "decision" and e["kind"] == "DRAW" and e["round"] == deals[-1]["round"]
    ]
    burned = {deck[11 + 2 * k] for k, e in enumerate(draws) if e["action"] == "keep"}
    played_cards = {e["action"] for e in two.events if e["type"] == "decision" and e["kind"] == "PLAY"}
    # Hands shown for a redeal are public, wherever their cards land in the next deck.
    shown = set()
    for before, after in zip(two.events, two.events[1:], strict=False):  # each event with the next
        if after.get("kind") == "REDEAL" and after["action"] and before["type"] == "deal":
            shown |= set(before["deck"][:5])  # 2 players: the hakem's first packet
    for event, allowed in may_know(two.rules, two.events):
        if event["round"] == deals[-1]["round"] and event["kind"] == "PLAY":
            assert not (burned - played_cards - shown) & allowed


def test_the_leak_check_finds_another_seats_card_slipped_into_a_request(played):
    p = played["4p-redeal-bam"]
    request, event, allowed = next((r, e, a) for r, e, a in requests_with_allowed(p) if e["kind"] == "PLAY")
    deal = next(e for e in reversed(p.events) if e["type"] == "deal" and e["round"] == event["round"])
    stranger = next(c for c in deal["deck"] if c not in allowed)  # another seat's card
    for field in ("hand", "trick"):
        forged = pb.DecisionRequest()
        forged.CopyFrom(request)
        if field == "hand":
            forged.hokm.hand.append(stranger)
        else:
            forged.hokm.trick.add(seat=(event["seat"] + 1) % 4, card=stranger)
        assert leaked(forged, allowed) == {stranger}
