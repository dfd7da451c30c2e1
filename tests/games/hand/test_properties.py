"""Hand through the conformance suite: thousands of random rounds over every player
count and partnerships, every invariant checked at every decision.

The game-agnostic checks live in ``tests/support/conformance.py``: legality, refused
actions changing nothing, information hiding for every seat at every decision,
replay through JSON, clones, determinism. Here are Hand's adapter and its
:class:`HandWitness`, which reads a match's events as they come and works out
from them and docs/rules.md alone what must hold: where each of the 106 cards is
(hands + table + pile + stock, each exactly once), the hand sizes, whose turn
it is, that every accepted turn is legal by the rules (its melds, additions,
swaps, the opening's value, the taken discard on the table, a card kept), the
seeded shuffles of the spec, how each round scores and how the match ends. It
uses nothing of the engine but its public state and views; melds are judged by
``tests/support/hand_melds_reference.py``.

A TURN has no list of legal actions (the turn is checked as a whole), but the
checker picks among listed actions, so the adapter lists, for the seat to act,
a few candidate turns built from its *view* alone: discards, its opening when it
holds one, melds, single additions and joker swaps once open, and the ways the
view offers to lay a taken discard. Each must be accepted by the engine.

Rounds are short (``rounds = 1`` mostly) since every seat's view is checked at
every decision; a second, lighter test plays many more rounds.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import cache
from typing import Any

import pytest
from hypothesis import settings

from tests.support import hand_melds_reference as ref
from tests.support.conformance import Adapter, Witness, check_match, check_matches
from tests.support.hand_setup import charge, name
from waraq.referee.games.hand.decisions import DISCARD_PILE, STOCK, TAKE, TURN, Turn
from waraq.referee.games.hand.engine import HandState, IllegalAction, iter_replay, new_match, replay
from waraq.referee.games.hand.meld_search import best_opening
from waraq.referee.games.hand.melds import Add, Meld, Swap, TableMeld, additions, check_add, check_meld, check_swap
from waraq.referee.games.hand.rules import HandRules

JOKER = 52
MAX_TURNS = 1000  # hand_spec, safety net
HAND_SIZE = 14


def face(c: int) -> int:
    return c % 53


def faces(cards) -> list[int]:
    return [c % 53 for c in cards]


def is_set(cards) -> bool:
    return _is_set(tuple(faces(cards)))


@cache
def _is_set(f: tuple[int, ...]) -> bool:
    return ref.set_reading(list(f)) is not None


def valid_in_order(cards) -> bool:
    """docs/rules.md: the cards make a meld in this order (a run ascending with the joker
    where it stands; a set in any order)."""
    return _valid_in_order(tuple(faces(cards)))


@cache
def _valid_in_order(f: tuple[int, ...]) -> bool:
    return _is_set(f) or f in set(ref.run_readings(list(f)))


@cache
def _meld3(f: tuple[int, int, int]) -> bool:
    """Three faces make a meld in some order (docs/rules.md)."""
    return any(True for _ in ref.readings(list(f)))


def worth(cards) -> int:
    f = faces(cards)
    as_set = ref.set_reading(f)
    return ref.worth(as_set if as_set is not None else tuple(f))


def joker_stands_for(meld: list[int]) -> int | None:
    """The face a run's joker stands for, read from its place next to a real card."""
    return _joker_stands_for(tuple(faces(meld)))


@cache
def _joker_stands_for(f: tuple[int, ...]) -> int | None:
    if JOKER not in f or _is_set(f):
        return None
    i = f.index(JOKER)
    j = next(k for k, x in enumerate(f) if x != JOKER)
    suit, start = f[j] // 13, ref.rank(f[j]) - j  # the rank index of place 0 (-1: an ace low)
    if ref.rank(f[j]) == 12 and j == 0:
        start = -1
    r = start + i
    return suit * 13 + (12 if r in (-1, 12) else r)


