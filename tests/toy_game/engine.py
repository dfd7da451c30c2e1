"""A toy game for proving the registry's seam: two seats, highest card wins.

Each seat is dealt ``rules.cards`` cards. Each round both seats show one card,
the round's first shower alternating; the higher rank scores a point (a tie
scores none). When the hands are empty the seat with more points wins; equal
points, both win. A seat sees its own hand and every card shown.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Self

from tests.toy_game.rules import ToyRules
from waraq.referee.games import replaying
from waraq.referee.games.cards import CARD_NAMES, card_name, parse_card, rank_of
from waraq.referee.games.contract import ReplayError
from waraq.referee.games.dealers import FixedDealer, MissingDeal, SeededDealer
from waraq.referee.games.results import Result, ResultReason
from waraq.referee.games.state import Event, LoggedState, decision_event

GAME = "toy"
SHOW = "SHOW"
KINDS = (SHOW,)
ENGINE_EVENTS = ("deal", "decision", "result")
DECK = tuple(range(52))

__all__ = ["ReplayError"]


class IllegalAction(ValueError):
    pass


class ActionError(ValueError):
    pass


@dataclass(frozen=True)
class ToyView:
    seat: int
    round: int
    kind: str | None
    to_act: int | None
    legal: tuple[int, ...]
    scores: tuple[int, ...]
    result: Result | None
    hand: tuple[int, ...]
    shown: tuple[tuple[int, int], ...]  # every card shown so far: (seat, card)

    def cards_seen(self) -> set[int]:
        return set(self.hand) | {card for _, card in self.shown}

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "round": self.round,
            "kind": self.kind,
            "to_act": self.to_act,
            "hand": [CARD_NAMES[c] for c in self.hand],
            "scores": list(self.scores),
            "shown": [[seat, CARD_NAMES[card]] for seat, card in self.shown],
        }


class ToyState(LoggedState):
    __slots__ = ("rules", "hands", "shown", "scores", "round", "kind", "to_act", "result", "players", "teams")

    def __init__(self, rules: ToyRules, dealer: Any) -> None:
        self._log, self._spelled = [], []
        self.rules, self.players, self.teams = rules, 2, 2
        deck = dealer.deck(0, DECK)
        self.hands = [sorted(deck[: rules.cards]), sorted(deck[rules.cards : 2 * rules.cards])]
        self._log.append({"type": "deal", "deck": [card_name(c) for c in deck]})
        self.shown: list[tuple[int, int]] = []
        self.scores = [0, 0]
        self.round, self.kind, self.to_act, self.result = 1, SHOW, 0, None

    @staticmethod
    def _spell(compact: tuple[Any, ...]) -> Event:
        return decision_event(compact, action_to_json)

    def legal_actions(self) -> tuple[int, ...]:
        return () if self.to_act is None else tuple(self.hands[self.to_act])

    def apply(self, action: Any) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"{action!r} is not a card of seat {self.to_act}'s hand")
        self.push(action)

    def push(self, action: Any) -> None:
        seat = self.to_act
        assert seat is not None
        self._log.append((self.round, seat, SHOW, action))
        self.hands[seat].remove(action)
        self.shown.append((seat, action))
        if len(self.shown) % 2:
            self.to_act = 1 - seat
            return
        (first, a), (_, b) = self.shown[-2:]
        if rank_of(a) != rank_of(b):
            self.scores[first if rank_of(a) > rank_of(b) else 1 - first] += 1
        if self.hands[0]:
            self.round += 1
            self.to_act = (self.round - 1) % 2
            return
        best = max(self.scores)
        self.result = Result(tuple(s for s in (0, 1) if self.scores[s] == best), ResultReason.SCORE, tuple(self.scores))
        self.kind = self.to_act = None
        self._log.append(
            {
                "type": "result",
                "score": self.scores[:],
                "winners": list(self.result.winners),
                "reason": ResultReason.SCORE,
            }
        )

    def random_action(self, rng: Random) -> Any:
        return rng.choice(self.legal_actions())

    def view(self, seat: int) -> ToyView:
        legal = self.legal_actions() if seat == self.to_act else ()
        return ToyView(
            seat,
            self.round,
            self.kind,
            self.to_act,
            legal,
            tuple(self.scores),
            self.result,
            tuple(self.hands[seat]),
            tuple(self.shown),
        )

    def clone(self) -> Self:
        new = self._copy()
        new.hands, new.shown, new.scores = [h[:] for h in self.hands], self.shown[:], self.scores[:]
        return new


def new_match(rules: ToyRules, seed: int | str, dealer: Any = None) -> ToyState:
    return ToyState(rules, dealer or SeededDealer(seed))


def action_to_json(kind: str, action: Any) -> Any:
    return CARD_NAMES[action]


def action_from_json(kind: str, value: Any) -> Any:
    if kind != SHOW:
        raise ActionError(f"{kind!r} is not a decision kind: expected {SHOW}")
    try:
        return parse_card(value)
    except ValueError as error:
        raise ActionError(f"{value!r} is not a card: {error}") from None


def _dealer(events: Sequence[Event]) -> FixedDealer:
    decks = [[parse_card(c) for c in e["deck"]] for e in events if e.get("type") == "deal"]
    if not decks:
        raise MissingDeal("no deal")
    return FixedDealer([], decks)


def iter_replay(rules: ToyRules, events: Sequence[Event]) -> Iterator[ToyState]:
    return replaying.iter_replay(
        events,
        start=lambda recorded: ToyState(rules, _dealer(recorded)),
        engine_events=ENGINE_EVENTS,
        dealing_events=("deal",),
        action_from_json=action_from_json,
        refused=(ActionError, IllegalAction),
    )


def replay(rules: ToyRules, events: Sequence[Event]) -> ToyState:
    return replaying.replay_to_end(iter_replay(rules, events), lambda: ToyState(rules, _dealer(events)))
