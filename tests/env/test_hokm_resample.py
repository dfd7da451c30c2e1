"""Resampling Hokm worlds from one seat's information (referee/env/hokm_resample.py, and
``resample_from_infostate`` in referee/env/hokm_openspiel.py): every world shows the seat exactly what it
saw and plays on legally; on small endings, enumerated here by brute force through the engine, the worlds
drawn are exactly the consistent ones, each about equally often; voids and redeal offers hold."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from waraq.referee.env import hokm_resample
from waraq.referee.env.hokm_encoding import DISCARD_BASE, DRAW_BASE, action_index, decode
from waraq.referee.env.hokm_openspiel import GAME_NAME, HokmOpenSpielState, load
from waraq.referee.games.cards import JACK
from waraq.referee.games.hokm.engine import DISCARD, winning_index

GAMES = {
    "classic": f"{GAME_NAME}(target_score=2)",
    "three": f"{GAME_NAME}(preset=three,target_score=2)",
    "two": f"{GAME_NAME}(preset=two,target_score=2)",
    "must trump, bam": f"{GAME_NAME}(void_rule=must_trump,bam=true,target_score=2)",
    "three, must trump": f"{GAME_NAME}(preset=three,void_rule=must_trump,target_score=2)",
    "two, must trump, burn seen": f"{GAME_NAME}(preset=two,void_rule=must_trump,burn_visible=true,target_score=2)",
    "redeals": f"{GAME_NAME}(max_redeals=2,target_score=2)",
    "two, redeals": f"{GAME_NAME}(preset=two,max_redeals=2,target_score=2)",
}


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


def seen_by(state: HokmOpenSpielState, seat: int) -> tuple:
    return (
        state.information_state_string(seat),
        state.information_state_tensor(seat),
        state.observation_string(seat),
        state.observation_tensor(seat),
    )


# -- every world is consistent and playable ---------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_every_world_shows_each_seat_exactly_what_it_saw_and_plays_on_to_the_end(name):
    game = pyspiel.load_game(GAMES[name])
    rng = random.Random(0)
    draw = sampler(1)
    for state in random_states(game, 1, every=23):
        for seat in range(game.num_players()):
            world = state.resample_from_infostate(seat, draw)
            assert seen_by(world, seat) == seen_by(state, seat)
            assert world.current_player() == state.current_player()
            assert str(game.deserialize_state(world.serialize())) == str(world)
            while not world.is_terminal():
                world.apply_action(rng.choice(world.legal_actions()))


@pytest.mark.parametrize("name", ["classic", "three", "two", "must trump, bam", "two, must trump, burn seen"])
def test_the_sampler_alone_draws_only_consistent_worlds_without_redeals(name):
    # No rejection is needed: the voids and the deal's structure are all the sampler must know.
    game = pyspiel.load_game(GAMES[name])
    rng = random.Random(2)
    checked = 0
    for state in random_states(game, 3, every=5):
        table = state.table
        if table.engine is None or table.dealing:
            continue
        decisions = [(who, *decode(index)) for who, index in table.decisions]
        for seat in range(game.num_players()):
            view = table.engine.view(seat)
            deck, actions = hokm_resample.sample_world(seat, table.dealt[seat], view, decisions, rng)
            indices = [action_index(kind, a) for (_, kind, _), a in zip(decisions, actions, strict=True)]
            world = table._replay(deck, indices)
            assert world is not None and world.shows(seat) == table.shows(seat)
            checked += 1
    assert checked > 20


def test_a_world_drawn_while_a_deck_is_dealt_changes_only_the_cards_nobody_has_seen():
    game = load("classic")
    state = game.new_initial_state()
    rng = random.Random(4)
    while state.table.engine is None or len(state.table.pending) < 20:
        state.apply_action(rng.choice(state.legal_actions()))
    worlds = [state.resample_from_infostate(1, sampler(seed)) for seed in range(5)]
    assert all(seen_by(w, 1) == seen_by(state, 1) for w in worlds)
    assert len({tuple(w.table.pending) for w in worlds}) == 5
    assert all(w.history()[: state.table.deal_start] == state.history()[: state.table.deal_start] for w in worlds)


# -- exact reachability on small endings ----------------------------------------------------


def ending(game, tricks_left: int, seeds=range(200)) -> HokmOpenSpielState:
    """A state at the start of a trick with ``tricks_left`` tricks to play in the round, from the first seed
    whose random match reaches one."""
    rules = game.rules
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            engine = state.table.engine
            if engine is not None and engine.kind == "PLAY" and not engine.trick:
                if rules.tricks - len(engine.history) == tricks_left:
                    return state
                if engine.round > 1:
                    break
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError(f"no match of {seeds} reaches {tricks_left} tricks left")


def hands_of_others(state: HokmOpenSpielState, seat: int) -> tuple[frozenset[int], ...]:
    engine = state.table.engine
    return tuple(frozenset(engine.hands[s]) for s in range(engine.players) if s != seat)


def consistent_hands(state: HokmOpenSpielState, seat: int) -> set[tuple[frozenset[int], ...]]:
    """By brute force, through the engine alone: every way to put the cards ``seat`` has not seen into the
    other seats' hands (the rest where the deck had them), kept when the match replayed on that deck shows
    ``seat`` the same strings and tensors. With 2 players the other seat's discard is the pair then lying
    where its discards lay; its keep-or-pass choices stay."""
    table, engine = state.table, state.table.engine
    n, deck = engine.players, list(engine.deck)
    others = [s for s in range(n) if s != seat]
    view = engine.view(seat)
    seen = set(view.hand) | set(view.discarded) | set(table.dealt[seat].hand)
    seen |= {c for t in view.tricks for c in t.cards} | {c for _, c in view.trick}
    seen |= {c for d in view.draws for c in (d.offered, d.second) if c is not None}
    hidden = [c for c in deck if c not in seen]
    holding = [[deck.index(c) for c in engine.hands[s]] for s in others]  # where each other hand lies
    elsewhere = [deck.index(c) for c in hidden if not any(deck.index(c) in h for h in holding)]
    discard_at = [deck.index(c) for c in engine.discards[others[0]]] if n == 2 else []
    history = list(state.history())
    players = [step.player for step in state.full_history()]
    after_deck = table.deal_start + len(deck)
    their_discard = [
        i for i in range(after_deck, len(history)) if players[i] == others[0] and DISCARD_BASE <= history[i] < DRAW_BASE
    ]
    game = state.get_game()
    target = seen_by(state, seat)
    found = set()
    for split in _splits(hidden, [len(h) for h in holding]):
        trial = list(deck)
        rest = [c for c in hidden if not any(c in part for part in split)]
        for positions, cards in zip([*holding, elsewhere], [*split, rest], strict=True):
            for position, card in zip(positions, sorted(cards), strict=True):
                trial[position] = card
        actions = list(history)
        actions[table.deal_start : after_deck] = trial
        for i in their_discard:
            actions[i] = action_index(DISCARD, tuple(sorted(trial[j] for j in discard_at)))
        world = game.new_initial_state()
        try:
            for action in actions:
                world.apply_action(action)
        except ValueError:
            continue
        if seen_by(world, seat) == target:
            found.add(tuple(frozenset(part) for part in split))
    return found


def _splits(cards, sizes):
    if not sizes:
        yield ()
        return
    for part in itertools.combinations(cards, sizes[0]):
        rest = [c for c in cards if c not in part]
        for more in _splits(rest, sizes[1:]):
            yield (frozenset(part), *more)


def assert_uniform(counts: Counter, draws: int) -> None:
    """Pearson's chi-square of the counts against equal ones, within six standard deviations of its mean."""
    k = len(counts)
    expected = draws / k
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < (k - 1) + 6 * math.sqrt(2 * (k - 1)), (chi2, k)