class HandWitness(Witness):
    """Hand's rules, re-derived from the events (docs/rules.md, hand_spec, docs/records.md)."""

    def __init__(self, rules: HandRules, adapter: HandAdapter) -> None:
        self.rules = rules
        self.adapter = adapter  # for the seed of the match, to check the spec's shuffles
        self.n = rules.players
        self.teams = rules.teams
        self.scores = [0] * self.teams
        self.rounds = 0
        self.round = 0
        self.deals = 0
        self.first_of_match: int | None = None
        self.over = False
        self.ended = True  # a round_end (or nothing yet) came since the last deal
        self.last_void = False  # the last round_end was a void round's
        self.voids = 0

    # -- reading the events -------------------------------------------------------

    def observe(self, event: dict[str, Any]) -> None:
        assert not self.over, f"an event after the result: {event}"
        getattr(self, "_" + event["type"])(event)

    def _deal(self, event: dict[str, Any]) -> None:
        deck = [ref.parse(c) for c in event["deck"]]
        assert sorted(deck) == list(range(106)), "a deal is not a shuffle of the 106 cards"
        seed = self.adapter.seed
        if seed is not None:
            # hand_spec, Deal: each deck and the first player from their own keys.
            shuffled = list(range(106))
            random.Random(f"waraq/{seed}/deck/{self.deals}").shuffle(shuffled)
            assert deck == shuffled, f"deck {self.deals} is not the seeded shuffle"
        assert self.ended, "a deal before the round ended"
        if self.last_void:
            assert event["round"] == self.round, "a void round is dealt again with its number"
        else:
            assert event["round"] == self.round + 1
            self.round += 1
            self.rounds += 1
        if self.first_of_match is None:
            self.first_of_match = event["first"]
            if seed is not None:
                assert event["first"] == random.Random(f"waraq/{seed}/first").randrange(self.n)
        assert event["first"] == (self.first_of_match + self.round - 1) % self.n, "the first player moves on"
        self.first = event["first"]
        self.deck_index = self.deals
        self.deals += 1
        self.restocks = 0
        self.ended = False
        n = self.n
        # One card at a time in play order from the first player, 14 each, one more
        # to the first player; the stock is the rest, its top first.
        self.hands = [[] for _ in range(n)]
        for i in range(HAND_SIZE * n):
            self.hands[(self.first + i) % n].append(deck[i])
        self.hands[self.first].append(deck[HAND_SIZE * n])
        self.stock = deck[HAND_SIZE * n + 1 :]
        self.pile: list[int] = []
        self.table: list[tuple[int, list[int]]] = []  # (owner, cards in the spec's order)
        self.opened = [False] * n
        self.taken: list[tuple[int, int]] = []
        self.to_act = self.first
        self.turns = 0  # TURN decisions this round
        self.need_draw = False  # the seat to act has yet to draw (TAKE or the referee)
        self.drawn: int | None = None
        self.took: int | None = None
        self.out: tuple[int, bool] | None = None  # (seat, hand finish) once someone went out
        self.known = [set(h) for h in self.hands]  # card ids each seat may know
        self.public: set[int] = set()

    def _restock(self, event: dict[str, Any]) -> None:
        assert event["round"] == self.round
        assert not self.stock and self.need_draw, "a restock while the stock still has cards"
        new = [ref.parse(c) for c in event["stock"]]
        under = self.pile[:-1]
        assert len(under) >= 1
        assert sorted(new) == sorted(under), "the new stock is not the pile under its top"
        seed = self.adapter.seed
        if seed is not None:
            expected = list(under)
            random.Random(f"waraq/{seed}/restock/{self.deck_index}/{self.restocks}").shuffle(expected)
            assert new == expected, "the restock is not the seeded shuffle of the pile"
        self.restocks += 1
        self.stock = new
        self.pile = self.pile[-1:]

    def _decision(self, event: dict[str, Any]) -> None:
        assert event["round"] == self.round and not self.ended
        kind, seat, action = event["kind"], event["seat"], event["action"]
        assert seat == self.to_act, f"{event} is not the seat to act ({self.to_act})"
        if kind == "TAKE":
            assert self.need_draw and self.pile, "TAKE asked with nothing to take"
            self.need_draw = False
            if action == "discard":
                card = self.pile.pop()
                self.took = card
                self.taken.append((seat, card))
                self._give(seat, card)
            else:
                assert action == "stock"
                self._draw(seat)
            return
        assert kind == "TURN" and not self.need_draw, "a TURN before the draw"
        self._turn(seat, action)

    def _draw(self, seat: int) -> None:
        card = self.stock.pop(0)
        self.drawn = card
        self._give(seat, card)

    def _give(self, seat: int, card: int) -> None:
        self.hands[seat].append(card)
        self.known[seat].add(card)

    def _turn(self, seat: int, action: dict[str, Any]) -> None:
        """Play a recorded turn on the model, checking it by docs/rules.md as it goes."""
        hand, table = self.hands[seat], self.table
        was_open = opened = self.opened[seat]
        laid, laid_cards, touched = 0, set(), False
        where = f"round {self.round} seat {seat} turn {action}"
        for step in action["steps"]:
            if "meld" in step:
                cards = [ref.parse(c) for c in step["meld"]]
                self._take_out(hand, cards, where)
                assert valid_in_order(cards), f"{where}: {step} is no meld"
                if is_set(cards):  # stored by suit, the joker last
                    cards = sorted(cards, key=lambda c: (face(c) == JOKER, face(c)))
                table.append((seat, cards))
                laid_cards.update(cards)
                if not opened:
                    laid += worth(cards)
                    opened = laid >= self.rules.opening_points
                continue
            assert opened, f"{where}: an addition or swap before opening"
            index = step.get("add", step.get("swap"))
            owner, meld = table[index]
            touched = touched or owner != seat
            if "add" in step:
                cards = [ref.parse(c) for c in step["cards"]]
                self._take_out(hand, cards, where)
                if is_set(meld):
                    assert "at" not in step
                    grown = sorted(meld + cards, key=lambda c: (face(c) == JOKER, face(c)))
                    assert is_set(grown), f"{where}: {step} does not make a set"
                else:
                    grown = cards + meld if step["at"] == "low" else meld + cards
                    assert step["at"] in ("low", "high") and valid_in_order(grown), f"{where}: {step}"
                table[index] = (owner, grown)
            else:
                card = ref.parse(step["card"])
                self._take_out(hand, [card], where)
                joker = next(c for c in meld if face(c) == JOKER)
                if is_set(meld):
                    # Only 3 real cards + the joker, and the card in the fourth suit.
                    grown = sorted([c for c in meld if c != joker] + [card], key=face)
                    assert len(meld) == 4 and is_set(grown), f"{where}: {step} is no set swap"
                else:
                    assert face(card) == joker_stands_for(meld), f"{where}: {step}"
                    grown = [card if c == joker else c for c in meld]
                table[index] = (owner, grown)
                hand.append(joker)
        if not was_open and laid_cards:
            assert laid >= self.rules.opening_points, f"{where}: an opening worth {laid}"
        on_table = {c for _, m in table for c in m}
        if self.took is not None:
            assert self.took in on_table, f"{where}: the taken discard is not on the table"
            if not was_open:
                assert self.took in laid_cards, f"{where}: the taken discard is not in the opening"
        discard = ref.parse(action["discard"])
        assert discard in hand, f"{where}: discards a card it does not hold"
        hand.remove(discard)
        self.pile.append(discard)
        self.public.update(on_table)
        self.public.add(discard)
        self.opened[seat] = opened
        self.turns += 1
        self.drawn = self.took = None
        if not hand:
            self.out = (seat, not was_open and not touched)
        else:
            self.to_act = (seat + 1) % self.n
            self.need_draw = True

    @staticmethod
    def _take_out(hand: list[int], cards: list[int], where: str) -> None:
        assert len(set(cards)) == len(cards), f"{where}: a card twice"
        for c in cards:
            assert c in hand, f"{where}: lays {name(c)}, which it does not hold"
            hand.remove(c)

    def _round_end(self, event: dict[str, Any]) -> None:
        assert event["round"] == self.round and not self.ended
        self.ended = True
        if event.get("void"):
            # Only when the stock is empty and the pile has nothing under its top.
            assert self.need_draw and not self.stock and len(self.pile) <= 1
            assert event == {
                "type": "round_end",
                "round": self.round,
                "void": True,
                "out": None,
                "hand": False,
                "charges": [0] * self.n,
                "points": [0] * self.teams,
                "score": self.scores,
            }
            self.last_void = True
            self.voids += 1
            return
        self.last_void = False
        self.voids = 0
        assert self.out is not None, "a round ended with nobody out"
        out, hand_finish = self.out
        times = 2 if hand_finish else 1
        partner = (out + 2) % 4 if self.rules.partnership else None
        charges = []
        for seat in range(self.n):
            if seat == out:
                charges.append(-30 * times)
            elif seat == partner:
                charges.append(0)
            elif self.opened[seat]:
                charges.append(sum(charge(c) for c in self.hands[seat]) * times)
            else:
                charges.append(100 * times)
        points = [0] * self.teams
        for seat, c in enumerate(charges):
            points[seat % self.teams] += c
        self.scores = [s + p for s, p in zip(self.scores, points, strict=True)]
        assert (event["out"], event["hand"]) == (out, hand_finish), "round_end out / hand"
        assert event["charges"] == charges, "round_end charges"
        assert event["points"] == points, "round_end points"
        assert event["score"] == self.scores, "round_end score"

    def _result(self, event: dict[str, Any]) -> None:
        self.over = True
        assert event["score"] == self.scores
        if event["reason"] == "aborted":
            assert event["winners"] == []
            assert self.turns >= MAX_TURNS or self.voids >= 20, "aborted too early"
            return
        assert event["reason"] == "score" and self.ended and self.rounds == self.rules.rounds
        low = min(self.scores)
        assert event["winners"] == [s for s in range(self.n) if self.scores[s % self.teams] == low]

    # -- checks at each decision ----------------------------------------------------

    def sync(self, state: HandState) -> None:
        """The referee's own draw: a TURN due with no TAKE asked drew the stock's top,
        which it may do only when the top discard has no use."""
        if not self.over and not self.ended and self.need_draw and state.kind == TURN:
            seat = self.to_act
            if self.opened[seat] and self.pile:
                assert not self.sure_use(seat, self.pile[-1]), (
                    f"seat {seat} could use {name(self.pile[-1])} but was not offered it"
                )
            self.need_draw = False
            self._draw(seat)

    def check_decision(self, state: HandState, legal: tuple[Any, ...], views: list[Any]) -> None:
        self.sync(state)
        seat = self.to_act
        assert state.to_act == seat and state.kind == (TAKE if self.need_draw else TURN)
        if state.kind == TAKE:
            assert set(legal) == {STOCK, DISCARD_PILE}
            assert self.could_use(seat, self.pile[-1]), "TAKE offered for a card with no meld to go in"
        # Where every card is: each hand, the table, the pile and the stock.
        for s in range(self.n):
            assert sorted(state.hands[s]) == sorted(self.hands[s]), f"seat {s}'s hand"
        assert [(m.owner, list(m.cards)) for m in state.table] == self.table, "the table"
        for m, (_, cards) in zip(state.table, self.table, strict=True):
            assert m.kind == ("set" if is_set(cards) else "run")
            assert m.joker_as == joker_stands_for(cards)
        assert state.pile == self.pile and list(state.stock) == self.stock
        everything = [c for h in self.hands for c in h] + [c for _, m in self.table for c in m]
        assert sorted(everything + self.pile + self.stock) == list(range(106)), "cards are not conserved"
        # Every turn but the first draws one card and discards one, so hands and table
        # hold 14 n cards between turns (14 n + 1 during a TURN), the pile and the stock
        # the rest: when the stock runs out, the pile holds 50 cards or more, and the
        # void round of docs/rules.md cannot happen.
        during = 1 if state.kind == TURN else 0
        assert len(self.pile) + len(self.stock) == 106 - HAND_SIZE * self.n - during
        sizes = tuple(len(h) for h in self.hands)
        for view in views:
            assert (view.kind, view.to_act) == (state.kind, seat)
            assert (view.round, view.first) == (self.round, self.first)
            assert view.hand_sizes == sizes and list(view.hand) == sorted(self.hands[view.seat])
            assert list(view.opened) == self.opened and list(view.pile) == self.pile
            assert view.stock_size == len(self.stock) and list(view.scores) == self.scores
            assert list(view.taken) == self.taken
            mine = view.seat == seat and state.kind == TURN
            assert view.drawn == (self.drawn if mine else None)
            assert view.took == (self.took if mine else None)
            assert bool(view.uses) == (mine and self.took is not None)

    def could_use(self, seat: int, card: int) -> bool:
        """A necessary condition for a use of ``card``: two hand cards that make a meld
        with it (any meld with it holds such three), a table joker counted as one (it
        may be won back first), or, opened, a meld on the table."""
        jokers = [c for _, meld in self.table for c in meld if face(c) == JOKER][:1]
        return self._meld_with(self.hands[seat] + jokers, card) or (self.opened[seat] and bool(self.table))

    @staticmethod
    def _meld_with(hand: list[int], card: int) -> bool:
        """Two cards of ``hand`` make a meld with ``card``."""
        f = face(card)
        for a in range(len(hand)):
            for b in range(a + 1, len(hand)):
                if _meld3(tuple(sorted((face(hand[a]), face(hand[b]), f)))):
                    return True
        return False

    def sure_use(self, seat: int, card: int) -> bool:
        """A use of ``card`` by an opened seat found simply: a meld with two hand cards
        that leaves a card, or one card added to a table meld, or a joker swap."""
        hand = self.hands[seat]
        if len(hand) >= 3 and self._meld_with(hand, card):
            return True
        for _, meld in self.table:
            if is_set(meld):
                real = [c for c in meld if face(c) != JOKER]
                if is_set(meld + [card]):  # a suit the set lacks, or the joker
                    return True
                if len(meld) == 4 and len(real) == 3 and is_set(real + [card]):  # the joker's suit
                    return True
            elif valid_in_order(meld + [card]) or valid_in_order([card] + meld):
                return True
            elif joker_stands_for(meld) == face(card):
                return True
        return False

    def may_know(self, seat: int, state: HandState) -> set[str]:
        """docs/rules.md: a seat knows the cards it was dealt, drew or took this round, and
        every card laid or discarded (face up) this round."""
        self.sync(state)
        return {name(c) for c in self.known[seat] | self.public}

    def finish(self, state: HandState) -> None:
        assert self.over and state.kind is None and state.to_act is None
        assert state.legal_actions() == ()
        assert list(state.result.score) == self.scores


