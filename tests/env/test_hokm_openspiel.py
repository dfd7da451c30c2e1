"""Hokm as an OpenSpiel game (referee/env/hokm_openspiel.py): OpenSpiel's own random simulation test,
with serialisation, on every preset and variant; its playthrough goldens; and the game being the engine's
match, dealt by its chance nodes, seen by each seat only through its view."""

from __future__ import annotations

import base64
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import generate_playthrough

from tests.env import regenerate_playthroughs
from waraq.referee.env.hokm_encoding import action_of, encode, legal_mask
from waraq.referee.env.hokm_openspiel import GAME_NAME, HokmGame, HokmOpenSpielState, load
from waraq.referee.env.hokm_pettingzoo import match_reward
from waraq.referee.games.cards import ACE, parse_card, rank_of
from waraq.referee.games.dealers import FixedDealer
from waraq.referee.games.hokm.engine import HokmState, action_from_json
from waraq.referee.games.hokm.rules import KEYS, PRESETS

GAMES = {
    "classic": f"{GAME_NAME}(target_score=3)",
    "three": f"{GAME_NAME}(preset=three,target_score=3)",
    "two": f"{GAME_NAME}(preset=two,target_score=3)",
    "redeal, bam, must trump": f"{GAME_NAME}(max_redeals=3,bam=true,void_rule=must_trump,target_score=2)",
    "two, burn seen, redeal, previous": (
        f"{GAME_NAME}(preset=two,burn_visible=true,max_redeals=2,hakem_rotation=on_loss_previous,target_score=2)"
    ),
    "three, every round, must trump": (
        f"{GAME_NAME}(preset=three,hakem_rotation=every_round,void_rule=must_trump,max_redeals=1,target_score=2)"
    ),
}