@pytest.mark.parametrize(
    "name, tricks_left, draws",
    [("classic", 2, 2500), ("three", 3, 1500), ("two", 2, 4000), ("must trump, bam", 2, 2500)],
)
def test_on_a_small_ending_the_worlds_are_exactly_the_consistent_deals_each_as_often(name, tricks_left, draws):
    game = pyspiel.load_game(GAMES[name])
    state = ending(game, tricks_left)
    seat = state.current_player()
    truth = consistent_hands(state, seat)
    assert hands_of_others(state, seat) in truth and len(truth) > 3
    draw = sampler(11)
    counts = Counter(hands_of_others(state.resample_from_infostate(seat, draw), seat) for _ in range(draws))
    assert set(counts) == truth
    assert_uniform(counts, draws)


# -- what play and the deal tell -----------------------------------------------------------------


def shown_voids(view) -> list[set[int]]:
    """Suits each seat has shown it lacks, read from the tricks here (not from hokm_resample)."""
    n = view.rules.players
    voids = [set() for _ in range(n)]
    tricks = [list(t.plays(n)) for t in view.tricks] + ([list(view.trick)] if view.trick else [])
    for plays in tricks:
        led = plays[0][1] // 13
        for i, (seat, card) in enumerate(plays):
            if card // 13 == led:
                continue
            voids[seat].add(led)
            if view.rules.void_rule != "must_trump" or card // 13 == view.trump:
                continue
            before = [c for _, c in plays[:i]]
            partner_winning = n == 4 and i >= 2 and plays[winning_index(before, view.trump)][0] == (seat + 2) % 4
            if not partner_winning:
                voids[seat].add(view.trump)
    return voids


