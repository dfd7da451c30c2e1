"""Hokm's action space and observation (referee/env/hokm_encoding.py): every legal action of
random matches of every preset round-trips, the mask is exactly the legal actions, and a seat's
observation is a function of its own view."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from tests.support import ROOT
from waraq.referee.env.hokm_encoding import (
    ACTIONS,
    action_index,
    action_of,
    encode,
    layout,
    legal_mask,
    observation_size,
)
from waraq.referee.games.cards import parse_card
from waraq.referee.games.hokm.engine import KINDS, HokmState, HokmView, new_match
from waraq.referee.games.hokm.rules import HokmRules, load_rules

# The presets, and variants that ask REDEAL and BAM (no preset does).
RULES = {
    "classic": load_rules("classic"),
    "three": load_rules("three"),
    "two": load_rules("two"),
    "classic+redeal+bam": HokmRules(max_redeals=3, bam=True),
    "two+redeal+bam+burn": load_rules({"preset": "two", "max_redeals": 3, "bam": True, "burn_visible": True}),
}


def views_of_random_matches(rules: HokmRules, matches: int, seed: int) -> list[HokmView]:
    """The acting seat's view at every decision of ``matches`` random matches."""
    rng = random.Random(seed)
    views = []
    for m in range(matches):
        state = new_match(rules, f"env/{seed}/{m}")
        while state.result is None:
            assert state.to_act is not None
            views.append(state.view(state.to_act))
            state.apply(rng.choice(state.legal_actions()))
    return views


def test_the_action_space_and_the_observation_sizes_are_pinned():
    assert ACTIONS == 52 + 4 + 1326 + 2 + 2 + 2 == 1388
    assert {n: observation_size(n) for n in (4, 3, 2)} == {4: 501, 3: 445, 2: 491}
    for n in (4, 3, 2):
        blocks = list(layout(n).values())
        assert blocks[0][0] == 0
        assert all(a + length == b for (a, length), (b, _) in zip(blocks, blocks[1:], strict=False))


@pytest.mark.parametrize("name", RULES)
def test_every_legal_action_round_trips_and_the_mask_is_exactly_the_legal_actions(name):
    kinds = set()
    for view in views_of_random_matches(RULES[name], matches=1, seed=7):
        kinds.add(view.kind)
        mask = legal_mask(view)
        assert mask.dtype == np.int8 and mask.shape == (ACTIONS,)
        indices = [action_index(view.kind, a) for a in view.legal]
        assert sorted(indices) == np.flatnonzero(mask).tolist()  # distinct, and nothing else
        for index, action in zip(indices, view.legal, strict=True):
            back = action_of(index, view)
            assert back == action and type(back) is type(action)
    expected = {"PLAY", "TRUMP"} | ({"DISCARD", "DRAW"} if RULES[name].players == 2 else set())
    assert expected <= kinds


def test_the_variants_ask_every_kind_of_decision():
    kinds = set()
    for name in ("classic+redeal+bam", "two+redeal+bam+burn"):
        kinds |= {v.kind for v in views_of_random_matches(RULES[name], matches=6, seed=3)}
    assert kinds == set(KINDS)


def test_an_index_not_legal_now_raises_naming_it():
    state = new_match(RULES["classic"], 1)
    seat = state.to_act
    view = state.view(seat)
    assert view.kind == "TRUMP"
    with pytest.raises(ValueError, match=r"action index 12 \(PLAY AS\) is not legal: seat \d is to decide TRUMP"):
        action_of(12, view)
    with pytest.raises(ValueError, match="outside the action space 0-1387"):
        action_of(1388, view)
    other = state.view((seat + 1) % 4)
    assert not legal_mask(other).any()
    with pytest.raises(ValueError, match=f"seat {seat} is to decide TRUMP, not seat {(seat + 1) % 4}"):
        action_of(52, other)
    state.apply(0)
    view = state.view(state.to_act)
    held = set(view.hand)
    stranger = next(c for c in range(52) if c not in held)
    with pytest.raises(ValueError, match=rf"action index {stranger} \(PLAY .*\) is not legal for seat"):
        action_of(stranger, view)


