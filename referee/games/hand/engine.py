"""Hand, rummy for 2, 3 or 4 players or two partnerships: a pure, deterministic state machine.

docs/rules.md ("## Hand") is the law; where it is silent this engine takes the
readings listed below. A match starts
from ``(rules, seed)`` (:func:`new_match`) or from given decks
(:class:`FixedHandDealer`); the state says whose decision is pending and of
what kind, and moves on by one action at a time, through the checked door
:meth:`HandState.apply` (an illegal action raises :class:`IllegalAction`
saying which step is wrong and why, and changes nothing) or the trusted one,
:meth:`HandState.push`.

Cards are ints, ``copy * 53 + face`` (:mod:`waraq.referee.games.hand.melds`), named
``7H#1`` or ``JK#0`` only at the edges.

A turn
------
The round's first player starts with 15 cards and no draw. Every other turn
starts with a draw, then one ``TURN`` decision:

* ``TAKE`` is asked only when the top of the discard pile has a legal use
  this turn (:func:`~waraq.referee.games.hand.discard.has_discard_use`): the seat
  answers ``"stock"`` or ``"discard"``. When the discard has no use (or the
  pile is empty), the referee draws the stock's top card for the seat: no
  decision is asked and no record line is written (replay derives it).
* ``TURN`` is the whole rest of the turn at once, :class:`Turn` ``(steps,
  discard)``: steps :class:`Meld` (lay a new meld), :class:`Add` (add hand
  cards to table meld number ``meld``, a run at ``"low"`` or ``"high"``) and
  :class:`Swap` (win a table joker back with the card it stands for),
  applied in order, each checked against what the steps before it left; then
  one card to discard, which must still be in hand with at least that one
  card left. Discarding the last card goes out. There are too many turns to
  list: :meth:`HandState.legal_actions` is empty for ``TURN``, and the turn is
  checked as a whole, step by step, by :class:`PartialTurn`: the one owner of
  these rules. A bot may build its turn on one from its view alone, or check
  a whole turn with :func:`check_turn`, and be refused exactly as the referee
  would refuse it.

A seat that has not opened may not add or swap. It opens, during a turn, once
the melds it laid in that turn are worth ``opening_points`` together (ace 11,
even in ``A 2 3``; a joker the face it stands for); from then on it may add
and swap in the same turn. A turn that lays melds but stays below is illegal.
A turn that took the discard must end with that card on the table, and a
seat that had not opened must have it in one of the melds it lays.

Readings (where docs/rules.md is silent)
-----------------------------------
* Dealing: one card at a time in play order from the first player, ``deck[i]``
  to seat ``(first + i) % n`` for ``i < 14 n``, then ``deck[14 n]`` to the first
  player; the stock is the rest, ``deck[14 n + 1]`` on top. The match's first
  player is drawn from the seed; round ``r`` starts with the next one.
* Restock: at the start of a turn that needs a draw, an empty stock is rebuilt
  from the discard pile under its top card, shuffled by the dealer. If the pile
  holds nothing under its top card, the round is void and dealt again, with
  the same round number and first player. (In play this cannot happen: from the
  first discard on, every turn moves one card from the stock or the pile to a
  hand and one to the pile, so the two together hold ``106 - 14 n`` cards between
  turns, all in the pile when the stock runs out.)
* A "hand" finish: going out on a turn at whose start the seat had not
  opened, no addition or swap of that turn touching another seat's meld
  (partners included).
* Partnerships: the partner of the seat that goes out is charged 0; the other
  team is charged both its seats' hands (a seat that never opened 100),
  everything doubled on a hand.
* A safety net: a round that reaches 1000 ``TURN`` decisions, or 20 void deals
  in a row, ends the match with reason ``"aborted"``, no winners, the scores
  so far.
* The referee offers the discard exactly when some legal turn (as
  :meth:`HandState.apply` checks it) puts it on the table
  (:func:`~waraq.referee.games.hand.discard.has_discard_use`), including a turn that
  first wins a table joker back by a swap (after adding a set's third suit if
  needed), then melds the discard with that joker, adds both across a gap to
  a run or, the discard itself a joker, adds it to the run just freed. Before
  opening, such a swap comes only once the melds laid without the discard
  reach the opening, and the discard must then be in a meld.

Record events (``waraq.record.v1``, game ``"hand"``)
----------------------------------------------------
The state appends its events to :attr:`HandState.events`; the referee adds
times and notes. docs/records.md's ``deal``, ``decision``, ``round_end`` and
``result``, and one kind of Hand's own:

* ``deal``: ``{"type": "deal", "round": r, "first": seat, "deck": [106 names]}``,
  the deck ``deck[0]`` first; at each deal, void redeals included.
* ``decision``: ``kind`` ``"TAKE"``, ``action`` ``"stock"`` or ``"discard"``;
  or ``kind`` ``"TURN"``, ``action`` ``{"steps": [...], "discard": "KD#0"}`` with
  steps in order, each one of ``{"meld": ["5H#0", "6H#1", "JK#0"]}``,
  ``{"add": 2, "cards": ["8H#0"], "at": "high"}`` (to a run; ``"at"`` absent
  when adding to a set: ``{"add": 0, "cards": ["7S#0"]}``) and
  ``{"swap": 1, "card": "9S#1"}``. A meld's number is its index on the table,
  in the order the melds were laid (this turn's included). A draw the referee
  makes without asking writes no line: the card drawn is the stock's top,
  which follows from the deck or the last restock.
* ``restock``: ``{"type": "restock", "round": r, "stock": [names, top first]}``,
  the new stock when the old one ran out, so a replay never needs the RNG.
* ``round_end``: ``{"type": "round_end", "round": r, "out": seat, "hand": bool,
  "charges": [per seat], "points": [per seat or team], "score": [running]}``:
  ``charges`` is what each seat is charged this round (-30 for the seat that
  went out, its partner 0, the others their hands or 100; doubled on a
  hand), ``points`` what each seat (or team) gained this round. A void round:
  ``{"type": "round_end", "round": r, "void": true, "out": null, "hand": false,
  "charges": [0, ...], "points": [0, ...], "score": [...]}``.
* ``result``: ``{"type": "result", "score": [...], "winners": [seats], "reason":
  "score" | "aborted"}``; the lowest total wins, every seat tied for it (both
  seats of a winning team).

:func:`replay` rebuilds a match from these events and checks every field the
engine writes. :meth:`HandState.view` is what one seat may know and nothing
more.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from waraq.referee.games import replaying
from waraq.referee.games.cards import CardError
from waraq.referee.games.dealers import DealError, MissingDeal
from waraq.referee.games.hand.discard import discard_uses, has_discard_use
from waraq.referee.games.hand.meld_search import assign, best_opening, melds_in
from waraq.referee.games.hand.melds import (
    CARD_NAMES,
    CHARGES,
    FACE_NAMES,
    FACES,
    HIGH,
    LOW,
    Add,
    Meld,
    MeldError,
    Step,
    Swap,
    TableMeld,
    additions,
    check_add,
    check_meld,
    check_swap,
    meld_value,
    parse_card,
)
from waraq.referee.games.hand.rules import HAND_SIZE, HandRules
from waraq.referee.games.replaying import ReplayError
from waraq.referee.games.results import Result, ResultReason
from waraq.referee.games.state import Compact, Event, LoggedState, decision_event

GAME = "hand"


class HandKind(StrEnum):
    """The decisions a Hand match asks for, spelled in records and messages by their values.

    As Hokm's kinds (:class:`~waraq.referee.games.hokm.engine.HokmKind`): a ``str``
    subclass compared with ``==``, so a kind parsed from a record or a request
    selects the same code as the member.
    """

    TAKE = "TAKE"
    TURN = "TURN"


TAKE, TURN = HandKind.TAKE, HandKind.TURN  # the members by their short names, as call sites read them
KINDS = tuple(HandKind)
STOCK, DISCARD_PILE = TAKES = ("stock", "discard")  # TAKE's actions

OUT_POINTS = -30  # the seat that goes out
NEVER_OPENED = 100  # a seat that never opened this round
MAX_TURNS = 1000  # TURN decisions in one round before the match is aborted
MAX_VOIDS = 20  # void deals in a row before the match is aborted
CARDS = len(CARD_NAMES)

__all__ = [
    "GAME", "HandKind", "KINDS", "TAKE", "TURN", "STOCK", "DISCARD_PILE", "Turn", "Meld", "Add", "Swap", "Step",
    "TableMeld", "PartialTurn", "check_turn", "HandState", "HandView", "Result", "IllegalAction", "ActionError",
    "ReplayError",
    "SeededHandDealer", "FixedHandDealer", "new_match", "deal_order", "stack_deck", "action_to_json",
    "action_from_json", "iter_replay", "replay", "dealer_from_events", "ENGINE_EVENTS",
]


class IllegalAction(ValueError):
    """An action that is not legal now; the message quotes it and says why."""


class ActionError(ValueError):
    """A value that does not spell an action of the kind asked for."""


class _Refused(ValueError):
    """A step that is not legal: the reason, to which the caller adds the seat and step."""


@dataclass(frozen=True, slots=True)
class Turn:
    """A TURN decision: ``steps`` in order, then the card to discard."""

    steps: tuple[Step, ...]
    discard: int

    def __post_init__(self) -> None:
        if type(self.steps) is not tuple:
            object.__setattr__(self, "steps", tuple(self.steps))


# -- dealers ----------------------------------------------------------------------


class SeededHandDealer:
    """Everything random in a match follows from the seed, each draw from its own key
    (as :class:`~waraq.referee.games.dealers.SeededDealer`): no state, so copying a game
    state never copies a generator."""

    __slots__ = ("seed",)

    def __init__(self, seed: int | str) -> None:
        self.seed = seed

    def first(self, players: int) -> int:
        return random.Random(f"waraq/{self.seed}/first").randrange(players)

    def deck(self, index: int, cards: Sequence[int]) -> list[int]:
        deck = list(cards)
        random.Random(f"waraq/{self.seed}/deck/{index}").shuffle(deck)
        return deck

    def restock(self, deck: int, number: int, nth: int, cards: Sequence[int]) -> list[int]:
        """The new stock, top first, from the pile's ``cards`` under its top (bottom to
        top): restock ``number`` of deck ``deck`` (``nth`` of the match)."""
        stock = list(cards)
        random.Random(f"waraq/{self.seed}/restock/{deck}/{number}").shuffle(stock)
        return stock


class FixedHandDealer:
    """Hands out a first player, decks and restocked stocks given up front (hand-worked
    deals, replaying a record), checking each; ``restocks`` in the order they happen."""

    __slots__ = ("_first", "_decks", "_restocks")

    def __init__(
        self, first: int, decks: Sequence[Sequence[int]], restocks: Sequence[Sequence[int]] = ()
    ) -> None:
        self._first = first
        self._decks = [list(d) for d in decks]
        self._restocks = [list(s) for s in restocks]

    def first(self, players: int) -> int:
        if type(self._first) is not int or not 0 <= self._first < players:
            raise DealError(f"first player {self._first!r} is not a seat of {players} players")
        return self._first

    def deck(self, index: int, cards: Sequence[int]) -> list[int]:
        if index >= len(self._decks):
            raise MissingDeal(f"deck {index + 1} was not given")
        deck = self._decks[index]
        _same_cards(f"deck {index + 1}", deck, cards)
        return list(deck)

    def restock(self, deck: int, number: int, nth: int, cards: Sequence[int]) -> list[int]:
        if nth >= len(self._restocks):
            raise MissingDeal(f"restock {nth + 1} was not given")
        stock = self._restocks[nth]
        _same_cards(f"restock {nth + 1} (deal {deck + 1})", stock, cards)
        return list(stock)


def _same_cards(what: str, given: Sequence[int], cards: Sequence[int]) -> None:
    if sorted(given) == sorted(cards):
        return
    missing = ", ".join(CARD_NAMES[c] for c in sorted(set(cards) - set(given))) or "none"
    extra = ", ".join(map(str, _shown(sorted(set(given) - set(cards), key=str)))) or "a repeat"
    raise DealError(
        f"{what} is not a shuffle of the {len(cards)} cards in play ({len(given)} cards; "
        f"missing: {missing}; not in play or repeated: {extra})"
    )


# -- what a seat sees -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandView:
    """What one seat may know at a real table (docs/rules.md, information hiding).

    It never holds another seat's hand, the stock's cards or order, the decks
    or the seed. The discard pile is shown whole: every card in it was seen
    face up when discarded. Cards are ints; :meth:`to_json` spells them.
    """

    rules: HandRules
    seat: int
    round: int
    first: int  # the round's first player
    kind: HandKind | None  # the pending decision, whoever makes it; None when over
    to_act: int | None
    legal: tuple[Any, ...]  # TAKE: ("stock", "discard") for the seat to act; else empty
    hand: tuple[int, ...]  # sorted
    hand_sizes: tuple[int, ...]
    opened: tuple[bool, ...]  # per seat, this round
    melds: tuple[TableMeld, ...]  # the table, in the order laid
    pile: tuple[int, ...]  # the discard pile, bottom to top
    taken: tuple[tuple[int, int], ...]  # (seat, card) taken from the pile this round, in order
    stock_size: int
    drawn: int | None  # this seat's TURN: the card it drew from the stock
    took: int | None  # this seat's TURN: the discard it took, to be laid this turn
    uses: tuple[tuple[Step, ...], ...]  # with ``took``: ways to lay it (discard.discard_uses)
    scores: tuple[int, ...]  # per seat, or per team with partners
    result: Result | None

    def cards_seen(self) -> set[int]:
        """Every card this view shows, wherever it appears (for leak checks)."""
        seen = set(self.hand) | set(self.pile)
        for meld in self.melds:
            seen.update(meld.cards)
        seen.update(card for _, card in self.taken)
        if self.drawn is not None:
            seen.add(self.drawn)
        if self.took is not None:
            seen.add(self.took)
        for use in self.uses:
            for step in use:
                seen.update(_step_cards(step))
        return seen

    def to_json(self) -> dict[str, Any]:
        return {
            "game": GAME,
            "rules": self.rules.to_dict(),
            "seat": self.seat,
            "round": self.round,
            "first": self.first,
            "kind": self.kind,
            "to_act": self.to_act,
            "legal": list(self.legal),
            "hand": [CARD_NAMES[c] for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "opened": list(self.opened),
            "melds": [meld_to_json(m) for m in self.melds],
            "pile": [CARD_NAMES[c] for c in self.pile],
            "taken": [{"seat": s, "card": CARD_NAMES[c]} for s, c in self.taken],
            "stock_size": self.stock_size,
            "drawn": None if self.drawn is None else CARD_NAMES[self.drawn],
            "took": None if self.took is None else CARD_NAMES[self.took],
            "uses": [[step_to_json(s) for s in use] for use in self.uses],
            "scores": list(self.scores),
        }


def _step_cards(step: Step) -> tuple[int, ...]:
    return (step.card,) if type(step) is Swap else step.cards


def meld_to_json(meld: TableMeld) -> dict[str, Any]:
    return {
        "owner": meld.owner,
        "kind": meld.kind,
        "cards": [CARD_NAMES[c] for c in meld.cards],
        "joker_as": None if meld.joker_as is None else FACE_NAMES[meld.joker_as],
    }


# -- the match ------------------------------------------------------------------------

DEAL = "deal"  # the tags of logged deals and restocks (see _spell_event)
RESTOCK = "restock"


def _spell_event(compact: Compact) -> Event:
    """A compact log entry as its record event: ``(DEAL, round, first, deck)``,
    ``(RESTOCK, round, stock)`` or ``(round, seat, kind, action)`` for a decision."""
    tag = compact[0]
    if tag is DEAL:
        _, round_, first, deck = compact
        return {"type": "deal", "round": round_, "first": first, "deck": [CARD_NAMES[c] for c in deck]}
    if tag is RESTOCK:
        _, round_, stock = compact
        return {"type": "restock", "round": round_, "stock": [CARD_NAMES[c] for c in stock]}
    return decision_event(compact, action_to_json)


class HandState(LoggedState):
    """One Hand match in progress. Cheap to :meth:`clone`; see the module docstring."""

    __slots__ = (
        "rules",
        "players",
        "teams",
        "opening_points",
        "dealer",
        "deals",
        "first_of_match",
        "round",
        "first",
        "kind",
        "to_act",
        "hands",
        "table",
        "pile",
        "stock",
        "opened",
        "scores",
        "result",
        "drawn",
        "took",
        "taken",
        "turns",
        "voids",
        "deck_index",
        "restocks",
        "restocks_in_deal",
        "_uses",
    )
    _spell = staticmethod(_spell_event)
    # Set by each deal, not __init__: a seat's TURN's draw or taken discard, and the taken one's uses.
    drawn: int | None
    took: int | None
    _uses: tuple[tuple[Step, ...], ...] | None

    def __init__(self, rules: HandRules, dealer: SeededHandDealer | FixedHandDealer) -> None:
        self.rules = rules
        self.players = rules.players
        self.teams = rules.teams
        self.opening_points = rules.opening_points  # copied: hot paths read it every turn
        self.dealer = dealer
        self.deals = 0  # decks dealt so far, void deals included
        self.restocks = 0  # stocks rebuilt so far in the match
        self.scores = [0] * self.teams
        self.result: Result | None = None
        # Record events; decisions and deals are compact tuples spelled out only when
        # read (see `events`).
        self._log = []
        self._spelled = []
        self.voids = 0
        self.kind: HandKind | None = None
        self.to_act: int | None = None
        self.first_of_match = dealer.first(self.players)
        self.round = 1
        self._deal()

    # -- the decision interface ------------------------------------------

    def legal_actions(self) -> tuple[Any, ...]:
        """TAKE: both answers (TAKE is asked only when both are legal). TURN: empty, as the
        turn is checked as a whole (see :meth:`apply`); empty when the match is over."""
        return TAKES if self.kind == TAKE else ()

    def uses(self) -> tuple[tuple[Step, ...], ...]:
        """In a TURN after taking the discard: the ways to lay it (step tuples)."""
        uses = self._uses
        if uses is None:
            took = self.took
            if self.kind != TURN or took is None:
                uses = ()
            else:
                seat = self.to_act
                assert seat is not None  # TURN is pending: a seat is to act
                hand = [c for c in self.hands[seat] if c != took]
                uses = discard_uses(hand, took, self.table, self.opened[seat], self.opening_points)
            self._uses = uses
        return uses

    def apply(self, action: Any) -> None:
        """Take ``action`` for the seat to act, or raise :class:`IllegalAction` saying why
        and leave the state as it was."""
        kind = self.kind
        seat = self.to_act
        if kind is None or seat is None:
            raise IllegalAction(f"the match is over; no decision is pending (got {action!r})")
        if kind == TURN:
            if type(action) is not Turn:
                raise IllegalAction(
                    f"seat {seat} answered TURN with {action!r}: expected a Turn(steps, discard)"
                )
            self._commit(seat, action, self._play(seat, action, True))
            return
        if kind == TAKE:
            if type(action) is str and action in TAKES:
                self.push(action)
                return
        raise IllegalAction(f"seat {seat} answered TAKE with {action!r}: expected 'stock' or 'discard'")

    def push(self, action: Any) -> None:
        """Take a legal ``action`` without checking it (the trusted door)."""
        kind = self.kind
        seat = self.to_act
        if kind is None or seat is None:
            raise IllegalAction("the match is over; no decision is pending")
        if kind == TURN:
            self._commit(seat, action, self._play(seat, action, False))
            return
        self._uses = None
        if action == DISCARD_PILE:
            action = DISCARD_PILE
            card = self.pile.pop()
            insort(self.hands[seat], card)
            self.took = card
            self.taken.append((seat, card))
        else:
            action = STOCK
            self._draw(seat)
        self._log.append((self.round, seat, TAKE, action))
        self.kind = TURN

    def clone(self) -> HandState:
        new = self._copy()
        new.hands = [h[:] for h in self.hands]
        new.table = self.table[:]
        new.pile = self.pile[:]
        new.stock = self.stock[:]
        new.opened = self.opened[:]
        new.scores = self.scores[:]
        new.taken = self.taken[:]
        return new

    def view(self, seat: int) -> HandView:
        """What ``seat`` may know now: its own cards and what is public, nothing else."""
        kind = self.kind
        own_turn = seat == self.to_act and kind == TURN
        took = self.took if own_turn else None
        return HandView(
            rules=self.rules,
            seat=seat,
            round=self.round,
            first=self.first,
            kind=kind,
            to_act=self.to_act,
            legal=TAKES if kind == TAKE and seat == self.to_act else (),
            hand=tuple(self.hands[seat]),
            hand_sizes=tuple(len(h) for h in self.hands),
            opened=tuple(self.opened),
            melds=tuple(self.table),
            pile=tuple(self.pile),
            taken=tuple(self.taken),
            stock_size=len(self.stock),
            drawn=self.drawn if own_turn else None,
            took=took,
            uses=self.uses() if took is not None else (),
            scores=tuple(self.scores),
            result=self.result,
        )

    def random_action(self, rng: random.Random) -> Any:
        """A legal action drawn by ``rng`` (what the referee plays for a seat that faulted).

        TAKE: either answer. TURN: lays the taken discard by one of its uses, opens
        when the hand holds an opening (nine times in ten), then, opened, lays
        melds it finds and adds single cards where they fit, and discards a random
        card: enough for random-vs-random rounds to end.
        """
        kind = self.kind
        if kind == TAKE:
            return rng.choice(TAKES)
        if kind != TURN:
            raise IllegalAction("the match is over; no decision is pending")
        return _RandomTurn(self, rng).build()

    # -- the deal ---------------------------------------------------------

    def _deal(self) -> None:
        """A new deck for round ``self.round`` (the same round again after a void one)."""
        n = self.players
        self.kind = self.to_act = None  # if no deck comes (a record cut short), nothing is pending
        self.first = first = (self.first_of_match + self.round - 1) % n
        self.deck_index = self.deals
        deck = self.dealer.deck(self.deals, self.rules.deck)
        self.deals += 1
        self.restocks_in_deal = 0
        self._log.append((DEAL, self.round, first, deck))
        dealt = HAND_SIZE * n
        hands: list[list[int]] = [[] for _ in range(n)]
        for j in range(n):
            hands[(first + j) % n] = sorted(deck[j:dealt:n])
        insort(hands[first], deck[dealt])
        self.hands = hands
        self.stock = deck[dealt + 1 :]
        self.pile: list[int] = []
        self.table: list[TableMeld] = []
        self.opened = [False] * n
        self.taken: list[tuple[int, int]] = []
        self.turns = 0
        self.drawn = self.took = None
        self._uses = None
        self.to_act = first
        self.kind = TURN

    def _draw(self, seat: int) -> None:
        card = self.stock.pop(0)
        insort(self.hands[seat], card)
        self.drawn = card

    def _start_turn(self, seat: int) -> None:
        """Restock if needed, then ask TAKE if the top discard has a use, else draw."""
        self.kind = self.to_act = None
        self.drawn = self.took = None
        self._uses = None
        if not self.stock:
            if len(self.pile) < 2:
                self._void_round()
                return
            self._restock()
        self.to_act = seat
        pile = self.pile
        hand = self.hands[seat]
        if pile and has_discard_use(hand, pile[-1], self.table, self.opened[seat], self.opening_points):
            self.kind = TAKE
        else:
            self._draw(seat)
            self.kind = TURN

    def _restock(self) -> None:
        under = self.pile[:-1]
        stock = self.dealer.restock(self.deck_index, self.restocks_in_deal, self.restocks, under)
        self.restocks += 1
        self.restocks_in_deal += 1
        self.pile = self.pile[-1:]
        self.stock = stock
        self._log.append((RESTOCK, self.round, tuple(stock)))

    # -- a turn -------------------------------------------------------------

    def _play(self, seat: int, turn: Turn, check: bool) -> tuple[list[int], list[TableMeld], bool, bool]:
        """The hand (sorted), table and opened flag after ``turn``'s steps and discard, and
        whether it touched another seat's meld; computed on copies (a :class:`PartialTurn`),
        so a refusal changes nothing. With ``check``, every rule is enforced
        (:class:`IllegalAction`)."""
        played = PartialTurn(seat, self.hands[seat], self.table, self.opened[seat], self.opening_points, self.took)
        if check:
            played.play(turn)
        else:
            for step in turn.steps:
                played._take(step, False)
        hand = played.hand
        hand.remove(turn.discard)
        hand.sort()  # a joker won back stands where its card stood; the state keeps hands sorted
        return hand, played.table, played.opened, played.touched

    def _commit(self, seat: int, turn: Turn, played: tuple[list[int], list[TableMeld], bool, bool]) -> None:
        hand, table, opened, touched = played
        went_out = not hand
        hand_finish = went_out and not self.opened[seat] and not touched
        self.hands[seat] = hand
        self.table = table
        self.opened[seat] = opened
        self.pile.append(turn.discard)
        self.turns += 1
        self._uses = None
        self._log.append((self.round, seat, TURN, turn))
        if went_out:
            self._end_round(seat, hand_finish)
        elif self.turns >= MAX_TURNS:
            self._finish(ResultReason.ABORTED)
        else:
            self._start_turn((seat + 1) % self.players)

    # -- the end of a round and of the match ------------------------------

    def _end_round(self, out: int, hand_finish: bool) -> None:
        times = 2 if hand_finish else 1
        partner = (out + 2) % 4 if self.rules.partnership else None
        charges = []
        for seat, held in enumerate(self.hands):
            if seat == out:
                charge = OUT_POINTS
            elif seat == partner:
                charge = 0
            elif self.opened[seat]:
                charge = sum(CHARGES[c] for c in held)
            else:
                charge = NEVER_OPENED
            charges.append(charge * times)
        points = [0] * self.teams
        for seat, charge in enumerate(charges):
            points[seat % self.teams] += charge
        for team, gained in enumerate(points):
            self.scores[team] += gained
        self._log.append(
            {
                "type": "round_end",
                "round": self.round,
                "out": out,
                "hand": hand_finish,
                "charges": charges,
                "points": points,
                "score": self.scores[:],
            }
        )
        self.voids = 0
        if self.round >= self.rules.rounds:
            self._finish(ResultReason.SCORE)
            return
        self.round += 1
        self._deal()

    def _void_round(self) -> None:
        """The stock ran out with nothing under the pile's top card: deal the round again."""
        self._log.append(
            {
                "type": "round_end",
                "round": self.round,
                "void": True,
                "out": None,
                "hand": False,
                "charges": [0] * self.players,
                "points": [0] * self.teams,
                "score": self.scores[:],
            }
        )
        self.voids += 1
        if self.voids >= MAX_VOIDS:
            self._finish(ResultReason.ABORTED)
            return
        self._deal()

    def _finish(self, reason: ResultReason) -> None:
        scores = self.scores
        winners: tuple[int, ...] = ()
        if reason == ResultReason.SCORE:
            low = min(scores)
            winners = tuple(s for s in range(self.players) if scores[s % self.teams] == low)
        self.result = Result(winners, reason, tuple(scores))
        self.kind = None
        self.to_act = None
        self._log.append(
            {"type": "result", "score": scores[:], "winners": list(winners), "reason": reason}
        )


