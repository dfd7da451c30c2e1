"""The Hand sample bots' turns are the engine's to judge (sample_bots/hand_turn.py builds on
the engine's ``PartialTurn``): every turn the random and heuristic bots build is one the
referee accepts, and where the engine has a use for the taken discard they never fail
to build one.

The position that made the random bot crash: it took a discarded joker, laid it in a
meld standing for a card it still held, then won it back with that card by a random
swap and never laid it again; its turn builder, which then checked the turn's end
rules by itself, raised "the taken discard JK#1 must end on the table". The match it
happened in is the one ``waraq match --game hand --rules three --bots random --seed
20269213`` dealt before deals had keys (dealing seed = the seed, the bots seeded from
the keyless match id).
"""

from __future__ import annotations

import asyncio
import random

from hypothesis import given
from hypothesis import strategies as st

from tests.support.hand_setup import card, deal, meld, rules, swap, turn
from tests.support.servers import match_against_servers
from waraq.bots.hand_heuristic import HandHeuristicPlayer
from waraq.bots.hand_random import HandRandomPlayer
from waraq.bots.hand_turn import TurnBuilder
from waraq.referee.games.hand.dealing import FixedHandDealer, stack_deck
from waraq.referee.games.hand.decisions import DISCARD_PILE, TAKE, TURN, Turn
from waraq.referee.games.hand.engine import HandState, new_match
from waraq.referee.games.hand.turn import check_turn
from waraq.referee.match.inprocess import play_match
from waraq.referee.records.record_file import read_record
from waraq.referee.run.runner import match_id

TWO = rules(players=2, rounds=1)

# Seat 0 throws JK#1 on its first turn. Seat 1 (the crashed seat's hand of round 2,
# without the joker it took) holds 9H#1 10H#1 JH QH KH#1, 10S#1 QS#1 and JK: JK#1 10H#1
# JH QH (the joker as 9H: 9 + 10 + 10 + 10 = 39) and 10S#1 JK QS#1 (the joker as JS:
# 30) open with 69, so the referee offers it the JK#1.
THROWER = "2S 5S 8S JS 3H 6H 9H 4D 7D 10D KD 2C 5C 8C JK#1"
TAKER = "6S 7H JH QH AD JK 8S#1 10S#1 QS#1 9H#1 10H#1 KH#1 JD#1 7C#1"
TRAP = (meld("JK#1 10H#1 JH QH"), meld("10S#1 JK QS#1"))  # leaves 9H#1 in hand
CRASHED = 4  # a seed on which the old builder took TRAP, then swapped 9H#1 in, and raised


def joker_taken() -> HandState:
    state = deal(TWO, 0, [THROWER, TAKER])
    state.apply(turn(discard="JK#1"))
    assert (state.kind, state.to_act) == (TAKE, 1)
    state.apply(DISCARD_PILE)
    assert (state.kind, state.took) == (TURN, card("JK#1"))
    return state


def test_the_position_is_a_trap_the_builder_can_step_into():
    view = joker_taken().view(1)
    assert TRAP in view.uses
    b = TurnBuilder.of(view)
    b.apply(TRAP)
    assert b.opened and b.can_end
    # Winning the joker back is a legal step (the referee would take a turn that lays
    # it again), but the turn as it stands can no longer end.
    assert b.attempt(swap(0, "9H#1"))
    assert b.needs_use and not b.can_end


def test_the_random_bot_that_crashed_there_now_plays_a_turn_the_referee_accepts():
    state = joker_taken()
    action = HandRandomPlayer(CRASHED)(state.view(1))
    check_turn(state.view(1), action)
    state.apply(action)
    assert state.opened[1]
    assert any(card("JK#1") in m.cards for m in state.table)


def test_at_that_position_every_seed_of_either_bot_plays_an_accepted_turn():
    # The old builder raised on 6 of these 100 seeds of the random bot (4, 13, 35, 52, 60, 80).
    state = joker_taken()
    view = state.view(1)
    for seed in range(100):
        for player in (HandRandomPlayer(seed), HandHeuristicPlayer(seed)):
            action = player(view)
            check_turn(view, action)
            state.clone().apply(action)