# -- candidate turns, from a view alone ---------------------------------------------------


class Plan:
    """A turn built step by step on copies of what a view shows."""

    def __init__(self, view: Any) -> None:
        self.seat = view.seat
        self.hand = list(view.hand)
        self.table = list(view.melds)
        self.opened = view.opened[view.seat]
        self.points = view.rules.opening_points
        self.steps: list[Any] = []

    def step(self, step: Any) -> None:
        if type(step) is Meld:
            kind, ordered, joker_as = check_meld(step.cards)
            for c in step.cards:
                self.hand.remove(c)
            self.table.append(TableMeld(self.seat, kind, tuple(ordered), joker_as))
        elif type(step) is Add:
            self.table[step.meld] = check_add(self.table[step.meld], step.cards, step.at)
            for c in step.cards:
                self.hand.remove(c)
        else:
            target = self.table[step.meld]
            self.table[step.meld] = check_swap(target, step.card)
            self.hand.remove(step.card)
            self.hand.append(target.joker)
        self.steps.append(step)

    def swaps(self) -> None:
        for index, meld in enumerate(self.table):
            if meld.joker is None:
                continue
            for c in list(self.hand):
                try:
                    check_swap(meld, c)
                except ValueError:
                    continue
                self.step(Swap(index, c))
                break

    def lay(self) -> None:
        value, melds = best_opening(self.hand, keep=1)
        if melds and (self.opened or value >= self.points):
            for m in melds:
                self.step(Meld(tuple(m)))
            self.opened = True

    def adds(self) -> None:
        for c in sorted(self.hand):
            if len(self.hand) < 2:
                return
            fits = [(i, at) for i, m in enumerate(self.table) for f, at in additions(m) if f == face(c)]
            if fits:
                self.step(Add(fits[0][0], (c,), fits[0][1]))

    def turns(self, discards: int = 3) -> list[Turn]:
        """This plan ended by each of up to ``discards`` cards (the highest first)."""
        return [Turn(tuple(self.steps), c) for c in sorted(self.hand, reverse=True)[:discards]]