# -- checking steps -------------------------------------------------------------------


class PartialTurn:
    """A TURN under way: the seat's hand and the table after the steps taken so far.

    The one owner of the rules of a turn (the module docstring, "A turn"): the
    referee checks every :class:`Turn` with one (:meth:`play`), its trusted door
    takes the same steps unchecked, :meth:`HandState.random_action` builds its
    turns on one, and so may a bot, from its view alone (:meth:`of_view`, and
    :mod:`waraq.bots.hand_turn`): :meth:`step` takes one step or refuses it as
    the referee would, :meth:`problem` says whether the turn could end here,
    :meth:`finish` ends it with a discard. Pure: it works on its own copies of
    the hand and the table.

    The hand keeps the order it was given in: a card leaves its place and a
    joker won back takes the place of the card that won it (a bot's search may
    walk the hand in its own order; the state sorts its hands).
    """

    __slots__ = (
        "seat", "hand", "table", "was_open", "opened", "points", "took", "laid", "laid_cards", "touched", "steps",
    )

    def __init__(
        self,
        seat: int,
        hand: Iterable[int],
        table: Iterable[TableMeld],
        opened: bool,
        opening_points: int,
        took: int | None = None,
    ) -> None:
        self.seat = seat
        self.hand = list(hand)  # held now; the taken discard, ``took``, among them at the start
        self.table = list(table)
        self.was_open = self.opened = opened  # opened before the turn / by now
        self.points = opening_points
        self.took = took  # the card taken from the discard pile this turn, if one was
        self.laid = 0  # what the melds laid this turn are worth (an opening is measured by it)
        self.laid_cards: set[int] = set()  # the cards of the melds laid this turn
        self.touched = False  # an addition or swap touched another seat's meld
        self.steps: list[Step] = []

    @classmethod
    def of_view(cls, view: HandView) -> PartialTurn:
        """The turn ``view``'s seat is asked to play, before its first step (a TURN view of
        the seat to act: the seat's view is all it takes)."""
        if view.kind != TURN or view.to_act != view.seat:
            raise IllegalAction(
                f"seat {view.seat} has no turn to play: the pending decision is {view.kind} "
                f"of seat {view.to_act}"
            )
        return cls(view.seat, view.hand, view.melds, view.opened[view.seat], view.rules.opening_points, view.took)

    def copy(self) -> PartialTurn:
        new = PartialTurn.__new__(PartialTurn)
        new.seat, new.was_open, new.opened, new.points = self.seat, self.was_open, self.opened, self.points
        new.took, new.laid, new.touched = self.took, self.laid, self.touched
        new.hand = self.hand[:]
        new.table = self.table[:]
        new.laid_cards = set(self.laid_cards)
        new.steps = self.steps[:]
        return new

    # -- steps -----------------------------------------------------------------

    def step(self, step: Step) -> None:
        """Take ``step``, or raise :class:`IllegalAction` as the referee words it (seat,
        step number, why) and change nothing."""
        self._take(step, True)

    def play(self, turn: Turn) -> None:
        """Take all of ``turn``'s steps and check its end, as :meth:`HandState.apply` does:
        :class:`IllegalAction` at the first rule broken. The discard stays in :attr:`hand`."""
        if type(turn.steps) is not tuple or type(turn.discard) is not int:
            raise IllegalAction(f"seat {self.seat} answered TURN with {turn!r}: expected steps and a card")
        for step in turn.steps:
            self._take(step, True)
        self.check_discard(turn.discard)

    def _take(self, step: Step, check: bool) -> None:
        """One step; with ``check`` every rule on it is enforced, and everything is checked
        before anything changes. Unchecked, a step is trusted to be legal."""
        hand, table = self.hand, self.table
        try:
            if type(step) is Meld:  # exact types, as a bot may send anything; final, so mypy narrows
                cards = step.cards
                if check:
                    _check_held(hand, cards)
                meld_kind, ordered, joker_as = check_meld(cards)
                for card in cards:
                    hand.remove(card)
                table.append(TableMeld(self.seat, meld_kind, ordered, joker_as))
                self.laid_cards.update(cards)
                self.laid += meld_value(meld_kind, ordered, joker_as)
                self.opened = self.opened or self.laid >= self.points
            elif type(step) is Add or type(step) is Swap:
                index = step.meld
                if check:
                    _check_may_touch(self.opened, self.laid, self.points, table, index)
                target = table[index]
                if type(step) is Add:
                    cards = step.cards
                    if check:
                        _check_held(hand, cards)
                    grown = check_add(target, cards, step.at)
                    for card in cards:
                        hand.remove(card)
                else:
                    card = step.card
                    if check:
                        _check_held(hand, (card,))
                    grown = check_swap(target, card)
                    assert target.joker is not None  # check_swap refuses a meld without one
                    hand[hand.index(card)] = target.joker
                table[index] = grown
                self.touched = self.touched or target.owner != self.seat
            else:
                raise _Refused("is not a step: expected Meld, Add or Swap")
        except (_Refused, MeldError) as error:
            raise IllegalAction(f"seat {self.seat} step {len(self.steps) + 1} {_describe(step)}: {error}") from None
        self.steps.append(step)

    # -- the end -----------------------------------------------------------------

    @property
    def needs_use(self) -> bool:
        """The taken discard is in hand: some step must still put it on the table."""
        return self.took is not None and self.took in self.hand

    def problem(self) -> str | None:
        """Why the turn could not end here, whatever it discards, as the referee words it;
        None when it could (with any card held)."""
        seat, points, took, was_open = self.seat, self.points, self.took, self.was_open
        if not was_open and self.laid_cards and self.laid < points:
            return f"seat {seat} turn: an opening must be worth {points} or more: these melds are worth {self.laid}"
        if took is not None and not any(took in m.cards for m in self.table):
            return (
                f"seat {seat} turn: took {CARD_NAMES[took]} from the discard pile, so it must "
                "lay it in a meld or add it to one this turn"
            )
        if took is not None and not was_open and took not in self.laid_cards:
            return (
                f"seat {seat} turn: took {CARD_NAMES[took]} from the discard pile before opening, "
                f"so it must be part of an opening worth {points} or more: it is in none of the "
                "melds laid this turn"
            )
        return self.dead_end()

    def dead_end(self) -> str | None:
        """Why no steps that follow could make the turn legal, or None: a turn ends with a
        discard, and once the hand is empty no step brings a card back (a swap gives one
        for the joker)."""
        if not self.hand:
            return f"seat {self.seat} turn: keeps no card to discard: one card must stay in hand after melding"
        return None

    def check_discard(self, discard: int) -> None:
        """Raise :class:`IllegalAction` unless the turn may end here by discarding ``discard``."""
        problem = self.problem()
        if problem is not None:
            raise IllegalAction(problem)
        if discard not in self.hand:
            shown = CARD_NAMES[discard] if type(discard) is int and 0 <= discard < CARDS else discard
            held = ", ".join(CARD_NAMES[c] for c in sorted(self.hand))
            raise IllegalAction(f"seat {self.seat} discard {shown!r}: does not hold it (holds {held})")

    def finish(self, discard: int) -> Turn:
        """The whole turn, its steps so far then ``discard``; :class:`IllegalAction` if the
        referee would refuse it."""
        self.check_discard(discard)
        return Turn(tuple(self.steps), discard)