def test_the_reported_match_plays_to_its_end():
    three = rules(preset="three")
    bot_seed = match_id(20269213)  # the keyless id, as the bot servers were given it
    players = [HandRandomPlayer(f"{bot_seed}/{seat}") for seat in range(3)]
    state = play_match(three, 20269213, players)
    assert state.result.reason == "score"


def test_the_reported_match_over_grpc_ends_without_a_fault(tmp_path):
    three = rules(preset="three")
    path = tmp_path / "reported.jsonl"
    outcome = asyncio.run(match_against_servers(three, 20269213, match_id(20269213), ["random"] * 3, path))
    assert outcome.reason == "score" and not outcome.faults
    assert not [e for e in read_record(path).events if e["type"] == "fault"]


# -- every turn the bots build, the engine accepts ------------------------------------------

JOKERS = (card("JK"), card("JK#1"))


def run_and_joker(players: int, joker: int, suit: int, start: int, length: int, copies: int, shuffle: int) -> HandState:
    """The first player (seat 0) throws ``joker`` on its first turn; seat 1 holds a run of
    ``length`` cards of ``suit`` from rank ``start`` (each card's copy a bit of
    ``copies``) and cards dealt at random: the joker often fits the run in the place
    of a card seat 1 keeps, the trap above."""
    rules_ = rules(players=players, rounds=1)
    run = [(copies >> i & 1) * 53 + suit * 13 + rank for i, rank in enumerate(range(start, start + length))]
    rest = [c for c in range(106) if c != joker and c not in run]
    random.Random(shuffle).shuffle(rest)
    taker = run + rest[: 14 - length]
    rest = rest[14 - length :]
    hands = [[joker, *rest[:14]], taker] + [rest[14 * s : 14 * s + 14] for s in range(1, players - 1)]
    stock = rest[14 * (players - 1) :]
    state = HandState(rules_, FixedHandDealer(0, [stack_deck(rules_, 0, hands, stock)]))
    state.apply(Turn((), joker))
    return state


def played_to(preset: str, seed: int, decisions: int, take: float) -> HandState:
    """A seeded match played ``decisions`` decisions on by the engine's random turns,
    taking the discard whenever offered with chance ``take``."""
    state = new_match(rules(preset=preset), f"bot-turns/{seed}")
    rng = random.Random(seed)
    for _ in range(decisions):
        if state.result is not None:
            break
        if state.kind == TAKE:
            state.apply(DISCARD_PILE if rng.random() < take else "stock")
        else:
            state.apply(state.random_action(rng))
    return state


def assert_the_bots_play_accepted_turns(state: HandState, seeds: range) -> None:
    """At ``state``'s decision (a TAKE is answered by taking), each bot's TURN passes the
    referee's own check, and applying it is accepted."""
    if state.result is not None:
        return
    if state.kind == TAKE:
        # The heuristic answers TAKE with one of the legal answers; then the discard is taken.
        assert HandHeuristicPlayer(0)(state.view(state.to_act)) in state.legal_actions()
        state.apply(DISCARD_PILE)
    view = state.view(state.to_act)
    if state.took is not None:
        assert view.uses, "the referee offered the discard: the engine has a use for it"
    for seed in seeds:
        for player in (HandRandomPlayer(seed), HandHeuristicPlayer(seed)):
            action = player(view)
            check_turn(view, action)
            state.clone().apply(action)


@given(
    players=st.integers(2, 4),
    joker=st.sampled_from(JOKERS),
    suit=st.integers(0, 3),
    run=st.integers(3, 7).flatmap(lambda n: st.tuples(st.integers(0, 13 - n), st.just(n))),
    copies=st.integers(0, 127),
    shuffle=st.integers(0, 2**32),
)
def test_a_taken_joker_never_stops_the_bots(players, joker, suit, run, copies, shuffle):
    start, length = run
    state = run_and_joker(players, joker, suit, start, length, copies, shuffle)
    assert_the_bots_play_accepted_turns(state, range(4))


@given(
    preset=st.sampled_from(("classic", "partners", "three", "two")),
    seed=st.integers(0, 2**32),
    decisions=st.integers(0, 120),
    take=st.floats(0, 1),
)
def test_in_played_positions_the_bots_turns_are_accepted(preset, seed, decisions, take):
    assert_the_bots_play_accepted_turns(played_to(preset, seed, decisions, take), range(2))
