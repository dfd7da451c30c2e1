"""Hand as an OpenSpiel game (referee/env/hand_openspiel.py): OpenSpiel's own random simulation test,
with serialisation, on every preset; its playthrough goldens; and the game being the engine's match,
dealt by its chance nodes, a turn built move by move as the AEC environment builds it, seen by each
seat only through its view."""

from __future__ import annotations

import base64
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import generate_playthrough

from tests.env import regenerate_playthroughs
from waraq.referee.env.boards import side_reward
from waraq.referee.env.hand_encoding import ACTIONS, StepTurn, action_of, encode, legal_mask
from waraq.referee.env.hand_openspiel import GAME_NAME, HandGame, HandOpenSpielState, load
from waraq.referee.games.hand.dealing import FixedHandDealer
from waraq.referee.games.hand.decisions import TURN
from waraq.referee.games.hand.engine import HandState
from waraq.referee.games.hand.melds import parse_card
from waraq.referee.games.hand.rules import KEYS, PRESETS

PRESET_NAMES = ["classic", "partners", "three", "two", "short"]
SHORT = {name: f"{GAME_NAME}(preset={name},rounds=1)" for name in PRESET_NAMES}
CHANCE = int(pyspiel.PlayerId.CHANCE)


def random_states(game: HandGame, seed: int, every: int = 1):
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


def played(game: HandGame, seed: int) -> HandOpenSpielState:
    *_, last = random_states(game, seed)
    return last