def check_turn(view: HandView, turn: Any) -> None:
    """Raise :class:`IllegalAction`, in the referee's words, unless ``turn`` is a legal
    answer to ``view``'s TURN decision (the view of the seat to act); changes nothing.
    The referee's own check (:meth:`HandState.apply`) is this one, on the state."""
    if type(turn) is not Turn:
        raise IllegalAction(f"seat {view.seat} answered TURN with {turn!r}: expected a Turn(steps, discard)")
    PartialTurn.of_view(view).play(turn)


def _check_held(hand: list[int], cards: Sequence[int]) -> None:
    """Refuse ``cards`` unless they are a tuple of distinct cards, all held."""
    if type(cards) is not tuple or not cards:
        raise _Refused(f"expected a tuple of cards, got {cards!r}")
    for card in cards:
        if type(card) is not int or not 0 <= card < CARDS:
            raise _Refused(f"{card!r} is not a card")
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if cards.count(c) > 1)
        raise _Refused(f"{CARD_NAMES[twice]} is listed twice")
    strangers = [c for c in cards if c not in hand]
    if strangers:
        raise _Refused(
            f"does not hold {', '.join(CARD_NAMES[c] for c in strangers)} "
            f"(holds {', '.join(CARD_NAMES[c] for c in sorted(hand)) or 'nothing'})"
        )


