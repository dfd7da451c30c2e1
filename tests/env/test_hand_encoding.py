"""Hand's action space and observation (referee/env/hand_encoding.py, hand_steps.py): random walks of
allowed moves finish every turn and match, every allowed index is taken by the engine's PartialTurn,
the house bots' turns decompose into moves and back, and a seat's observation is a function of its
own view."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from waraq.referee.common import built_in
from waraq.referee.env import hand_encoding
from waraq.referee.env.hand_encoding import (
    ACTIONS,
    MAX_MELDS,
    Move,
    MoveError,
    StepTurn,
    action_index,
    action_of,
    decode,
    encode,
    layout,
    legal_mask,
    meld_slot,
    observation_size,
    take_index,
    turn_step_states,
    turn_steps,
)
from waraq.referee.env.hand_steps import DISCARD, PICK, MoveKind, can_finish
from waraq.referee.games.hand.decisions import TAKE, TURN, Turn
from waraq.referee.games.hand.engine import HandState, new_match
from waraq.referee.games.hand.melds import FACES, Add, Meld, parse_card
from waraq.referee.games.hand.rules import PRESETS, HandRules, load_rules
from waraq.referee.games.hand.turn import PartialTurn

ONE_ROUND = {name: load_rules({"preset": name, "rounds": 1}) for name in PRESETS}
# Openings far harder and far easier than the presets' 51: many melds to reach one, or any meld.
ONE_ROUND |= {
    "two+open71": load_rules({"preset": "two", "rounds": 1, "opening_points": 71}),
    "three+open1": load_rules({"preset": "three", "rounds": 1, "opening_points": 1}),
}


def walk_match(rules: HandRules, seed: int | str, on_move=None, step_bias: float = 0.9) -> tuple[HandState, int]:
    """A match where every TAKE is a coin and every TURN a walk of allowed moves, steps preferred to
    the discard (``step_bias``) so turns lay, add and swap. ``on_move(state, turn, allowed)`` sees each
    state of a turn before its move. Returns the match over and its number of moves."""
    rng = random.Random(seed)
    state = new_match(rules, seed)
    moves = 0
    while state.result is None:
        seat = state.to_act
        view = state.view(seat)
        if state.kind == TAKE:
            state.apply(action_of(take_index(rng.choice(view.legal)), view))
            continue
        turn = StepTurn.of(view)
        finished = None
        while finished is None:
            mask = legal_mask(view, turn)
            allowed = np.flatnonzero(mask).tolist()
            assert allowed, f"a dead end: seat {seat}, hand {turn.turn.hand}, selection {turn.selection}"
            if on_move is not None:
                on_move(state, turn, allowed)
            steps = [i for i in allowed if decode(i).kind != DISCARD]
            index = rng.choice(steps if steps and rng.random() < step_bias else allowed)
            move = action_of(index, view, turn)
            finished = turn.play(move)
            moves += 1
        state.apply(finished)  # the checked door: the engine judges the whole turn
    return state, moves


def test_the_action_space_and_the_observation_sizes_are_pinned():
    assert MAX_MELDS == 35 and ACTIONS == 2 + 106 + 106 + 2 + 3 * 35 == 321
    assert {n: observation_size(n) for n in (4, 3, 2)} == {4: 4619, 3: 4526, 2: 4433}
    for n in (4, 3, 2):
        blocks = list(layout(n).values())
        assert blocks[0][0] == 0
        assert all(a + length == b for (a, length), (b, _) in zip(blocks, blocks[1:], strict=False))
        assert layout(n)["melds"][1] == MAX_MELDS * sum(length for _, length in meld_slot(n).values())


def test_every_index_decodes_to_a_move_that_encodes_back():
    kinds = [decode(i).kind for i in range(ACTIONS)]
    assert all(action_index(decode(i)) == i for i in range(ACTIONS))
    assert [kinds.count(k) for k in MoveKind] == [2, 106, 106, 1, 1, 35, 35, 35]
    with pytest.raises(ValueError, match="outside the action space 0-320"):
        decode(321)
    with pytest.raises(ValueError, match="outside the action space"):
        action_index(Move(MoveKind.ADD, 35))


def test_the_docstrings_table_is_the_codes():
    rows = re.findall(r"^(\d+)(?:-(\d+))?\s+([A-Z_]+)\s", hand_encoding.__doc__ or "", re.M)
    documented = {kind: (int(a), int(b or a)) for a, b, kind in rows}
    spans = {}
    for i in range(ACTIONS):
        kind = decode(i).kind
        first, _ = spans.get(kind, (i, i))
        spans[kind] = (first, i)
    assert documented == spans


@pytest.mark.parametrize("name", ONE_ROUND)
def test_random_walks_of_allowed_moves_finish_every_turn_and_match(name):
    for seed in range(2):
        state, moves = walk_match(ONE_ROUND[name], f"walk/{name}/{seed}")
        assert state.result is not None and state.result.winners and moves > 30


@pytest.mark.parametrize("name", ["classic", "two"])
def test_every_allowed_index_is_taken_by_the_partial_turn_and_leaves_a_finish(name):
    seen = set()

    def each_allowed(state, turn, allowed):
        for index in allowed:
            trial = turn.copy()
            move = action_of(index, state.view(state.to_act), trial)
            seen.add(move.kind)
            finished = trial.play(move)  # PartialTurn.step or .finish: IllegalAction if it refused
            if finished is not None:
                state.clone().apply(finished)
            else:
                assert can_finish(trial.turn) and legal_mask(state.view(state.to_act), trial).any()

    walk_match(ONE_ROUND[name], f"every/{name}", each_allowed)
    assert seen >= {PICK, DISCARD, MoveKind.MELD, MoveKind.ADD}


def test_an_opening_laid_meld_by_meld_offers_only_what_can_still_reach_it():
    # 7S 7H 7C (21), 9C 10C JC (29) and 8D 9D 10D (27), and five loose cards: only the three melds
    # together open 51 once the 7s are down. So no discard until all three are, and no loose card.
    melds = [parse_cards("7S 7H 7C"), parse_cards("9C 10C JC"), parse_cards("8D 9D 10D")]
    loose = parse_cards("2S 4H QS 5C KH 3D")
    turn = StepTurn(PartialTurn(0, sorted([*loose, *(c for m in melds for c in m)]), [], False, 51))
    for number, meld in enumerate(melds):
        for card in meld:
            turn.play(Move(PICK, card))
        turn.play(Move(MoveKind.MELD))
        allowed = turn.allowed()
        if number < 2:
            assert not turn.turn.opened and not any(m.kind == DISCARD for m in allowed)
            assert {m.arg for m in allowed} == {c for m in melds[number + 1 :] for c in m}
    assert turn.turn.opened and turn.turn.laid == 77
    assert {m for m in turn.allowed() if m.kind == DISCARD} == {Move(DISCARD, c) for c in loose}


def parse_cards(names: str) -> list[int]:
    return [parse_card(f"{name}#0") for name in names.split()]


def house_turns(rules: HandRules, seed: int, names: list[str]) -> list[tuple[HandState, Turn]]:
    """Each TURN decision of a match of house bots (one in five the referee's own random turn), with
    the state it was made in."""
    rng = random.Random(seed)
    state = new_match(rules, seed)
    players = [built_in.get(names[s % len(names)]).player_class("hand")(f"{seed}/{s}") for s in range(rules.players)]
    found = []
    while state.result is None:
        seat = state.to_act
        action = players[seat](state.view(seat))
        if state.kind == TURN:
            if rng.random() < 0.2:
                action = state.random_action(rng)
            found.append((state.clone(), action))
        state.apply(action)
    return found


def after(state: HandState, turn: Turn) -> tuple:
    played = state.clone()
    played.apply(turn)
    return played.hands, played.table, played.pile, played.opened, played.scores, played.result


@pytest.mark.parametrize("name", ONE_ROUND)
def test_turn_steps_rebuild_the_house_bots_turns(name):
    bots = [n for n in built_in.names() if "hand" in built_in.get(n).games]
    assert {"random", "heuristic"} <= set(bots)
    laid = 0
    for seed in (3, 4):
        for state, turn in house_turns(ONE_ROUND[name], seed, bots):
            view = state.view(state.to_act)
            indices = turn_steps(view, turn)
            built = StepTurn.of(view)
            for index in indices[:-1]:
                assert built.play(action_of(index, view, built)) is None
            rebuilt = built.play(action_of(indices[-1], view, built))
            assert rebuilt == turn or after(state, rebuilt) == after(state, turn)
            laid += len(turn.steps)
    assert laid > 10


def test_turn_steps_names_the_step_of_a_turn_the_engine_refuses():
    state = new_match(ONE_ROUND["classic"], 1)
    view = state.view(state.to_act)
    with pytest.raises(MoveError, match=r"turn is not legal: seat \d step 1 meld"):
        turn_steps(view, Turn((Meld(view.hand[:2]),), view.hand[-1]))
    with pytest.raises(MoveError, match="not legal"):
        turn_steps(view, Turn((Add(0, (view.hand[0],), None),), view.hand[-1]))


def test_an_index_not_allowed_now_raises_naming_it():
    state = new_match(ONE_ROUND["classic"], 1)
    seat = state.to_act
    view = state.view(seat)
    assert view.kind == TURN
    with pytest.raises(ValueError, match=r"action index 0 \(TAKE stock\) is not allowed: seat \d is playing its TURN"):
        action_of(0, view)
    stranger = next(c for c in range(106) if c not in view.hand)
    with pytest.raises(ValueError, match=rf"action index {2 + stranger} \(PICK .*\) is not allowed .* does not hold"):
        action_of(2 + stranger, view)
    with pytest.raises(ValueError, match=r"\(MELD\) is not allowed .* with nothing selected"):
        action_of(214, view)
    other = state.view((seat + 1) % 4)
    assert not legal_mask(other).any()
    with pytest.raises(ValueError, match=f"seat {seat} is to decide TURN, not seat {(seat + 1) % 4}"):
        action_of(108 + other.hand[0], other)


# -- the observation ------------------------------------------------------------------------


def swap_between(state: HandState, a: int, b: int | None) -> None:
    """Swap seat ``a``'s first card with seat ``b``'s last one (None: the stock's last card),
    keeping hands sorted."""
    x = state.hands[a][0]
    if b is None:
        y = state.stock[-1]
        state.stock = [*state.stock[:-1], x]
    else:
        y = state.hands[b][-1]
        state.hands[b] = sorted([*state.hands[b][:-1], x])
    state.hands[a] = sorted([*state.hands[a][1:], y])


def a_match_under_way(rules: HandRules, seed: int, decisions: int) -> HandState:
    """A match of random house bots after ``decisions`` decisions, at a TURN."""
    state = new_match(rules, seed)
    bot = built_in.get("random").player_class("hand")(seed)
    for _ in range(decisions):
        state.apply(bot(state.view(state.to_act)))
    while state.kind != TURN:
        state.apply(bot(state.view(state.to_act)))
    return state


@pytest.mark.parametrize("name", ["classic", "three", "two"])
def test_a_seats_observation_does_not_change_when_cards_it_cannot_see_move(name):
    rules = PRESETS[name]
    state = a_match_under_way(rules, 5, 60)
    actor = state.to_act
    for seat in range(rules.players):
        others: list[int | None] = [s for s in range(rules.players) if s != seat]
        for a, b in [(others[0], others[-1] if len(others) > 1 else None), (others[0], None)]:
            if a == b:
                continue
            moved = state.clone()
            swap_between(moved, a, b)
            assert moved.hands != state.hands or moved.stock != state.stock
            if seat == actor:  # its turn under way, a meld's cards picked
                turn, twin = StepTurn.of(state.view(seat)), StepTurn.of(moved.view(seat))
                first = min(turn.allowed(), key=lambda m: (m.kind != PICK, m.arg))
                turn.play(first)
                twin.play(first)
                before, after = encode(state.view(seat), turn), encode(moved.view(seat), twin)
            else:
                before, after = encode(state.view(seat)), encode(moved.view(seat))
            assert before.dtype == np.float32 and before.shape == (observation_size(rules.players),)
            assert np.array_equal(before, after)
        mine = state.clone()
        swap_between(mine, seat, others[0])
        assert not np.array_equal(encode(state.view(seat)), encode(mine.view(seat)))  # its own hand shows


def test_the_discards_a_seat_saw_taken_are_in_every_seats_observation():
    rules = PRESETS["classic"]
    state = a_match_under_way(rules, 2, 0)
    bot = built_in.get("heuristic").player_class("hand")(2)
    while not state.taken:
        state.apply(bot(state.view(state.to_act)))
    taker, card = state.taken[0]
    start, _ = layout(4)["taken"]
    for seat in range(4):
        obs = encode(state.view(seat))
        assert obs[start + (taker - seat) % 4 * FACES + card % FACES] == 0.5
        assert obs[start : start + 4 * FACES].sum() == 0.5 * len(state.taken)


@pytest.mark.parametrize("name", ["classic", "partners", "two"])
def test_the_observation_shows_the_view_and_the_turn_where_the_layout_says(name):
    rules = ONE_ROUND[name]
    n = rules.players
    at = layout(n)
    slot = meld_slot(n)
    size = sum(length for _, length in slot.values())

    def check(state, turn, allowed):
        view = state.view(state.to_act)
        obs = encode(view, turn)
        assert obs.min() >= -1.0 and obs.max() <= 1.0
        start, length = at["hand"]
        assert np.flatnonzero(obs[start : start + length]).tolist() == sorted(turn.turn.hand)
        start, length = at["selection"]
        assert np.flatnonzero(obs[start : start + length]).tolist() == sorted(turn.selection)
        start, _ = at["melds"]
        for i, meld in enumerate(turn.turn.table):
            faces = obs[start + i * size : start + i * size + FACES]
            assert np.flatnonzero(faces).tolist() == sorted(c % FACES for c in meld.cards)
            assert obs[start + i * size + slot["owner"][0] + (meld.owner - view.seat) % n] == 1.0
        assert not obs[start + len(turn.turn.table) * size : start + MAX_MELDS * size].any()
        assert obs[at["kind"][0] + 1] == 1.0 and obs[at["to_act"][0]] == 1.0
        assert obs[at["can_end"][0]] == float(any(decode(i).kind == DISCARD for i in allowed))
        assert obs[at["opened"][0]] == float(turn.turn.opened)

    walk_match(rules, f"layout/{name}", check)


# -- no dead end, every reachable state of a turn ----------------------------------------------


def explore(turn: StepTurn, budget: int) -> int:
    """Every state of ``turn`` its allowed steps reach (each once, up to ``budget``), checking each
    offers a move and each allowed step's cards can be picked one by one: the states visited."""
    seen: set = set()
    todo = [turn]
    while todo and len(seen) < budget:
        here = todo.pop()
        key = (tuple(sorted(here.turn.hand)), tuple(here.turn.table), here.turn.opened)
        if key in seen:
            continue
        seen.add(key)
        allowed = here.allowed()
        assert allowed, f"a dead end after {here.turn.steps}"
        assert any(m.kind == DISCARD for m in allowed) == (here.turn.problem() is None)
        for cards, moves in here.steps().items():
            assert Move(PICK, min(cards)) in allowed
            for move in moves:
                after = here.copy()
                for card in sorted(cards):
                    after.play(Move(PICK, card))
                after.play(move)
                todo.append(after)
    return len(seen)


def turn_starts(rules: HandRules, seed: int) -> list[StepTurn]:
    """A fresh turn at every TURN decision of a match of heuristic bots (they lay much, so the
    tables fill), the discard taken at every TAKE (so it is owed)."""
    state = new_match(rules, seed)
    bot = built_in.get("heuristic").player_class("hand")(seed)
    starts = []
    while state.result is None:
        view = state.view(state.to_act)
        if state.kind == TAKE:
            state.apply("discard")
            continue
        starts.append(StepTurn.of(view))
        state.apply(bot(view))
    return starts


@pytest.mark.parametrize("name", ["classic", "two", "two+open71"])
def test_no_state_an_allowed_step_reaches_is_a_dead_end(name):
    visited = sum(explore(turn, 500) for seed in range(4) for turn in turn_starts(ONE_ROUND[name], seed))
    assert visited > 200


@pytest.mark.slow
@pytest.mark.parametrize("name", ONE_ROUND)
def test_no_state_an_allowed_step_reaches_is_a_dead_end_in_many_matches(name):
    for seed in range(50):
        for turn in turn_starts(ONE_ROUND[name], 100 + seed):
            explore(turn, 2000)


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESETS)
def test_random_walks_finish_in_many_matches(name):
    for seed in range(60):
        for bias in (0.0, 0.6, 0.97):
            state, _ = walk_match(PRESETS[name], f"many/{name}/{seed}/{bias}", step_bias=bias)
            assert state.result is not None


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESETS)
def test_turn_steps_rebuild_the_house_bots_turns_in_many_matches(name):
    for seed in range(40):
        for state, turn in house_turns(PRESETS[name], 1000 + seed, ["random", "heuristic"]):
            view = state.view(state.to_act)
            built = StepTurn.of(view)
            for index in turn_steps(view, turn):
                rebuilt = built.play(action_of(index, view, built))
            assert rebuilt == turn or after(state, rebuilt) == after(state, turn)


def test_turn_step_states_give_each_index_with_the_turn_it_was_chosen_in():
    for state, turn in house_turns(ONE_ROUND["three"], 5, ["heuristic"]):
        view = state.view(state.to_act)
        pairs = list(turn_step_states(view, turn))
        assert [index for _, index in pairs] == turn_steps(view, turn)
        for so_far, index in pairs:
            assert legal_mask(view, so_far)[index] == 1
            assert encode(view, so_far).shape == (observation_size(3),)
        last, index = pairs[-1]
        assert last.play(decode(index)) is not None  # the discard finishes it