def random_states(game: HokmGame, seed: int, every: int = 1):
    """The states of one random match to its end, every ``every``-th one (the last always)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    step = 0
    while not state.is_terminal():
        if step % every == 0:
            yield state
        state.apply_action(rng.choice(state.legal_actions()))
        step += 1
    yield state


def played(game: HokmGame, seed: int) -> HokmOpenSpielState:
    *_, last = random_states(game, seed)
    return last


# -- OpenSpiel's own checks ---------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_openspiels_random_simulation_test_with_serialisation_passes(name):
    # Each step: legal actions sorted and empty for the others, clone equal, serialise and read back
    # equal (game and state), masks, chance outcomes, returns within the utilities, length bounded.
    pyspiel.random_sim_test(pyspiel.load_game(GAMES[name]), num_sims=2, serialize=True, verbose=False)


def test_openspiels_random_simulation_test_passes_on_a_whole_classic_match():
    pyspiel.random_sim_test(load("classic"), num_sims=1, serialize=True, verbose=False)


PLAYTHROUGHS = regenerate_playthroughs.SETS["hokm"]


@pytest.mark.parametrize("path", sorted(PLAYTHROUGHS.folder.glob("*.txt")), ids=lambda p: p.stem)
def test_a_playthrough_regenerated_is_its_golden_file(path):
    regenerate_playthroughs.parse_absl_flags()
    original, regenerated = generate_playthrough.replay(str(path))
    assert regenerated == original


def test_there_is_a_playthrough_per_player_count():
    assert sorted(p.stem for p in PLAYTHROUGHS.folder.glob("*.txt")) == sorted(PLAYTHROUGHS.games)


# -- parameters ------------------------------------------------------------------------


def test_every_rules_key_and_the_preset_are_parameters():
    assert set(load().get_type().parameter_specification) == {"preset", *KEYS}


def test_a_preset_and_keys_over_it_make_the_rules_and_the_player_count():
    game = pyspiel.load_game(f"{GAME_NAME}(preset=three,target_score=1,removed_cards=3C)")
    assert game.rules == PRESETS["three"].replace(target_score=1, removed_cards=["3C"])
    assert game.num_players() == 3
    assert load("two").rules == PRESETS["two"] and load("two").num_players() == 2
    assert load("classic", bam=True, void_rule="must_trump").rules == PRESETS["classic"].replace(
        bam=True, void_rule="must_trump"
    )
    assert load("short").rules == PRESETS["short"]


def test_the_games_string_loads_the_same_rules_and_bad_rules_are_refused_naming_the_key():
    game = load("two", burn_visible=True, target_score=2)
    assert pyspiel.load_game(str(game)).rules == game.rules
    with pytest.raises(Exception, match="removed_cards"):
        pyspiel.load_game(f"{GAME_NAME}(preset=three,removed_cards=none)")


# -- chance nodes: the engine's deal, card by card ----------------------------------------


@pytest.mark.parametrize("name", ["classic", "two", "redeal, bam, must trump"])
def test_chance_nodes_deal_each_deck_card_by_card_uniformly_and_the_engine_deals_those_decks(name):
    game = pyspiel.load_game(GAMES[name])
    deck = game.rules.deck
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_initial_state()
        runs: list[list[int]] = [[]]  # the ace draw, then each deck: the chance outcomes in order
        while not state.is_terminal():
            if not state.is_chance_node():
                state.apply_action(rng.choice(state.legal_actions()))
                continue
            outcomes = state.chance_outcomes()
            assert sorted(a for a, _ in outcomes) == sorted(set(deck) - set(runs[-1]))
            assert all(p == pytest.approx(1 / len(outcomes)) for _, p in outcomes)
            assert state.legal_actions() == [a for a, _ in outcomes]
            card = rng.choice(outcomes)[0]
            state.apply_action(card)
            runs[-1].append(card)
            if len(runs) == 1 and rank_of(card) == ACE or len(runs[-1]) == len(deck):
                runs.append([])
        events = state.table.engine.events
        ace_draw, *decks, rest = runs
        assert rest == []
        assert [parse_card(c) for c in events[0]["cards"]] == ace_draw
        assert [[parse_card(c) for c in e["deck"]] for e in events if e["type"] == "deal"] == decks


@pytest.mark.parametrize("name", list(GAMES))
def test_a_match_through_openspiel_is_the_engines_match_on_the_same_decks(name):
    game = pyspiel.load_game(GAMES[name])
    for seed in range(3):
        state = played(game, seed)
        events = state.table.engine.events
        ace = [parse_card(c) for c in events[0]["cards"]]
        decks = [[parse_card(c) for c in e["deck"]] for e in events if e["type"] == "deal"]
        engine = HokmState(game.rules, FixedDealer(ace, decks))
        chance = int(pyspiel.PlayerId.CHANCE)
        for step in state.full_history():
            if step.player != chance:
                assert engine.to_act == step.player
                engine.apply(action_of(step.action, engine.view(step.player)))
        assert engine.events == events
        assert state.returns() == [match_reward(engine, s) for s in range(game.num_players())]
        assert sorted(state.returns()) != [0.0] * game.num_players()


def test_the_records_decisions_are_the_actions_openspiel_took():
    # The record's decisions, spelled as the referee spells them, are the indices OpenSpiel applied.
    game = load("two", target_score=2)
    state = played(game, 7)
    events = state.table.engine.events
    decisions = [e for e in events if e["type"] == "decision"]
    taken = [s.action for s in state.full_history() if s.player != pyspiel.PlayerId.CHANCE]
    ace = [parse_card(c) for c in events[0]["cards"]]
    replay = HokmState(
        game.rules, FixedDealer(ace, [[parse_card(c) for c in e["deck"]] for e in events if e["type"] == "deal"])
    )
    assert len(decisions) == len(taken)
    for event, index in zip(decisions, taken, strict=True):
        action = action_from_json(event["kind"], event["action"])
        assert action == action_of(index, replay.view(replay.to_act))
        replay.apply(action)


# -- the decision interface ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["classic", "two", "three, every round, must trump"])
def test_legal_actions_are_the_engines_and_the_python_answer_is_pyspiels(name):
    game = pyspiel.load_game(GAMES[name])
    for state in random_states(game, 1, every=3):
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for seat in range(game.num_players()):
            assert state.legal_actions(seat) == pyspiel.State.legal_actions(state, seat)
        if state.is_chance_node() or state.is_terminal():
            continue
        view = state.table.engine.view(state.current_player())
        assert state.legal_actions_mask() == legal_mask(view).tolist()
        before = str(state), state.history()
        with pytest.raises(ValueError):  # the engine's IllegalAction, through pyspiel
            state.apply_action(next(i for i in range(1388) if not legal_mask(view)[i]))
        assert (str(state), state.history()) == before


def test_an_action_string_names_the_card_or_the_decision():
    game = load("classic")
    state = game.new_initial_state()
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, parse_card("10H")) == "turn 10H"
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    assert state.action_to_string(state.current_player(), 52 + 1) == "53 (TRUMP H)"
    assert state.action_to_string(0, parse_card("QS")) == "10 (PLAY QS)"


# -- what a seat sees -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["classic", "two", "three"])
def test_the_observation_tensor_is_the_encoding_of_the_seats_view(name):
    game = pyspiel.load_game(GAMES[name])
    for state in random_states(game, 2, every=7):
        engine = state.table.engine
        for seat in range(game.num_players()):
            if engine is None:
                assert not any(state.observation_tensor(seat))
                continue
            expected = encode(engine.view(seat))
            assert np.array_equal(np.array(state.observation_tensor(seat), np.float32), expected)
            assert state.information_state_tensor(seat)[: len(expected)] == pytest.approx(expected.tolist())


def _swap(deck: list[int], a: int, b: int) -> list[int]:
    i, j = deck.index(a), deck.index(b)
    deck = list(deck)
    deck[i], deck[j] = deck[j], deck[i]
    return deck


def _with_deck(state: HokmOpenSpielState, deck: list[int]) -> HokmOpenSpielState:
    """``state``'s actions again, the current deal dealt from ``deck``."""
    table = state.table
    actions = list(state.history())
    actions[table.deal_start : table.deal_start + len(deck)] = deck
    again = state.get_game().new_initial_state()
    for action in actions:
        again.apply_action(action)
    return again