def candidate_turns(view: Any) -> tuple[Turn, ...]:
    """Legal turns for the view's seat, built from the view alone."""
    found: list[Turn] = []
    if view.took is not None:
        for use in view.uses:
            plan = Plan(view)
            for step in use:
                plan.step(step)
            plan.opened = True  # a use by a seat not open is a whole opening
            found += plan.turns(2)
            plan.adds()
            found += plan.turns(1)
        return tuple(dict.fromkeys(found))
    found += [Turn((), c) for c in view.hand]
    plan = Plan(view)
    if plan.opened:
        plan.swaps()
    plan.lay()
    if plan.opened:
        plan.adds()
    if plan.steps:
        found += plan.turns()
    return tuple(dict.fromkeys(found))


def hand_player(legal: tuple[Any, ...], view: Any, rng: random.Random) -> Any:
    """Random, but it takes the discard and lays what it can most of the time, so
    rounds end (in some 40 decisions)."""
    if view.kind == TAKE:
        return DISCARD_PILE if rng.random() < 0.8 else STOCK
    laying = [t for t in legal if t.steps]
    if laying and rng.random() < 0.9:
        return rng.choice(laying)
    return rng.choice(legal)


def patient_player(legal: tuple[Any, ...], view: Any, rng: random.Random) -> Any:
    """Lays only now and then, so rounds run long enough to rebuild the stock."""
    if view.kind == TAKE:
        return STOCK
    laying = [t for t in legal if t.steps]
    if laying and rng.random() < 0.03:
        return rng.choice(laying)
    return rng.choice([t for t in legal if not t.steps])