# -- OpenSpiel's own checks ---------------------------------------------------------------


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_openspiels_random_simulation_test_with_serialisation_passes_on_a_round(name):
    # Each step: legal actions sorted and empty for the others, clone equal, serialise and read back
    # equal (game and state), masks, chance outcomes, returns within the utilities, length bounded.
    pyspiel.random_sim_test(pyspiel.load_game(SHORT[name]), num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_openspiels_random_simulation_test_passes_on_whole_matches(name):
    pyspiel.random_sim_test(load(name), num_sims=2, serialize=True, verbose=False)


PLAYTHROUGHS = regenerate_playthroughs.SETS["hand"]


@pytest.mark.parametrize("path", sorted(PLAYTHROUGHS.folder.glob("*.txt")), ids=lambda p: p.stem)
def test_a_playthrough_regenerated_is_its_golden_file(path):
    regenerate_playthroughs.parse_absl_flags()
    original, regenerated = generate_playthrough.replay(str(path))
    assert regenerated == original


def test_every_playthrough_is_there():
    found = sorted(p.stem for p in PLAYTHROUGHS.folder.glob("*.txt"))
    assert found == sorted(PLAYTHROUGHS.games)


# -- parameters ------------------------------------------------------------------------


def test_every_rules_key_and_the_preset_are_parameters():
    assert set(load().get_type().parameter_specification) == {"preset", *KEYS}


def test_a_preset_and_keys_over_it_make_the_rules_and_the_player_count():
    for name in PRESET_NAMES:
        assert load(name).rules == PRESETS[name]
        assert load(name).num_players() == PRESETS[name].players
    game = pyspiel.load_game(f"{GAME_NAME}(preset=three,rounds=2,opening_points=40)")
    assert game.rules == PRESETS["three"].replace(rounds=2, opening_points=40)
    assert load("classic", partnership="true").rules == PRESETS["partners"]
    assert load("partners", partnership="false").rules == PRESETS["classic"]


def test_the_games_string_loads_the_same_rules_and_bad_rules_are_refused_naming_the_key():
    game = load("two", rounds=3)
    assert pyspiel.load_game(str(game)).rules == game.rules
    with pytest.raises(Exception, match="partnership"):
        pyspiel.load_game(f"{GAME_NAME}(preset=three,partnership=true)")
    with pytest.raises(Exception, match="partnership"):
        pyspiel.load_game(f"{GAME_NAME}(partnership=maybe)")


# -- chance nodes: the first player, then each deck and stock card by card ---------------------


@pytest.mark.parametrize("name", ["short", "two", "three"])
def test_chance_nodes_draw_the_first_player_then_deal_each_deck_and_stock_uniformly(name):
    game = pyspiel.load_game(SHORT[name])
    n = game.num_players()
    restocks = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_initial_state()
        outcomes = state.chance_outcomes()
        assert outcomes == [(s, pytest.approx(1 / n)) for s in range(n)]
        state.apply_action(seed % n)
        runs: list[list[int]] = []
        while not state.is_terminal():
            if not state.is_chance_node():
                state.apply_action(rng.choice(state.legal_actions()))
                continue
            engine = state.table.engine
            expected = engine.rules.deck if engine.awaiting_deck else engine.pile[:-1]
            if not state.table.pending:
                runs.append([])
            outcomes = state.chance_outcomes()
            assert sorted(a for a, _ in outcomes) == sorted(set(expected) - set(runs[-1]))
            assert all(p == pytest.approx(1 / len(outcomes)) for _, p in outcomes)
            assert state.legal_actions() == [a for a, _ in outcomes]
            card = rng.choice(outcomes)[0]
            state.apply_action(card)
            runs[-1].append(card)
        events = state.table.engine.events
        assert state.table.engine.first_of_match == seed % n
        dealt = [
            [parse_card(c) for c in e["deck" if e["type"] == "deal" else "stock"]]
            for e in events
            if e["type"] in ("deal", "restock")
        ]
        assert dealt == runs
        restocks += sum(e["type"] == "restock" for e in events)
    assert restocks > 0


def engine_replay(state: HandOpenSpielState) -> HandState:
    """The match ``state`` played, replayed on the engine alone: its record's decks and stocks, each
    TAKE answer applied, each turn's moves built on a StepTurn and the finished turn applied."""
    game = state.get_game()
    events = state.table.engine.events
    decks = [[parse_card(c) for c in e["deck"]] for e in events if e["type"] == "deal"]
    stocks = [[parse_card(c) for c in e["stock"]] for e in events if e["type"] == "restock"]
    engine = HandState(game.rules, FixedHandDealer(state.table.engine.first_of_match, decks, stocks))
    turn = None
    for step in state.full_history():
        if step.player == CHANCE:
            continue
        assert engine.to_act == step.player
        view = engine.view(step.player)
        if engine.kind == TURN and turn is None:
            turn = StepTurn.of(view)
        action = action_of(step.action, view, turn)
        if engine.kind != TURN:
            engine.apply(action)
            continue
        assert turn is not None
        finished = turn.play(action)
        if finished is not None:
            engine.apply(finished)
            turn = None
    return engine


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_match_through_openspiel_is_the_engines_match_on_the_same_decks(name):
    game = pyspiel.load_game(SHORT[name])
    for seed in range(2):
        state = played(game, seed)
        engine = engine_replay(state)
        assert engine.events == state.table.engine.events
        winners = engine.result.winners
        assert state.returns() == [side_reward(winners, s) for s in range(game.num_players())]
        assert state.returns() != [0.0] * game.num_players()


# -- the decision interface ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["short", "two", "partners"])
def test_legal_actions_are_the_encodings_and_the_python_answer_is_pyspiels(name):
    game = pyspiel.load_game(SHORT[name])
    for state in random_states(game, 1, every=5):
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for seat in range(game.num_players()):
            assert state.legal_actions(seat) == pyspiel.State.legal_actions(state, seat)
        if state.is_chance_node() or state.is_terminal():
            continue
        seat = state.current_player()
        view = state.table.engine.view(seat)
        mask = legal_mask(view, state.table.turn_of(seat))
        assert state.legal_actions_mask() == mask.tolist()
        before = str(state), state.history()
        with pytest.raises(ValueError):  # hand_encoding's refusal, through pyspiel
            state.apply_action(next(i for i in range(ACTIONS) if not mask[i]))
        assert (str(state), state.history()) == before


def test_an_action_string_names_the_seat_the_card_or_the_move():
    game = load("short")
    state = game.new_initial_state()
    assert state.action_to_string(CHANCE, 2) == "first player 2"
    state.apply_action(1)
    assert state.action_to_string(CHANCE, parse_card("10H#1")) == "deal 10H#1"
    assert state.action_to_string(0, 1) == "1 (TAKE discard)"
    assert state.action_to_string(0, 2 + parse_card("7H#0")) == f"{2 + parse_card('7H#0')} (PICK 7H#0)"
    assert state.action_to_string(0, 214) == "214 (MELD)"


# -- what a seat sees -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["short", "two", "three"])
def test_the_observation_tensor_is_the_encoding_of_the_seats_view_and_turn(name):
    game = pyspiel.load_game(SHORT[name])
    for state in random_states(game, 2, every=9):
        table = state.table
        for seat in range(game.num_players()):
            if table.engine is None:
                assert not any(state.observation_tensor(seat))
                continue
            expected = encode(table.engine.view(seat), table.turn_of(seat))
            assert np.array_equal(np.array(state.observation_tensor(seat), np.float32), expected)
            assert state.information_state_tensor(seat)[: len(expected)] == pytest.approx(expected.tolist())


def _everything(state: HandOpenSpielState, seat: int) -> tuple:
    return (
        state.information_state_string(seat),
        state.information_state_tensor(seat),
        state.observation_string(seat),
        state.observation_tensor(seat),
    )


def _with_deck(state: HandOpenSpielState, deck: list[int]) -> HandOpenSpielState:
    """``state``'s actions again, the current deal dealt from ``deck``."""
    table = state.table
    actions = list(state.history())
    actions[table.deal_start : table.deal_start + len(deck)] = deck
    again = state.get_game().new_initial_state()
    for action in actions:
        again.apply_action(action)
    return again


def test_a_seat_sees_nothing_of_cards_swapped_between_two_hands_it_cannot_see():
    # Two cards of the same face (copies) in two other seats' hands, never shown: swapping them in the deck
    # changes those seats' hands and nothing any other seat sees.
    game = load("short")
    checked = 0
    for seed in range(6):
        for state in random_states(game, seed, every=11):
            table = state.table
            if not table.dealt or state.is_chance_node() or table.story[-1:] and table.turn_moves:
                continue
            engine = table.engine
            deck = list(state.history()[table.deal_start : table.deal_start + 106])
            shown = engine.view(0).cards_seen() | set(engine.hands[0])
            a, b = (engine.first + 1) % 4, (engine.first + 2) % 4
            pair = next(
                (
                    (x, y)
                    for x in table.dealt[a]
                    for y in table.dealt[b]
                    if x % 53 == y % 53
                    and x != y
                    and x in engine.hands[a]
                    and y in engine.hands[b]
                    and not {x, y} & shown
                ),
                None,
            )
            if pair is None:
                continue
            i, j = deck.index(pair[0]), deck.index(pair[1])
            deck[i], deck[j] = deck[j], deck[i]
            try:
                moved = _with_deck(state, deck)
            except ValueError:
                continue  # a move was no longer allowed (a copy's index is the card)
            assert _everything(moved, 0) == _everything(state, 0)
            assert moved.observation_string(a) != state.observation_string(a)
            checked += 1
            break
    assert checked >= 2


@pytest.mark.parametrize("name", ["short", "two"])
def test_the_information_state_only_grows_over_the_match(name):
    # Perfect recall: what a seat knew stays, as the same text, whatever happens after (its last line is "now").
    game = load(name, rounds=2)
    before: list[str] = []
    for state in random_states(game, 5):
        if state.table.engine is None:
            continue
        now = [state.information_state_string(s).rsplit("\nnow | ", 1)[0] for s in range(game.num_players())]
        for old, new in zip(before, now, strict=False):
            lines = old.split("\n")
            assert new.startswith("\n".join(lines[:-1]))
            assert new.split("\n")[len(lines) - 1].startswith(lines[-1])
        before = now
    assert sum(line.startswith("deal ") for line in before[0].split("\n")) >= 2


def test_a_seat_sees_its_own_draws_and_only_that_others_drew():
    state = played(load("two", rounds=1), 3)
    text0 = state.information_state_string(0)
    for who, what, value, _ in state.table.past[0].story:
        if what == 1:  # a draw
            name = f"{who} draw"
            assert (name + (" " + state.action_to_string(CHANCE, value).split()[1] if who == 0 else "")) in text0


# -- copies -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["short", "two"])
def test_a_clone_and_a_state_read_back_are_the_same_match_and_independent(name):
    game = pyspiel.load_game(SHORT[name])
    for state in random_states(game, 6, every=41):
        for copy in (state.clone(), game.deserialize_state(state.serialize())):
            assert str(copy) == str(state) and copy.history() == state.history()
            for seat in range(game.num_players()):
                assert _everything(copy, seat) == _everything(state, seat)
            if not copy.is_terminal():
                before = str(state)
                copy.apply_action(copy.legal_actions()[0])
                assert str(state) == before


def test_a_serialised_state_holds_its_actions_and_is_read_back_by_replaying_them():
    state = played(load("short"), 3)
    payload = base64.b64decode(state.serialize().split("__dict__=")[1])
    assert b"replayed" in payload and b"HandState" not in payload  # a record, not the engine's objects


def test_a_chance_outcome_not_to_deal_is_refused_and_changes_nothing():
    game = load("two", rounds=1)
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="chance outcome 2 is not one still to deal"):
        state.apply_action(2)
    state.apply_action(0)
    before = _everything(state, 0), state.history()
    with pytest.raises(ValueError, match="chance outcome 106 is not one still to deal"):
        state.apply_action(106)
    assert (_everything(state, 0), state.history()) == before
    assert state.table.before_deal is None and state.table.runs == []
