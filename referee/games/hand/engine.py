"""Hand, rummy for 2, 3 or 4 players or two partnerships: a pure, deterministic state machine.

docs/rules.md ("## Hand") is the law; where it is silent this engine takes the
readings listed below. A match starts
from ``(rules, seed)`` (:func:`new_match`), from given decks
(:class:`~waraq.referee.games.hand.dealing.FixedHandDealer`), or from a first player
alone (:class:`~waraq.referee.games.hand.dealing.ChanceHandDealer`), each deck and each
new stock then handed in when the match waits for it (:meth:`HandState.deal`,
:meth:`HandState.restock`); the state says
whose decision is pending and of what kind, and moves on by one action at a
time, through the checked door :meth:`HandState.apply` (an illegal action
raises :class:`~waraq.referee.games.hand.turn.IllegalAction` saying which step
is wrong and why, and changes nothing) or the trusted one,
:meth:`HandState.push`.

This module is the match: the deal, whose turn it is, the end of a round
and of the match, and its record. Its parts each have a module of their own
in this package: the decisions and their spellings (``decisions``), the
rules of a turn (``turn``), the dealers (``dealing``), what a seat sees
(``view``), the random turn the referee plays for a faulted seat
(``random_turn``), and the melds (``melds`` and the searches it names).

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
* ``TURN`` is the whole rest of the turn at once, a
  :class:`~waraq.referee.games.hand.decisions.Turn` ``(steps, discard)``:
  steps that lay melds, add to table melds and win jokers back, then one card
  to discard; discarding the last card goes out. There are too many turns to
  list: :meth:`HandState.legal_actions` is empty for ``TURN``, and the turn is
  checked as a whole, step by step, by
  :class:`~waraq.referee.games.hand.turn.PartialTurn`: the one owner of the
  rules of a turn, which :mod:`~waraq.referee.games.hand.turn` states (the
  opening among them).

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
from typing import Any

from waraq.referee.games import replaying
from waraq.referee.games.cards import CardError
from waraq.referee.games.hand.dealing import ChanceHandDealer, FixedHandDealer, SeededHandDealer, same_cards
from waraq.referee.games.hand.decisions import (
    DISCARD_PILE,
    GAME,
    KINDS,
    STOCK,
    TAKE,
    TAKES,
    TURN,
    ActionError,
    HandKind,
    Turn,
    action_from_json,
    action_to_json,
)
from waraq.referee.games.hand.discard import discard_uses, has_discard_use
from waraq.referee.games.hand.melds import CARD_NAMES, Step, TableMeld, parse_card
from waraq.referee.games.hand.random_turn import random_turn
from waraq.referee.games.hand.rules import HAND_SIZE, HandRules
from waraq.referee.games.hand.scoring import round_charges, side_points, winning_seats
from waraq.referee.games.hand.turn import IllegalAction, PartialTurn
from waraq.referee.games.hand.view import HandView
from waraq.referee.games.replaying import ReplayError
from waraq.referee.games.results import Result, ResultReason
from waraq.referee.games.state import Compact, Event, LoggedState, decision_event

MAX_TURNS = 1000  # TURN decisions in one round before the match is aborted
MAX_VOIDS = 20  # void deals in a row before the match is aborted


# The engine's own names, and those every engine module offers (waraq.referee.games.contract.GameEngine).
__all__ = [
    "GAME",
    "KINDS",
    "ENGINE_EVENTS",
    "IllegalAction",
    "ActionError",
    "ReplayError",
    "HandState",
    "new_match",
    "action_to_json",
    "action_from_json",
    "iter_replay",
    "replay",
    "dealer_from_events",
]


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
        "restock_for",
        "_uses",
    )
    _spell = staticmethod(_spell_event)
    # Set by each deal, not __init__: a seat's TURN's draw or taken discard, and the taken one's uses.
    drawn: int | None
    took: int | None
    _uses: tuple[tuple[Step, ...], ...] | None

    def __init__(self, rules: HandRules, dealer: SeededHandDealer | FixedHandDealer | ChanceHandDealer) -> None:
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
        self.restock_for: int | None = None  # the seat whose turn waits for a stock handed in
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
                raise IllegalAction(f"seat {seat} answered TURN with {action!r}: expected a Turn(steps, discard)")
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

        TAKE: either answer. TURN: a random legal turn
        (:func:`~waraq.referee.games.hand.random_turn.random_turn` says how it is built).
        """
        kind = self.kind
        if kind == TAKE:
            return rng.choice(TAKES)
        if kind != TURN:
            raise IllegalAction("the match is over; no decision is pending")
        seat = self.to_act
        assert seat is not None  # TURN is pending: a seat is to act
        turn = PartialTurn(seat, self.hands[seat], self.table, self.opened[seat], self.opening_points, self.took)
        return random_turn(turn, self.uses() if self.took is not None else (), rng)

    # -- the deal ---------------------------------------------------------

    def _deal(self) -> None:
        """A new deck for round ``self.round`` (the same round again after a void one); or, when the
        dealer has no deck yet (a :class:`ChanceHandDealer`), the table cleared to wait for :meth:`deal`."""
        self.kind = self.to_act = None  # if no deck comes (a record cut short), nothing is pending
        self.first = (self.first_of_match + self.round - 1) % self.players
        deck = self.dealer.deck(self.deals, self.rules.deck)
        self._clear_table()
        if deck is not None:
            self._lay_out(deck)

    def _clear_table(self) -> None:
        """No cards anywhere: what a match keeps between its deals is the round, its first player and the score."""
        n = self.players
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.stock: list[int] = []
        self.pile: list[int] = []
        self.table: list[TableMeld] = []
        self.opened = [False] * n
        self.taken: list[tuple[int, int]] = []
        self.turns = 0
        self.drawn = self.took = None
        self._uses = None
        self.deck_index = self.deals  # the deck to come
        self.restocks_in_deal = 0

    def _lay_out(self, deck: list[int]) -> None:
        """``deck`` dealt as the engine's docstring says (the table is clear); the first player's TURN."""
        n, first = self.players, self.first
        self.deck_index = self.deals
        self.deals += 1
        self._log.append((DEAL, self.round, first, deck))
        dealt = HAND_SIZE * n
        for j in range(n):
            self.hands[(first + j) % n] = sorted(deck[j:dealt:n])
        insort(self.hands[first], deck[dealt])
        self.stock = deck[dealt + 1 :]
        self.to_act = first
        self.kind = TURN

    @property
    def awaiting_deck(self) -> bool:
        """Between two deals: no decision is pending, no stock is awaited and the match goes on. A
        :class:`ChanceHandDealer`'s match waits here, its table cleared, until :meth:`deal` brings the deck."""
        return self.kind is None and self.result is None and self.restock_for is None

    @property
    def awaiting_restock(self) -> bool:
        """A turn that must draw from an empty stock waits here, with a :class:`ChanceHandDealer`, until
        :meth:`restock` brings the new stock (the pile under its top card, shuffled)."""
        return self.restock_for is not None

    def deal(self, deck: Sequence[int]) -> None:
        """Lay out ``deck`` as the next deal's, when :attr:`awaiting_deck`: the door of a dealer that deals
        from outside (OpenSpiel's chance nodes, card by card). DealError when ``deck`` is no shuffle of the
        rules' deck; IllegalAction when the match is not waiting for a deck."""
        if not self.awaiting_deck:
            raise IllegalAction(f"no deck is awaited: {self._pending()}")
        self._lay_out(same_cards(f"deck {self.deals + 1}", deck, self.rules.deck))

    def restock(self, stock: Sequence[int]) -> None:
        """Make ``stock`` (top first) the new stock, when :attr:`awaiting_restock`, and go on with the turn
        that waited for it. DealError when ``stock`` is no shuffle of the pile under its top card;
        IllegalAction when the match is not waiting for a stock."""
        seat = self.restock_for
        if seat is None:
            raise IllegalAction(f"no stock is awaited: {self._pending()}")
        what = f"restock {self.restocks + 1} (deal {self.deck_index + 1})"
        self._restock(same_cards(what, stock, self.pile[:-1]))
        self.restock_for = None
        self._ask(seat)

    def _pending(self) -> str:
        if self.result is not None:
            return "the match is over"
        if self.restock_for is not None:
            return f"seat {self.restock_for}'s turn waits for a new stock"
        if self.kind is None:
            return "the match waits for a deck"
        return f"seat {self.to_act} is to decide {self.kind}"

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
            under = self.pile[:-1]
            stock = self.dealer.restock(self.deck_index, self.restocks_in_deal, self.restocks, under)
            if stock is None:  # a ChanceHandDealer: the turn waits for restock()
                self.restock_for = seat
                return
            self._restock(stock)
        self._ask(seat)

    def _ask(self, seat: int) -> None:
        """The turn of ``seat``, the stock not empty: TAKE if the top discard has a use, else the draw."""
        self.to_act = seat
        pile = self.pile
        hand = self.hands[seat]
        if pile and has_discard_use(hand, pile[-1], self.table, self.opened[seat], self.opening_points):
            self.kind = TAKE
        else:
            self._draw(seat)
            self.kind = TURN

    def _restock(self, stock: list[int]) -> None:
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
        charges = round_charges(self.hands, self.opened, out, hand_finish, self.rules.partnership)
        points = side_points(charges, self.teams)
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
            winners = winning_seats(scores, self.players, self.teams)
        self.result = Result(winners, reason, tuple(scores))
        self.kind = None
        self.to_act = None
        self._log.append({"type": "result", "score": scores[:], "winners": list(winners), "reason": reason})


# -- building and rebuilding matches ----------------------------------------------------


def new_match(
    rules: HandRules, seed: int | str, dealer: SeededHandDealer | FixedHandDealer | ChanceHandDealer | None = None
) -> HandState:
    """A match whose every shuffle (and its first player) follows from ``seed``, or that ``dealer`` deals."""
    return HandState(rules, dealer or SeededHandDealer(seed))


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