def _check_may_touch(opened: bool, laid: int, points: int, table: list[TableMeld], index: Any) -> None:
    if not opened:
        raise _Refused(
            f"may add to or swap in a meld only after opening: the melds laid this turn are worth "
            f"{laid} of the {points} an opening needs"
        )
    if type(index) is not int or not 0 <= index < len(table):
        held = f"its melds are numbered 0 to {len(table) - 1}" if table else "it is empty"
        raise _Refused(f"there is no meld {index!r} on the table: {held}")


def _shown(cards: Any) -> Any:
    """Cards by name where they are cards; anything else as it came (for messages)."""
    if isinstance(cards, (tuple, list)):
        return [CARD_NAMES[c] if type(c) is int and 0 <= c < CARDS else c for c in cards]
    return cards


def _describe(step: Any) -> str:
    """A step as an error message quotes it: ``meld ['KH#0', 'AH#1', '2H#0']``."""
    kind = type(step)
    if kind is Meld:
        return f"meld {_shown(step.cards)}"
    if kind is Add:
        at = f" at {step.at}" if step.at is not None else ""
        return f"add {_shown(step.cards)} to meld {step.meld!r}{at}"
    if kind is Swap:
        card = _shown([step.card])[0]
        return f"swap {card!r} for the joker of meld {step.meld!r}"
    return repr(step)