def swap_between(state: HokmState, a: int, b: int | None) -> None:
    """Swap one card of seat ``a``'s hand with one of seat ``b``'s, keeping both sorted; ``b`` None:
    with the deck's last card, which 2-player Hokm never deals."""
    x = state.hands[a][0]
    if b is None:
        state.deck = [*state.deck]
        y, state.deck[-1] = state.deck[-1], x
    else:
        y = state.hands[b][-1]
        state.hands[b] = sorted([*state.hands[b][:-1], x])
    state.hands[a] = sorted([*state.hands[a][1:], y])
    state._legal = None  # the legal actions of a seat whose hand changed


@pytest.mark.parametrize("name", ["classic", "three", "two"])
def test_a_seats_observation_does_not_change_when_cards_it_cannot_see_move(name):
    # Two OTHER seats swap a card; with 2 players, the opponent and the unused last card of the deck.
    rules = RULES[name]
    rng = random.Random(5)
    state = new_match(rules, "swap")
    for _ in range(40):  # into the first round's play: trump named, draws done, cards played
        state.apply(rng.choice(state.legal_actions()))
    assert state.kind == "PLAY"
    for seat in range(rules.players):
        if seat == state.to_act:
            continue  # its legal actions are its own, but the swap may change another seat's
        others: list[int | None] = [s for s in range(rules.players) if s != seat]
        if rules.players == 2:
            others.append(None)
        swapped = state.clone()
        swap_between(swapped, others[0], others[1])
        assert swapped.hands != state.hands
        before, after = encode(state.view(seat)), encode(swapped.view(seat))
        assert before.dtype == np.float32 and before.shape == (observation_size(rules.players),)
        assert np.array_equal(before, after)
        mine = state.clone()
        swap_between(mine, seat, others[0])
        assert not np.array_equal(before, encode(mine.view(seat)))  # its own hand shows


@pytest.mark.parametrize("name", ["classic", "three", "two"])
def test_the_observation_shows_the_view_where_the_layout_says(name):
    rules = RULES[name]
    n = rules.players
    at = layout(n)
    for view in views_of_random_matches(rules, matches=1, seed=11)[::7]:
        obs = encode(view)
        assert obs.min() >= 0.0 and obs.max() <= 1.0
        start, length = at["hand"]
        assert np.flatnonzero(obs[start : start + length]).tolist() == sorted(view.hand)
        start, _ = at["kind"]
        assert obs[start + KINDS.index(view.kind)] == 1.0
        start, _ = at["to_act"]
        assert obs[start + (view.to_act - view.seat) % n] == 1.0
        start, _ = at["trick"]
        for seat, card in view.trick:
            assert obs[start + (seat - view.seat) % n * 52 + card] == 1.0
        start, length = at["played"]
        seen = {c for t in view.tricks for c in t.cards}
        assert {int(i) % 52 for i in np.flatnonzero(obs[start : start + length])} == seen
        if n != 4:
            start, length = at["removed"]
            removed = [parse_card(c) for c in rules.removed_cards]
            assert np.flatnonzero(obs[start : start + length]).tolist() == removed


def test_the_layout_table_of_docs_research_md_is_the_codes():
    text = (ROOT / "docs" / "research.md").read_text()
    rows = re.findall(r"^\| `(\w+)`\s*\|[^|]*\|\s*([\d—]+)\s*\|\s*([\d—]+)\s*\|\s*([\d—]+)\s*\|", text, re.M)
    documented = {n: {name: int(cells[i]) for name, *cells in rows if cells[i] != "—"} for i, n in enumerate((4, 3, 2))}
    assert documented == {n: {name: offset for name, (offset, _) in layout(n).items()} for n in (4, 3, 2)}