def _mid_play(game: HokmGame, seed: int, plays: int) -> HokmOpenSpielState:
    rng = random.Random(seed)
    state = game.new_initial_state()
    while True:
        engine = state.table.engine
        if engine is not None and engine.kind == "PLAY" and len(engine.history) * engine.players >= plays:
            return state
        state.apply_action(rng.choice(state.legal_actions()))


def _everything(state: HokmOpenSpielState, seat: int) -> tuple:
    return (
        state.information_state_string(seat),
        state.information_state_tensor(seat),
        state.observation_string(seat),
        state.observation_tensor(seat),
    )


@pytest.mark.parametrize("name", ["classic", "three", "two"])
def test_a_seat_sees_nothing_of_a_card_that_moves_between_hands_it_cannot_see(name):
    game = pyspiel.load_game(GAMES[name])
    for seed in range(4):
        state = _mid_play(game, seed, plays=8)
        engine = state.table.engine
        me = engine.hakem
        others = [s for s in range(game.num_players()) if s != me]
        if game.num_players() == 2:
            # The opponent's card and the unused one (the last of the deck), of one suit: same suits held.
            unused = engine.deck[-1]
            mine = next((c for c in engine.hands[others[0]] if c // 13 == unused // 13), None)
            pair = None if mine is None else (mine, unused)
        else:
            a, b = others[:2]
            pair = next(
                ((x, y) for x in engine.hands[a] for y in engine.hands[b] if x // 13 == y // 13),
                None,
            )
        if pair is None:
            continue
        moved = _with_deck(state, _swap(engine.deck, *pair))
        assert _everything(moved, me) == _everything(state, me)
        holder = others[0]
        assert moved.observation_string(holder) != state.observation_string(holder)


def test_the_information_state_remembers_the_first_five_the_view_now_has_forgotten():
    game = load("classic")
    for seed in range(20):
        state = _mid_play(game, seed, plays=4)
        engine = state.table.engine
        me = engine.hakem
        first = engine.deck[:5]  # the hakem's first packet
        # One of its first five and a card of the same suit it got later, both still in its hand.
        pairs = [(f, c) for f in first for c in engine.hands[me] if f in engine.hands[me] and c not in first]
        pairs = [(f, c) for f, c in pairs if f // 13 == c // 13]
        if pairs:
            break
    early, later = pairs[0]
    moved = _with_deck(state, _swap(engine.deck, early, later))
    assert moved.observation_string(me) == state.observation_string(me)
    assert moved.information_state_string(me) != state.information_state_string(me)
    assert moved.information_state_tensor(me) != state.information_state_tensor(me)


@pytest.mark.parametrize("name", ["classic", "two, burn seen, redeal, previous"])
def test_the_information_state_only_grows_over_the_match(name):
    # Perfect recall: what a seat knew stays, as the same lines, whatever happens after (its last line is "now").
    game = pyspiel.load_game(GAMES[name])
    before: list[list[str]] = []
    for state in random_states(game, 5):
        if state.table.engine is None:
            continue
        lines = [state.information_state_string(s).split("\n") for s in range(game.num_players())]
        for old, new in zip(before, lines, strict=False):
            assert new[: len(old) - 1] == old[:-1]
        before = lines
    assert sum(line.startswith("deal ") for line in before[0]) >= 2  # deals before the last were remembered


# -- copies -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["classic", "two"])
def test_a_clone_and_a_state_read_back_are_the_same_match_and_independent(name):
    game = pyspiel.load_game(GAMES[name])
    for state in random_states(game, 6, every=37):
        for copy in (state.clone(), game.deserialize_state(state.serialize())):
            assert str(copy) == str(state) and copy.history() == state.history()
            for seat in range(game.num_players()):
                assert _everything(copy, seat) == _everything(state, seat)
            if not copy.is_terminal():
                before = str(state)
                copy.apply_action(copy.legal_actions()[0])
                assert str(state) == before


def test_a_serialised_state_holds_its_actions_and_is_read_back_by_replaying_them():
    state = played(load("classic", target_score=2), 3)
    payload = base64.b64decode(state.serialize().split("__dict__=")[1])
    assert b"replayed" in payload and b"HokmState" not in payload  # a record, not the engine's objects
