"""Resampling Hand worlds from one seat's information (referee/env/hand_resample.py, and
``resample_from_infostate`` in referee/env/hand_openspiel.py): every world shows the seat exactly what it
saw and plays on legally; a card a seat took from the pile stays in its hand; on a small ending, enumerated
here independently through the game, the worlds drawn are exactly the consistent ones, each about equally
often (two players: the draw is uniform)."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from waraq.referee.env import hand_resample
from waraq.referee.env.hand_encoding import PICK_BASE, TAKE_BASE
from waraq.referee.env.hand_openspiel import GAME_NAME, HandOpenSpielState, load
from waraq.referee.env.hand_resample import DRAW, MOVE, RESTOCK

PRESET_NAMES = ["classic", "partners", "three", "two", "short"]
SHORT = {name: f"{GAME_NAME}(preset={name},rounds=1)" for name in PRESET_NAMES}
TAKE_DISCARD = TAKE_BASE + 1


def sampler(seed: int) -> pyspiel.UniformProbabilitySampler:
    """What OpenSpiel's own IS-MCTS passes to resample_from_infostate, seeded."""
    return pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)


def random_states(game, seed: int, every: int):
    rng = random.Random(seed)
    state = game.new_initial_state()
    step = 0
    while not state.is_terminal():
        if step % every == 0:
            yield state.clone()
        state.apply_action(rng.choice(state.legal_actions()))
        step += 1
    yield state


def seen_by(state: HandOpenSpielState, seat: int) -> tuple:
    return (
        state.information_state_string(seat),
        state.information_state_tensor(seat),
        state.observation_string(seat),
        state.observation_tensor(seat),
    )


def assert_worlds_consistent_and_playable(game, seed: int, every: int) -> int:
    rng = random.Random(seed)
    draw = sampler(seed)
    checked = 0
    for state in random_states(game, seed, every):
        for seat in range(game.num_players()):
            world = state.resample_from_infostate(seat, draw)
            assert seen_by(world, seat) == seen_by(state, seat)
            assert world.current_player() == state.current_player()
            assert str(game.deserialize_state(world.serialize())) == str(world)
            while not world.is_terminal():
                world.apply_action(rng.choice(world.legal_actions()))
            checked += 1
    return checked


# -- every world is consistent and playable ---------------------------------------------------


@pytest.mark.parametrize("name", ["short", "two"])
def test_every_world_shows_each_seat_exactly_what_it_saw_and_plays_on_to_the_end(name):
    assert assert_worlds_consistent_and_playable(pyspiel.load_game(SHORT[name]), 1, every=61) >= 4


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_on_every_preset_every_world_is_consistent_and_playable(name):
    game = pyspiel.load_game(SHORT[name])
    assert sum(assert_worlds_consistent_and_playable(game, seed, every=23) for seed in range(3)) >= 20


def test_a_world_drawn_while_a_deck_is_dealt_changes_only_the_cards_nobody_has_seen():
    game = load("short")
    state = game.new_initial_state()
    rng = random.Random(4)
    while state.table.engine is None or len(state.table.pending) < 20:
        state.apply_action(rng.choice(state.legal_actions()))
    worlds = [state.resample_from_infostate(1, sampler(seed)) for seed in range(5)]
    assert all(seen_by(w, 1) == seen_by(state, 1) for w in worlds)
    assert len({tuple(w.table.pending) for w in worlds}) == 5
    assert all(w.history()[: state.table.deal_start] == state.history()[: state.table.deal_start] for w in worlds)


# -- what the pile tells -------------------------------------------------------------------------


def mid_turn_after_a_take(game, seeds=range(40)) -> HandOpenSpielState:
    """A state inside a turn that took the discard, before the card taken is laid."""
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            table = state.table
            if table.turn_moves[:1] == [TAKE_DISCARD] and len(table.turn_moves) >= 2:
                took = table.engine.took
                if took is not None and PICK_BASE + took not in table.turn_moves:
                    return state
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("no random match took a discard and went on with its turn")


@pytest.mark.parametrize("name", ["short", "two", "three"])
def test_a_seat_that_took_the_discard_holds_it_in_every_world(name):
    game = pyspiel.load_game(SHORT[name])
    state = mid_turn_after_a_take(game)
    engine = state.table.engine
    taker, took = engine.to_act, engine.took
    for seat in range(game.num_players()):
        for seed in range(3):
            world = state.resample_from_infostate(seat, sampler(seed)).table.engine
            assert took in world.hands[taker]
            assert (world.to_act, world.took) == (taker, took)


def test_a_card_shown_by_a_seat_was_its_in_every_world_and_the_pile_and_table_stay():
    game = load("short")
    state = next(s for s in random_states(game, 8, every=1) if len(s.table.story) > 120 and not s.is_chance_node())
    engine = state.table.engine
    for seat in range(4):
        for seed in range(4):
            world = state.resample_from_infostate(seat, sampler(seed)).table.engine
            assert (world.pile, world.table, world.opened) == (engine.pile, engine.table, engine.opened)
            assert world.hands[seat] == engine.hands[seat]
            assert [len(h) for h in world.hands] == [len(h) for h in engine.hands]


# -- exact reachability on a small ending ---------------------------------------------------------