@pytest.mark.parametrize("name", ["classic", "three", "two", "must trump, bam", "three, must trump"])
def test_a_seat_that_showed_a_void_is_never_dealt_that_suit(name):
    game = pyspiel.load_game(GAMES[name])
    draw = sampler(5)
    shown = 0
    for seed in range(8):
        for state in random_states(game, seed, every=5):
            engine = state.table.engine
            if engine is None or engine.kind != "PLAY":
                continue
            voids = shown_voids(engine.view(0))
            shown += sum(map(len, voids))
            for seat in range(game.num_players()):
                for _ in range(3):
                    world = state.resample_from_infostate(seat, draw).table.engine
                    for other in range(game.num_players()):
                        assert not any(c // 13 in voids[other] for c in world.hands[other])
    assert shown >= 8  # voids were there to respect


def test_a_redeal_offered_or_not_tells_every_seat_about_the_hakems_first_five():
    game = pyspiel.load_game(GAMES["redeals"])
    draw = sampler(9)
    seen = set()
    for seed in range(40):
        for state in random_states(game, seed, every=1):
            table = state.table
            engine = table.engine
            if engine is None or engine.kind != "TRUMP" or engine.redeals >= game.rules.max_redeals:
                continue
            offered = table.dealt[0].kind == "REDEAL"
            seen.add(offered)
            other = (engine.hakem + 1) % 4
            for _ in range(10):
                world = state.resample_from_infostate(other, draw).table.engine
                honours = [c for c in world.deck[:5] if c % 13 >= JACK]  # the hakem's first packet
                assert (not honours) if offered else honours
            break
        if seen == {True, False}:
            return
    raise AssertionError(f"both cases were not met: {seen}")


# -- the sampler of hidden cards -------------------------------------------------------------


def test_dealing_hidden_cards_reaches_every_assignment_respecting_the_voids_equally_often():
    cards = [0, 1, 2, 13, 14, 15, 26]  # three spades, three hearts, a diamond
    spades, hearts = 0b0001, 0b0010
    places = [(2, 0b1111), (2, 0b1111 & ~spades), (3, 0b1111 & ~hearts)]
    allowed = [
        split
        for split in _splits(cards, [2, 2, 3])
        if not any(c // 13 == 0 for c in split[1]) and not any(c // 13 == 1 for c in split[2])
    ]
    rng = random.Random(1)
    draws = 3000
    counts = Counter(tuple(frozenset(p) for p in hokm_resample.deal_hidden(cards, places, rng)) for _ in range(draws))
    assert set(counts) == set(allowed)
    assert_uniform(counts, draws)
    with pytest.raises(ValueError, match="7 hidden cards for places of"):
        hokm_resample.deal_hidden(cards, places[:2], rng)


# -- OpenSpiel's IS-MCTS -------------------------------------------------------------------------


def test_openspiels_python_ismcts_searches_the_game_through_resampling():
    # ISMCTS asserts that each world it draws has the root's information state, and searches in it.
    game = load("classic", target_score=1)
    state = ending(game, 5)
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        uct_c=2.0,
        max_simulations=40,
        random_state=np.random.RandomState(0),
    )
    assert bot.step(state) in state.legal_actions()