# -- a random legal turn ---------------------------------------------------------------


class _RandomTurn:
    """Builds a random legal turn on copies of the seat's hand and the table."""

    def __init__(self, state: HandState, rng: random.Random) -> None:
        self.state = state
        self.rng = rng
        seat = state.to_act
        assert seat is not None  # random_action asks only for a pending TURN
        self.turn = turn = PartialTurn(
            seat, state.hands[seat], state.table, state.opened[seat], state.opening_points, state.took
        )
        self.hand = turn.hand  # the same list, kept sorted (see _step)
        self.table = turn.table

    def build(self) -> Turn:
        state, rng = self.state, self.rng
        turn = self.turn
        if state.took is not None:
            for step in rng.choice(state.uses()):
                self._step(step)  # a use by a seat not open is a whole opening
        if not turn.opened and rng.random() < 0.9:
            value, melds = best_opening(self.hand, keep=1)
            if value >= state.opening_points:
                for cards in melds:
                    self._step(Meld(cards))
        if turn.opened:
            self._lay_more()
            self._add_singles()
        return turn.finish(rng.choice(self.hand))

    def _step(self, step: Step) -> None:
        self.turn.step(step)
        if type(step) is Swap:
            self.hand.sort()  # the joker won back where the state's sorted hand would hold it

    def _lay_more(self) -> None:
        rng = self.rng
        while rng.random() < 0.8:
            found = [m for m in melds_in(self.hand) if len(m) < len(self.hand)]
            if not found:
                return
            self._step(Meld(assign((rng.choice(found),), self.hand)[0]))

    def _add_singles(self) -> None:
        rng, hand = self.rng, self.hand
        fits = self._fits()
        cards = hand[:]
        rng.shuffle(cards)
        for card in cards:
            if len(hand) < 2:
                return
            options = fits.get(card % FACES)
            if options and rng.random() < 0.8:
                index, at = rng.choice(options)
                self._step(Add(index, (card,), at))
                fits = self._fits()

    def _fits(self) -> dict[int, list[tuple[int, str | None]]]:
        """face -> the (meld, at) where a card of that face can be added alone."""
        fits: dict[int, list[tuple[int, str | None]]] = {}
        for index, meld in enumerate(self.table):
            for face, at in additions(meld):
                fits.setdefault(face, []).append((index, at))
        return fits