def after_a_restock(game, seeds=range(60)) -> HandOpenSpielState:
    """Two players, the seat to act's decision, just after the other seat's first draw from a new stock:
    every other hidden card is then known to be in the other's hand (the deck's stock is spent)."""
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            table = state.table
            kinds = [what for _, what, _, _ in table.story]
            if RESTOCK in kinds and not state.is_chance_node() and not table.turn_moves:
                after = table.story[kinds.index(RESTOCK) :]
                seat = state.current_player()
                drawn = [(who, card) for who, what, card, _ in after if what == DRAW]
                theirs = [card for who, card in drawn if who != seat]
                # (the test may look: the other's draw still in its hand, so hidden)
                if len(theirs) == 1 and drawn[-1][0] == seat and theirs[0] in table.engine.hands[1 - seat]:
                    return state
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError(f"no match of {seeds} reaches the ending")


def other_hand(state: HandOpenSpielState, seat: int) -> frozenset[int]:
    return frozenset(state.table.engine.hands[1 - seat])


def consistent_hands(state: HandOpenSpielState, seat: int) -> set[frozenset[int]]:
    """By brute force, through the game alone: the other seat drew one card of the new stock; put each card
    of that stock the seat has not seen at the other's draw position (the rest of the stock where it lay),
    replay the match on it and keep the other's hand when the seat is shown the same strings and tensors."""
    table = state.table
    (start, size) = table.runs[-1]
    history = list(state.history())
    stock = history[start : start + size]
    kinds = [what for _, what, _, _ in table.story]
    after = table.story[kinds.index(RESTOCK) :]
    order = [who for who, what, _, _ in after if what == DRAW]
    mine = {stock[i] for i, who in enumerate(order) if who == seat}
    theirs_at = order.index(1 - seat)
    candidates = [c for c in stock if c not in mine]
    game = state.get_game()
    target = seen_by(state, seat)
    found = set()
    for card in candidates:
        trial = list(stock)
        j = trial.index(card)
        trial[theirs_at], trial[j] = trial[j], trial[theirs_at]
        actions = history[:start] + trial + history[start + size :]
        world = game.new_initial_state()
        try:
            for action in actions:
                world.apply_action(action)
        except ValueError:
            continue
        if seen_by(world, seat) == target:
            found.add(other_hand(world, seat))
    return found


def assert_uniform(counts: Counter, draws: int) -> None:
    """Pearson's chi-square of the counts against equal ones, within six standard deviations of its mean."""
    k = len(counts)
    expected = draws / k
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < (k - 1) + 6 * math.sqrt(2 * (k - 1)), (chi2, k)


@pytest.mark.slow
def test_on_a_small_ending_the_worlds_are_exactly_the_consistent_deals_each_as_often():
    game = pyspiel.load_game(SHORT["two"])
    state = after_a_restock(game)
    seat = state.current_player()
    truth = consistent_hands(state, seat)
    assert other_hand(state, seat) in truth and len(truth) > 3
    draw = sampler(11)
    draws = 12 * len(truth)
    counts = Counter(other_hand(state.resample_from_infostate(seat, draw), seat) for _ in range(draws))
    assert set(counts) == truth
    assert_uniform(counts, draws)


# -- the sampler's pieces ----------------------------------------------------------------------------


def test_the_facts_read_no_card_another_seat_drew():
    game = load("short")
    state = next(s for s in random_states(game, 2, every=1) if len(s.table.story) > 60 and not s.is_chance_node())
    table = state.table
    story = list(table.story)
    blind = [(w, k, -1 if k == DRAW and w != 0 else v, x) for w, k, v, x in story]
    facts = hand_resample.Facts.of(table.rules, 0, table.first, table.dealt[0], story)
    again = hand_resample.Facts.of(table.rules, 0, table.first, table.dealt[0], blind)
    assert facts == again
    assert any(k == MOVE for _, k, _, _ in story)


def test_the_shown_cards_go_only_to_positions_received_before_they_were_shown():
    game = load("three", rounds=1)
    state = next(s for s in random_states(game, 3, every=1) if len(s.table.story) > 80 and not s.is_chance_node())
    table = state.table
    facts = hand_resample.Facts.of(table.rules, 0, table.first, table.dealt[0], table.story)
    rng = random.Random(0)
    for _ in range(20):
        runs = hand_resample.sample_runs(facts, rng)
        if runs is None:
            continue
        for other in facts.others.values():
            got = dict(other.slots)
            where = {runs[run][position]: (run, position) for (run, position) in got}
            for time, run, card in other.shown:
                slot = next(s for s in got if s[0] == run and runs[run][s[1]] == card)
                assert got[slot] <= time and where[card][0] == run
        assert sorted(runs[0]) == list(range(106))


# -- OpenSpiel's IS-MCTS -------------------------------------------------------------------------


def test_openspiels_python_ismcts_searches_the_game_through_resampling():
    # ISMCTS asserts that each world it draws has the root's information state, and searches in it.
    game = load("two", rounds=1)
    state = next(s for s in random_states(game, 1, every=1) if len(s.table.story) > 20 and not s.is_chance_node())
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        uct_c=2.0,
        max_simulations=10,
        random_state=np.random.RandomState(0),
    )
    assert bot.step(state) in state.legal_actions()