def passing_player(legal: tuple[Any, ...], view: Any, rng: random.Random) -> Any:
    """Never lays: the round reaches the safety net of 1000 turns."""
    if view.kind == TAKE:
        return STOCK
    return rng.choice([t for t in legal if not t.steps])


class HandAdapter(Adapter):
    name = "hand"
    illegal_error = IllegalAction
    card_name_pattern = r"(?:10|[2-9JQKA])[SHDC]#[01]|JK#[01]"

    def __init__(self) -> None:
        self.seed: Any = None
        self._candidates: dict[Any, tuple[Turn, ...]] = {}
        self.witnesses: list[HandWitness] = []  # of the matches checked, for the tests' counts

    def start(self, rules: HandRules, seed: int) -> HandState:
        self.seed = seed
        return new_match(rules, seed)

    def max_decisions(self, rules: HandRules) -> int:
        # Per round at most 1000 TURNs and a TAKE before each; void deals cannot happen.
        return rules.rounds * 2 * MAX_TURNS + 1

    def witness(self, rules: HandRules) -> HandWitness:
        witness = HandWitness(rules, self)
        self.witnesses.append(witness)
        return witness

    def legal(self, state: HandState) -> tuple[Any, ...]:
        if state.kind is None:
            return ()
        return self.view_legal(state.view(state.to_act))

    def view_legal(self, view: Any) -> tuple[Any, ...]:
        if view.kind != TURN or view.seat != view.to_act:
            return tuple(view.legal)
        key = (view.seat, view.round, view.hand, view.melds, view.opened, view.took, view.uses)
        found = self._candidates.get(key)
        if found is None:
            if len(self._candidates) > 2000:
                self._candidates.clear()
            found = self._candidates[key] = candidate_turns(view)
        return found

    def illegal_action(self, state: HandState, rng: random.Random) -> Any | None:
        if state.kind == TAKE:
            return rng.choice(["draw", "Stock", None, True, Turn((), 0)])
        seat = state.to_act
        hand = state.hands[seat]
        others = [c for c in range(106) if c not in hand]
        wrong = [
            Turn((), rng.choice(others)),  # a discard it does not hold
            Turn((Meld(tuple(hand[:2])),), hand[-1]),  # a meld of two cards
            Turn((Meld(tuple(hand)),), hand[0]),  # everything laid: nothing kept
            Turn((Meld((hand[0], hand[0], hand[0])),), hand[-1]),  # one card three times
            name(hand[0]),  # a name is not a turn
        ]
        if state.took is not None:
            wrong.append(Turn((), state.took))  # the taken discard thrown back
        return rng.choice(wrong)

    def cards_in_view(self, view: Any) -> set[str]:
        return {name(c) for c in view.cards_seen()}

    def replay(self, rules: HandRules, events: list[dict[str, Any]]) -> HandState:
        return replay(rules, events)

    def iter_replay(self, rules: HandRules, events: list[dict[str, Any]]):
        return iter_replay(rules, events)