# -- building and rebuilding matches ----------------------------------------------------


def new_match(
    rules: HandRules, seed: int | str, dealer: SeededHandDealer | FixedHandDealer | None = None
) -> HandState:
    """A match whose every shuffle (and its first player) follows from ``seed``, or that ``dealer`` deals."""
    return HandState(rules, dealer or SeededHandDealer(seed))


def deal_order(rules: HandRules, first: int) -> list[int | None]:
    """Who receives each card of a deck, by position: a seat, or None for the stock.

    One card at a time in play order from ``first``, 14 each, then one more to
    ``first``; the stock is the rest, its top the card after that.
    """
    n = rules.players
    order: list[int | None] = [(first + i) % n for i in range(HAND_SIZE * n)]
    order.append(first)
    return order + [None] * (len(rules.deck) - len(order))


def stack_deck(
    rules: HandRules,
    first: int,
    hands: Sequence[Sequence[int | str]],
    stock: Sequence[int | str] = (),
) -> list[int]:
    """The deck that deals ``hands[seat]`` to each seat (``first`` gets 15 cards, the
    others 14) and then, optionally, the stock from its top; stock cards not given
    follow in card order. Cards as ints or names (``"7H#1"``)."""

    def card(c: int | str) -> int:
        return c if isinstance(c, int) else parse_card(c)

    wanted = [[card(c) for c in hand] for hand in hands]
    top = [card(c) for c in stock]
    order = deal_order(rules, first)
    if len(wanted) != rules.players:
        raise ValueError(f"{len(wanted)} hands given for {rules.players} players")
    for seat, hand in enumerate(wanted):
        if len(hand) != order.count(seat):
            raise ValueError(f"seat {seat} is dealt {order.count(seat)} cards, {len(hand)} given")
    given = [c for hand in wanted for c in hand] + top
    if len(set(given)) != len(given) or not set(given) <= set(rules.deck):
        raise ValueError("a card is given twice or is not in the deck")
    taken = set(given)
    rest = iter(top + [c for c in rules.deck if c not in taken])
    dealt = [iter(hand) for hand in wanted]
    return [next(dealt[seat]) if seat is not None else next(rest) for seat in order]