HAND = HandAdapter()


def scaled(count: int) -> int:
    """``count`` under the default "ci" profile (100 examples), more under "thorough"."""
    return max(1, count * settings.default.max_examples // 100)


# Each variant gets its own seeds: the 4-player rules differ only in scoring, and the
# same seeds would play the same rounds.
VARIANTS = {
    "2p": (HandRules(players=2, rounds=1), 0),
    "3p": (HandRules(players=3, rounds=1), 10_000),
    "4p": (HandRules(players=4, rounds=1), 20_000),
    "partners": (HandRules(players=4, partnership=True, rounds=1), 30_000),
}


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_rounds_keep_every_invariant(variant):
    # About 30 ms a round with every check at every decision: 100 rounds a variant.
    rules, base = VARIANTS[variant]
    cases = [(rules, base + i, base + 7 * i + 1) for i in range(scaled(100))]
    report = check_matches(HAND, cases, hand_player)
    assert report.rounds == len(cases)
    assert report.kinds_viewed[TAKE] > 0 and report.kinds_viewed[TURN] > 0
    assert report.illegal_tried >= report.decisions // 2 and report.clones_checked > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_matches_of_several_rounds(variant):
    # The first player moves on, scores add up, the lowest total wins (ties too).
    rules, base = VARIANTS[variant]
    rules = HandRules(**{**rules.to_dict(), "rounds": 3})
    cases = [(rules, base + 5000 + i, i) for i in range(scaled(8))]
    report = check_matches(HAND, cases, hand_player)
    assert report.rounds == 3 * len(cases)


@pytest.mark.slow
def test_long_rounds_rebuild_the_stock():
    HAND.witnesses.clear()
    cases = [(HandRules(players=p, rounds=1), 40_000 + p * 10 + i, i) for p in (2, 3, 4) for i in range(scaled(2))]
    check_matches(HAND, cases, patient_player)
    restocks = [w.restocks for w in HAND.witnesses]
    assert sum(1 for r in restocks if r) >= len(cases) // 2, "too few rounds ran long enough to rebuild the stock"


@pytest.mark.slow
def test_a_round_of_1000_turns_is_aborted_and_still_checked():
    HAND.witnesses.clear()
    report = check_match(HAND, HandRules(players=2, rounds=2), 50_000, 1, passing_player)
    assert report.decisions >= 1000 and report.rounds == 1
    assert HAND.witnesses[0].over and HAND.witnesses[0].turns == 1000


def play_witnessed(rules: HandRules, seed: int, player_seed: int) -> HandState:
    """A match checked by the witness at every decision (for the acting seat's view
    only), then replayed from its JSON record: the cheaper check, for many rounds."""
    witness = HAND.witness(rules)
    state = HAND.start(rules, seed)
    rng = random.Random(player_seed)
    fed = 0
    while True:
        for event in state.events[fed:]:
            witness.observe(event)
        fed = len(state.events)
        if state.is_over:
            break
        view = state.view(state.to_act)
        legal = HAND.legal(state)
        witness.check_decision(state, legal, [view])
        state.apply(hand_player(legal, view, rng))
    witness.finish(state)
    record = json.loads(json.dumps(state.events))
    assert replay(rules, record).events == state.events
    return state


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_many_more_rounds_keep_the_rules(variant):
    # 400 rounds a variant, 1600 in all, at some 8 ms a round.
    HAND.witnesses.clear()
    rules, base = VARIANTS[variant]
    rules = HandRules(**{**rules.to_dict(), "rounds": 5})
    ends = Counter()
    for i in range(scaled(80)):
        state = play_witnessed(rules, base + 60_000 + i, i)
        ends.update("hand" if e["hand"] else "out" for e in state.events if e["type"] == "round_end")
        ends[state.result.reason] += 1
    assert ends["score"] == scaled(80) and ends["out"] > 0
    HAND.witnesses.clear()


# -- the checker itself can fail ------------------------------------------------------
# A conformance suite that never fails proves nothing: these feed it engines broken
# on purpose and expect it to object.


class LeakyHand(HandAdapter):
    """Each view's JSON also carries the next seat's hand."""

    def start(self, rules: HandRules, seed: int) -> HandState:
        self.state = super().start(rules, seed)
        return self.state

    def view_json(self, view: Any) -> Any:
        document = view.to_json()
        document["hand_sizes"] = [name(c) for c in self.state.hands[(view.seat + 1) % view.rules.players]]
        return document


class CarelessHand(HandAdapter):
    """Lets any action through, legal or not."""

    def apply(self, state: HandState, action: Any) -> None:
        try:
            state.apply(action)
        except IllegalAction:
            pass


class MisScoringHand(HandAdapter):
    """Charges the seat that went out -29, not -30 (or -59 on a hand)."""

    def events(self, state: HandState) -> list[dict[str, Any]]:
        return [
            {**e, "charges": [c + (s == e["out"]) for s, c in enumerate(e["charges"])]}
            if e["type"] == "round_end"
            else e
            for e in state.events
        ]


class SkippingHand(HandAdapter):
    """Reports a deal that gives the first player's 15th card to the stock and the
    stock's top to the first player (and keeps the seed from the witness, whose
    shuffle check would see it first)."""

    def start(self, rules: HandRules, seed: int) -> HandState:
        state = super().start(rules, seed)
        self.seed = None
        return state

    def events(self, state: HandState) -> list[dict[str, Any]]:
        out = []
        for e in state.events:
            if e["type"] == "deal":
                deck = list(e["deck"])
                n = state.players
                deck[14 * n], deck[14 * n + 1] = deck[14 * n + 1], deck[14 * n]
                e = {**e, "deck": deck}
            out.append(e)
        return out


@pytest.mark.parametrize(
    "adapter, complaint",
    [
        (LeakyHand(), "may not know"),
        (CarelessHand(), "apply took the illegal action"),
        (MisScoringHand(), "round_end charges"),
        (SkippingHand(), "seat 0"),  # shown a card it was not dealt
    ],
)
def test_the_checker_catches_a_broken_engine(adapter, complaint):
    with pytest.raises(AssertionError, match=complaint):
        check_match(adapter, HandRules(players=3, rounds=1), seed=5, player_seed=6, player=hand_player)