# -- actions in records and messages ------------------------------------------------------


def step_to_json(step: Step) -> dict[str, Any]:
    if type(step) is Meld:
        return {"meld": [CARD_NAMES[c] for c in step.cards]}
    if type(step) is Add:
        spelled: dict[str, Any] = {"add": step.meld, "cards": [CARD_NAMES[c] for c in step.cards]}
        if step.at is not None:  # a set's addition has no end: "at" is left out
            spelled["at"] = step.at
        return spelled
    return {"swap": step.meld, "card": CARD_NAMES[step.card]}


def action_to_json(kind: str, action: Any) -> Any:
    """An action as a record and the protocol spell it (see the module docstring)."""
    if kind == TAKE:
        return action
    return {"steps": [step_to_json(s) for s in action.steps], "discard": CARD_NAMES[action.discard]}


def action_from_json(kind: str, value: Any) -> Any:
    """The record's spelling of an action of ``kind`` -> the engine's value.

    Raises :class:`ActionError` quoting the value when it spells no action of
    that kind; whether the action is *legal* is :meth:`HandState.apply`'s call.
    """
    if kind not in KINDS:
        raise ActionError(f"{kind!r} is not a Hand decision kind: expected one of {', '.join(KINDS)}")
    if kind == TAKE:
        if isinstance(value, str) and value in TAKES:
            return TAKES[TAKES.index(value)]  # the engine's own constant
        raise ActionError(f"TAKE: {value!r} is neither 'stock' nor 'discard'")
    if not isinstance(value, dict):
        raise ActionError(f"TURN: {value!r} is not a turn: expected {{\"steps\": [...], \"discard\": card}}")
    unknown = sorted(set(value) - {"steps", "discard"})
    if unknown:
        raise ActionError(f"TURN: {value!r} has unknown keys {unknown}: expected 'steps' and 'discard'")
    steps = value.get("steps", [])
    if not isinstance(steps, list):
        raise ActionError(f"TURN: steps {steps!r} is not a list")
    try:
        return Turn(tuple(_step_from_json(s) for s in steps), parse_card(value.get("discard")))
    except CardError as error:
        raise ActionError(f"TURN: {error}") from None


def _step_from_json(value: Any) -> Step:
    if not isinstance(value, dict):
        raise ActionError(f"TURN: step {value!r} is not an object with 'meld', 'add' or 'swap'")
    keys = set(value)
    if keys == {"meld"}:
        return Meld(_cards_from_json(value, value["meld"]))
    if "add" in keys and keys <= {"add", "cards", "at"} and "cards" in keys:
        at = value.get("at")
        if at == "":
            at = None  # the protocol's spelling of "no end" (a set)
        if at not in (None, LOW, HIGH):
            raise ActionError(f"TURN: step {value!r}: 'at' must be 'low', 'high' or absent")
        return Add(_index_from_json(value, value["add"]), _cards_from_json(value, value["cards"]), at)
    if keys == {"swap", "card"}:
        return Swap(_index_from_json(value, value["swap"]), parse_card(value["card"]))
    raise ActionError(
        f"TURN: step {value!r} is none of {{'meld': cards}}, {{'add': n, 'cards': cards, 'at': end}}, "
        "{'swap': n, 'card': card}"
    )


def _cards_from_json(step: Any, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ActionError(f"TURN: step {step!r}: {value!r} is not a list of cards")
    return tuple(parse_card(v) for v in value)


def _index_from_json(step: Any, value: Any) -> int:
    if type(value) is not int or value < 0:
        raise ActionError(f"TURN: step {step!r}: meld number {value!r} is not an integer >= 0")
    return value


# -- replay ------------------------------------------------------------------------------

# Event kinds the engine writes; a record may carry more (match, fault), and more fields
# (times, notes).
ENGINE_EVENTS = ("deal", "restock", "decision", "round_end", "result")


def dealer_from_events(rules: HandRules, events: Iterable[dict[str, Any]]) -> FixedHandDealer:
    """The first player, decks and restocked stocks of a record, to deal the same match again."""
    first: int | None = None
    decks: list[list[int]] = []
    stocks: list[list[int]] = []
    try:
        for event in events:
            kind = event.get("type")
            if kind == "deal":
                if first is None:
                    first = event["first"]
                decks.append([parse_card(c) for c in event["deck"]])
            elif kind == "restock":
                stocks.append([parse_card(c) for c in event["stock"]])
    except (CardError, KeyError, TypeError) as error:
        raise ReplayError(f"a deal or restock in the record cannot be read: {error}") from None
    if first is None:
        raise ReplayError("the record stops before its first deal")
    return FixedHandDealer(first, decks, stocks)


def iter_replay(rules: HandRules, events: Sequence[dict[str, Any]]) -> Iterator[HandState]:
    """Re-play a record's decisions, yielding the state after each one (see
    :func:`waraq.referee.games.replaying.iter_replay`): every event the engine
    produces must equal the record's on the fields the engine writes."""
    return replaying.iter_replay(
        events,
        start=lambda recorded: HandState(rules, dealer_from_events(rules, recorded)),
        engine_events=ENGINE_EVENTS,
        dealing_events=("deal", "restock", "decision"),
        action_from_json=action_from_json,
        refused=(ActionError, IllegalAction),
    )


def replay(rules: HandRules, events: Sequence[dict[str, Any]]) -> HandState:
    """The state at the end of a record (see :func:`iter_replay`)."""
    return replaying.replay_to_end(
        iter_replay(rules, events), lambda: HandState(rules, dealer_from_events(rules, events))
    )
