"""Hokm for 4, 3 and 2 players: a pure, deterministic state machine (docs/rules.md).

A match starts from ``(rules, seed)`` (:func:`new_match`), from given decks
(:class:`~waraq.referee.games.dealers.FixedDealer`), or from an ace draw alone
(:class:`~waraq.referee.games.dealers.ChanceDealer`), each deck then handed in
when the match waits for it (:meth:`HokmState.deal`). The state says whose decision
is pending and of what kind, lists its legal actions, and moves on by one
action at a time:

* :meth:`HokmState.apply` is the checked door the referee uses: an illegal
  action raises :class:`IllegalAction` quoting it and saying why;
* :meth:`HokmState.push` trusts its caller (search bots, after their own
  checks) and skips the check.

Actions are small values: a suit index for ``TRUMP``, a card for ``PLAY``, a
sorted pair of cards for ``DISCARD``, ``"keep"``/``"pass"`` for ``DRAW`` and a
bool for ``REDEAL`` and ``BAM``. :func:`action_to_json` and
:func:`action_from_json` convert them to the record's spelling.

The state appends the record events of docs/records.md (``ace_draw``, ``deal``,
``decision``, ``round_end``, ``result``) to :attr:`HokmState.events` as they
happen; the referee adds times and notes and writes them down, and
:func:`replay` rebuilds a match from them. :meth:`HokmState.view` is what one
seat may know and nothing more.

A safety net, as Hand has one: a match still going after :data:`MAX_ROUNDS`
rounds ends with the ``result`` reason ``"aborted"`` (docs/records.md's reason
for a match nobody won), no winners and the scores so far. No valid rules
reach it: every round gives a side at least a point, so a match to the
largest ``target_score`` (:mod:`waraq.referee.games.hokm.rules`) with three sides
lasts at most 298 rounds. It stands so that no rules, not even rules built
around their checks, make a match that never ends.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from random import Random
from typing import Any, NamedTuple

from waraq.referee.games import replaying
from waraq.referee.games.cards import CARD_NAMES, JACK, SUIT_NAMES, SUITS, CardError, names, parse_card, parse_suit
from waraq.referee.games.dealers import ChanceDealer, FixedDealer, SeededDealer, checked_deck
from waraq.referee.games.hokm.dealing import PACKET_FIRST, PACKET_REST, by_seat
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.games.replaying import ReplayError
from waraq.referee.games.results import Result, ResultReason
from waraq.referee.games.state import Compact, Event, LoggedState, decision_event

GAME = "hokm"


class HokmKind(StrEnum):
    """The decisions a Hokm match asks for, spelled in records and messages by their values.

    A ``str`` subclass, so a kind that arrives as a plain string (a record line
    through ``json.loads``, a request's ``kind`` field) compares and hashes
    equal to its member. Compare kinds with ``==``: ``is`` fails such a string
    silently. The one exception is :class:`HokmState`'s own ``kind`` in its
    hot methods (the comment above :meth:`HokmState.legal_actions` says why).
    """

    TRUMP = "TRUMP"
    PLAY = "PLAY"
    DISCARD = "DISCARD"
    DRAW = "DRAW"
    REDEAL = "REDEAL"
    BAM = "BAM"


# The members by their short names, as call sites read them.
TRUMP, PLAY, DISCARD, DRAW, REDEAL, BAM = (
    HokmKind.TRUMP,
    HokmKind.PLAY,
    HokmKind.DISCARD,
    HokmKind.DRAW,
    HokmKind.REDEAL,
    HokmKind.BAM,
)
KINDS = tuple(HokmKind)
KEEP, PASS = "keep", "pass"

_SUITS = (0, 1, 2, 3)
_BOOLS = (False, True)
_DRAWS = (KEEP, PASS)
# Decisions whose legal actions never depend on the cards.
_FIXED_LEGAL = {TRUMP: _SUITS, DRAW: _DRAWS, REDEAL: _BOOLS, BAM: _BOOLS, None: ()}
DISCARDS = 2  # 2 players: cards each seat lays aside after trump
MAX_ROUNDS = 1000  # rounds before a match is aborted: above any valid match's 298 (see the docstring)
# The seats in play order from each leader, by player count: who played each card of a trick.
_PLAY_ORDER = {n: [tuple((leader + i) % n for i in range(n)) for leader in range(n)] for n in (2, 3, 4)}


class IllegalAction(ValueError):
    """An action that is not legal now; the message quotes it and says why."""


class ActionError(ValueError):
    """A value that does not spell an action of the kind asked for."""


class Trick(NamedTuple):
    # A named tuple, not a frozen dataclass: one is built every trick, and this is
    # three times cheaper to build (bench/engine.py).
    leader: int
    cards: tuple[int, ...]  # in play order, the first by ``leader``
    winner: int

    def plays(self, players: int) -> Iterator[tuple[int, int]]:
        """(seat, card) pairs in play order."""
        for i, card in enumerate(self.cards):
            yield (self.leader + i) % players, card


@dataclass(frozen=True, slots=True)
class DrawStep:
    """One 2-player draw as the drawer saw it."""

    offered: int  # the top card, which the drawer looked at
    choice: str  # KEEP or PASS
    second: int | None  # after PASS, the card that joined the hand; after KEEP, the burned
    # card if ``burn_visible``, else None: it went unseen


class HokmView(NamedTuple):
    """What one seat may know at a real table (docs/rules.md, information hiding).

    It never holds another seat's hand, discards or draws, the undealt stock,
    the decks or the seed. Cards are ints; :meth:`to_json` spells them.

    A named tuple, not a frozen dataclass: the referee builds one for every
    decision, and this is three times cheaper to build (0.6 against 1.7 us).
    """

    rules: HokmRules
    seat: int
    round: int
    hakem: int
    trump: int | None
    kind: HokmKind | None  # the pending decision, whoever makes it; None when over
    to_act: int | None
    legal: tuple[Any, ...]  # this seat's legal actions; empty when not its turn
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    trick: tuple[tuple[int, int], ...]  # (seat, card) of the trick in progress
    tricks: tuple[Trick, ...]  # completed tricks of this round
    tricks_won: tuple[int, ...]  # per seat, this round
    scores: tuple[int, ...]  # per team (4 players) or per seat
    redeals: tuple[tuple[int, tuple[int, ...]], ...]  # (hakem, shown five) this round
    discarded: tuple[int, ...]  # 2 players: this seat's own discards
    draws: tuple[DrawStep, ...]  # 2 players: this seat's own draws
    offered: int | None  # 2 players: the stock's top card while this seat decides DRAW
    bam: bool  # a side has called bam and plays on for 13 tricks
    result: Result | None

    def cards_seen(self) -> set[int]:
        """Every card this view shows, wherever it appears (for leak checks)."""
        seen = set(self.hand) | {c for _, c in self.trick} | set(self.discarded)
        for trick in self.tricks:
            seen.update(trick.cards)
        for _, shown in self.redeals:
            seen.update(shown)
        for step in self.draws:
            seen.add(step.offered)
            if step.second is not None:
                seen.add(step.second)
        if self.offered is not None:
            seen.add(self.offered)
        if self.kind == DISCARD or self.kind == PLAY:
            for action in self.legal:
                seen.update(action if isinstance(action, tuple) else (action,))
        return seen

    def to_json(self) -> dict[str, Any]:
        kind = self.kind
        return {
            "game": GAME,
            "rules": self.rules.to_dict(),
            "seat": self.seat,
            "round": self.round,
            "hakem": self.hakem,
            "trump": None if self.trump is None else SUITS[self.trump],
            "kind": kind,
            "to_act": self.to_act,
            "legal": [action_to_json(kind, a) for a in self.legal] if kind else [],
            "hand": [CARD_NAMES[c] for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "trick": [{"seat": s, "card": CARD_NAMES[c]} for s, c in self.trick],
            "tricks": [
                {
                    "leader": t.leader,
                    "cards": [CARD_NAMES[c] for c in t.cards],
                    "winner": t.winner,
                }
                for t in self.tricks
            ],
            "tricks_won": list(self.tricks_won),
            "scores": list(self.scores),
            "redeals": [{"hakem": s, "cards": [CARD_NAMES[c] for c in shown]} for s, shown in self.redeals],
            "discarded": [CARD_NAMES[c] for c in self.discarded],
            "draws": [
                {
                    "offered": CARD_NAMES[d.offered],
                    "choice": d.choice,
                    "second": None if d.second is None else CARD_NAMES[d.second],
                }
                for d in self.draws
            ],
            "offered": None if self.offered is None else CARD_NAMES[self.offered],
            "bam": self.bam,
        }


_new_view = HokmView._make  # from the fields in order: a third of the cost of keywords (HokmState.view)


def winning_index(trick: Sequence[int], trump: int | None) -> int:
    """Which card of a trick (in play order) wins it: the highest trump, else the
    highest card of the led suit (the only way with ``trump`` None, none named yet)."""
    best = 0
    best_card = trick[0]
    for i in range(1, len(trick)):
        card = trick[i]
        if card // 13 == best_card // 13:
            if card > best_card:
                best, best_card = i, card
        elif card // 13 == trump:
            best, best_card = i, card
    return best


def round_points(rules: HokmRules, *, kot: bool, hakem_side: bool) -> tuple[int, str | None]:
    """What a round's winners score, and the name a kot goes by in the ``round_end`` event:
    1 point; for a kot, ``kot_points`` when the winners are the hakem's side, else
    ``hakem_kot_points`` (docs/rules.md, 4 players, step 7). Pure, so a bot valuing a round's end
    reads the same rule the referee scores by."""
    if not kot:
        return 1, None
    if hakem_side:
        return rules.kot_points, "kot"
    return rules.hakem_kot_points, "hakem_kot"


DEAL = "deal"  # the tag of a logged deal: (DEAL, round, hakem, deck)


def _spell_event(compact: Compact) -> Event:
    """A compact log entry as its record event: ``(DEAL, round, hakem, deck)`` or
    ``(round, seat, kind, action)`` for a decision."""
    if compact[0] is DEAL:
        _, round_, hakem, deck = compact
        return {"type": "deal", "round": round_, "hakem": hakem, "deck": [CARD_NAMES[c] for c in deck]}
    return decision_event(compact, action_to_json)


class HokmState(LoggedState):
    """One Hokm match in progress. Cheap to :meth:`clone`; see the module docstring."""

    __slots__ = (
        "rules",
        "players",
        "teams",
        "hand_size",
        "tricks",
        "dealer",
        "deals",
        "round",
        "hakem",
        "trump",
        "hands",
        "scores",
        "kind",
        "to_act",
        "leader",
        "trick",
        "history",
        "tricks_won",
        "team_tricks",
        "deck",
        "stock",
        "redeals",
        "shown",
        "discards",
        "draw_choices",
        "bam_team",
        "result",
        "_legal",
    )
    _spell = staticmethod(_spell_event)
    stock: int  # the deck's next undealt card; set by each deal, not __init__

    def __init__(self, rules: HokmRules, dealer: SeededDealer | FixedDealer | ChanceDealer) -> None:
        self.rules = rules
        self.players = n = rules.players
        self.teams = rules.teams
        self.hand_size = rules.hand_size  # copied: properties cost a call on hot paths
        self.tricks = rules.tricks
        self.dealer = dealer
        self.deals = 0
        self.round = 0
        self.scores = [0] * self.teams
        self.result: Result | None = None
        # Record events. The frequent ones, decisions and deals, are compact tuples
        # spelled out as dicts only when read (see `events` and `_spell`).
        self._log = []
        self._spelled = []
        self.bam_team: int | None = None
        self.trump: int | None = None
        self.kind: HokmKind | None = None
        self.to_act: int | None = None
        self._legal: tuple[Any, ...] | None = None
        turned = dealer.ace_draw(rules.deck)
        self.hakem = (len(turned) - 1) % n
        self._log.append({"type": "ace_draw", "cards": [CARD_NAMES[c] for c in turned], "hakem": self.hakem})
        self._start_round()

    # -- the decision interface ------------------------------------------

    # legal_actions, apply and push compare self.kind by identity: only this class sets it,
    # always to a HokmKind member or None, and `==` on a str subclass skips the interpreter's
    # str fast path: it cost about 4% of a whole match (bench/engine.py's loop, in interleaved pairs).
    # Every kind that comes from outside is compared with `==`.

    def legal_actions(self) -> tuple[Any, ...]:
        """The pending decision's legal actions (empty when the match is over)."""
        legal = self._legal
        if legal is None:
            kind = self.kind
            if kind is PLAY:  # the commonest question: inline
                seat = self.to_act
                assert seat is not None  # a decision is pending: a seat is to act
                hand = self.hands[seat]
                trick = self.trick
                if not trick:
                    legal = tuple(hand)
                else:
                    led = trick[0] // 13 * 13
                    lo = bisect_left(hand, led)
                    hi = bisect_left(hand, led + 13, lo)
                    legal = tuple(hand[lo:hi]) if lo < hi else self._void_legal(hand)
            elif kind is DISCARD:
                seat = self.to_act
                assert seat is not None
                legal = tuple(combinations(self.hands[seat], DISCARDS))
            else:
                legal = _FIXED_LEGAL[kind]
            self._legal = legal
        return legal

    def random_action(self, rng: Random) -> Any:
        """A legal action drawn by ``rng``: what the referee plays for a seat that faulted.

        Every game's state has it, so the referee substitutes without knowing
        the game; Hokm's legal actions are few enough to list and pick from.
        """
        return rng.choice(self.legal_actions())

    def apply(self, action: Any) -> None:
        """Take ``action`` for the seat to act, or raise :class:`IllegalAction` saying why."""
        if self.kind is DISCARD:
            self._apply_discard(action)
            return
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        # `in` alone would take True for the card 1 or 0 for False: types must match too.
        if action in legal and type(action) is type(legal[0]):
            if self.kind is PLAY:  # push's hot path, inlined: a call is a tenth of a play's cost
                seat = self.to_act
                assert seat is not None
                self._legal = None
                self._log.append((self.round, seat, PLAY, action))
                self.hands[seat].remove(action)
                trick = self.trick
                trick.append(action)
                if len(trick) < self.players:
                    self.to_act = (seat + 1) % self.players
                else:
                    self._complete_trick()
                return
            self.push(action)
            return
        raise IllegalAction(self._why_illegal(action))

    def _apply_discard(self, action: Any) -> None:
        # Checked against the hand, not the 78 legal pairs: a discard is two cards held.
        # A pair compares equal with bools or floats in it, so check each card's type.
        if isinstance(action, (tuple, list)) and len(action) == DISCARDS and all(type(c) is int for c in action):
            pair = tuple(sorted(action))
            seat = self.to_act
            assert seat is not None  # DISCARD is pending
            hand = self.hands[seat]
            if pair[0] != pair[1] and pair[0] in hand and pair[1] in hand:
                self.push(pair)
                return
        raise IllegalAction(self._why_illegal(action))

    def push(self, action: Any) -> None:
        """Take a legal ``action`` without checking it (the trusted door)."""
        kind = self.kind
        seat = self.to_act
        if kind is None or seat is None:
            raise IllegalAction("the match is over; no decision is pending")
        self._legal = None
        if kind is PLAY:  # the hot path: most decisions are plays
            self._log.append((self.round, seat, PLAY, action))
            self.hands[seat].remove(action)
            trick = self.trick
            trick.append(action)
            if len(trick) < self.players:
                self.to_act = (seat + 1) % self.players
            else:
                self._complete_trick()
            return
        self._log.append((self.round, seat, kind, action))
        if kind is DRAW:  # 2 players draw 20 times a round: inline too
            deck, pos = self.deck, self.stock
            insort(self.hands[seat], deck[pos] if action == KEEP else deck[pos + 1])
            self.draw_choices.append(action)
            self.stock = pos + 2
            if len(self.hands[1 - seat]) == self.hand_size:
                self._start_play()
            else:
                self.to_act = 1 - seat
            return
        if kind is TRUMP:
            self.trump = action
            self._after_trump()
        elif kind is REDEAL:
            if action:
                self.shown.append((seat, tuple(self.hands[seat])))
                self.redeals += 1
                self._deal_first_packets()
            else:
                self.kind = TRUMP
        elif kind is DISCARD:
            self._discard(seat, action)
        else:  # BAM
            if action:
                self.bam_team = seat % self.teams
                self.kind = PLAY  # the seat that won the 7th trick leads on
            else:
                self._end_round(seat % self.teams)

    def clone(self) -> HokmState:
        new = self._copy()
        new.hands = [h[:] for h in self.hands]
        new.scores = self.scores[:]
        new.trick = self.trick[:]
        new.history = self.history[:]
        new.tricks_won = self.tricks_won[:]
        new.team_tricks = self.team_tricks[:]
        new.shown = self.shown[:]
        new.discards = self.discards[:]
        new.draw_choices = self.draw_choices[:]
        return new

    def view(self, seat: int) -> HokmView:
        """What ``seat`` may know now: its own cards and what is public, nothing else."""
        kind = self.kind
        acting = seat == self.to_act and kind is not None
        offered = None
        if acting and kind == DRAW:
            offered = self.deck[self.stock]
        # Positional, in field order: keywords cost a named tuple a third of its build.
        return _new_view(
            (
                self.rules,
                seat,
                self.round,
                self.hakem,
                self.trump,
                kind,
                self.to_act,
                self.legal_actions() if acting else (),  # legal
                tuple(self.hands[seat]),  # hand
                tuple(map(len, self.hands)),  # hand_sizes
                tuple(zip(_PLAY_ORDER[self.players][self.leader], self.trick, strict=False)),  # trick: so far
                tuple(self.history),  # tricks
                tuple(self.tricks_won),
                tuple(self.scores),
                tuple(self.shown),  # redeals
                self.discards[seat],  # discarded
                self._draws_seen_by(seat) if self.draw_choices else (),  # draws
                offered,
                self.bam_team is not None,  # bam
                self.result,
            )
        )

    def _draws_seen_by(self, seat: int) -> tuple[DrawStep, ...]:
        """2 players: the draws ``seat`` made and what it saw of each (docs/rules.md).

        Draw ``k`` of the round (the hakem makes the even ones) turns the two
        stock cards after the first ten dealt plus ``2k``: the first is offered,
        the second joins the hand after a pass and is burned after a keep.
        """
        first = 0 if seat == self.hakem else 1
        deck, start = self.deck, PACKET_FIRST * 2
        steps = []
        for k in range(first, len(self.draw_choices), 2):
            offered, second = deck[start + 2 * k], deck[start + 2 * k + 1]
            choice = self.draw_choices[k]
            seen = second if choice == PASS or self.rules.burn_visible else None
            steps.append(DrawStep(offered, choice, seen))
        return tuple(steps)

    # -- the deal ---------------------------------------------------------

    def _start_round(self) -> None:
        self.round += 1
        self.redeals = 0
        self.shown: list[tuple[int, tuple[int, ...]]] = []
        self.bam_team = None
        self._deal_first_packets()

    def _deal_first_packets(self) -> None:
        """A new deck, five cards to each seat from the hakem, then REDEAL or TRUMP; or, when the
        dealer has no deck yet (a :class:`ChanceDealer`), the table cleared to wait for :meth:`deal`."""
        self.kind = None  # if no deck comes (a record cut short), nothing is pending
        deck = self.dealer.deck(self.deals, self.rules.deck)
        self._clear_table()
        if deck is None:
            self.to_act = None
            return
        if self.dealer.by_seat:
            deck = by_seat(self.rules, deck, self.hakem)
        self._lay_out(deck)

    def _clear_table(self) -> None:
        """No cards anywhere: what a round keeps between its deals is the hakem, the score and the shown hands."""
        n = self.players
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.deck: list[int] = []
        self.stock = 0
        self.trump = None
        self.trick: list[int] = []
        self.leader = self.hakem
        self.history: list[Trick] = []
        self.tricks_won = [0] * n
        self.team_tricks = [0] * self.teams
        self.discards: list[tuple[int, ...]] = [()] * n
        self.draw_choices: list[str] = []  # 2 players, this round: KEEP/PASS, the hakem's first

    def _lay_out(self, deck: list[int]) -> None:
        """Five cards of ``deck`` to each seat from the hakem (the table is clear), then REDEAL or TRUMP."""
        n, hakem = self.players, self.hakem
        self.deals += 1
        self.deck = deck
        self._log.append((DEAL, self.round, hakem, deck))
        for j in range(n):
            self.hands[(hakem + j) % n] = sorted(deck[PACKET_FIRST * j : PACKET_FIRST * (j + 1)])
        self.stock = PACKET_FIRST * n
        self.to_act = hakem
        self.kind = REDEAL if self._may_redeal() else TRUMP

    @property
    def awaiting_deck(self) -> bool:
        """Between two deals: no decision is pending and the match goes on. A :class:`ChanceDealer`'s
        match waits here, its table cleared, until :meth:`deal` brings the next deck."""
        return self.kind is None and self.result is None

    def deal(self, deck: Sequence[int]) -> None:
        """Lay out ``deck`` as the next deal's, when :attr:`awaiting_deck`: the door of a dealer that
        deals from outside (OpenSpiel's chance nodes, card by card). DealError when ``deck`` is no
        shuffle of the rules' deck; IllegalAction when a decision is pending or the match is over."""
        if not self.awaiting_deck:
            pending = "the match is over" if self.result is not None else f"seat {self.to_act} is to decide {self.kind}"
            raise IllegalAction(f"no deck is awaited: {pending}")
        laid = checked_deck(self.deals, deck, self.rules.deck)
        self._clear_table()
        self._lay_out(laid)

    def _may_redeal(self) -> bool:
        if self.redeals >= self.rules.max_redeals:
            return False
        return all(c % 13 < JACK for c in self.hands[self.hakem])

    def _after_trump(self) -> None:
        n, hakem = self.players, self.hakem
        if n == 2:
            self.kind = DISCARD
            return
        deck, hands, pos = self.deck, self.hands, self.stock
        while pos < len(deck):
            for j in range(n):
                hands[(hakem + j) % n].extend(deck[pos : pos + PACKET_REST])
                pos += PACKET_REST
        for hand in hands:
            hand.sort()
        self.stock = pos
        self._start_play()

    def _start_play(self) -> None:
        self.kind = PLAY
        self.to_act = self.leader = self.hakem

    def _discard(self, seat: int, pair: tuple[int, int]) -> None:
        hand = self.hands[seat]
        for card in pair:
            hand.remove(card)
        self.discards[seat] = pair
        if seat == self.hakem:
            self.to_act = 1 - seat
        else:
            self.kind = DRAW
            self.to_act = self.hakem

    # -- tricks -----------------------------------------------------------

    def _void_legal(self, hand: list[int]) -> tuple[int, ...]:
        """A seat holding none of the led suit: any card, or a trump under ``must_trump``."""
        trump = self.trump
        assert trump is not None  # PLAY is pending: trump is named
        if self.rules.void_rule == "must_trump" and not self._partner_winning():
            t = trump * 13
            lo = bisect_left(hand, t)
            hi = bisect_left(hand, t + 13, lo)
            if lo < hi:
                return tuple(hand[lo:hi])
        return tuple(hand)

    def _partner_winning(self) -> bool:
        """4 players: the seat to act's partner has played and is winning the trick."""
        if self.players != 4 or len(self.trick) < 2:
            return False
        seat = self.to_act
        assert seat is not None
        winner = (self.leader + winning_index(self.trick, self.trump)) % 4
        return winner == (seat + 2) % 4

    def _complete_trick(self) -> None:
        trick = self.trick
        n = self.players
        winner = (self.leader + winning_index(self.trick, self.trump)) % n
        self.history.append(Trick(self.leader, tuple(trick), winner))
        self.trick = []
        self.tricks_won[winner] += 1
        self.leader = self.to_act = winner
        if n == 3:
            self._after_trick_alone(winner)
        else:
            self._after_trick_teams(winner)

    def _after_trick_teams(self, winner: int) -> None:
        team = winner % self.teams
        tricks = self.team_tricks
        tricks[team] += 1
        other = 1 - team
        if self.bam_team is not None:
            if team != self.bam_team:
                self._end_round(self.bam_team, kot=False, bam="lost")
            elif tricks[team] == self.tricks:
                self._end_round(team, bam="won")
        elif tricks[team] == 7:
            if self.rules.bam and tricks[other] == 0:
                self.kind = BAM
            else:
                self._end_round(team)

    def _after_trick_alone(self, winner: int) -> None:
        won = self.tricks_won
        played = len(self.history)
        if played == 7 and won[winner] == 7:
            self._end_round(winner)
            return
        top = max(won)
        second = sorted(won)[-2]
        if second + self.tricks - played < top:
            self._end_round(won.index(top), kot=False)
        elif played == self.tricks:
            # Two seats share the most tricks: the third seat wins (6-6-5: the 5).
            self._end_round(won.index(min(won)), kot=False)

    # -- the end of a round and of the match ------------------------------

    def _end_round(self, team: int, *, kot: bool | None = None, bam: str | None = None) -> None:
        """Score a round won by ``team`` (a seat with 2 or 3 players).

        A kot is the losers taking no trick; with 3 players only a seat that
        took the first seven (the caller says ``kot=False`` otherwise).
        """
        rules, trump = self.rules, self.trump
        assert trump is not None  # a round ends in play: trump is named
        hakem_team = self.team_of(self.hakem)
        if kot is None:
            kot = self.players == 3 or all(t == 0 for i, t in enumerate(self.team_tricks) if i != team)
        points, kot_name = round_points(rules, kot=kot, hakem_side=team == hakem_team)
        gained = [0] * self.teams
        gained[team] = points
        self.scores[team] += points
        event: dict[str, Any] = {
            "type": "round_end",
            "round": self.round,
            "hakem": self.hakem,
            "trump": SUITS[trump],
            "tricks": self.tricks_won[:],
            "winners": list(self.team_seats(team)),
            "points": gained,
            "score": self.scores[:],
            "kot": kot_name,
        }
        if rules.bam:
            event["bam"] = bam
        self._log.append(event)
        if bam == "won" or self.scores[team] >= rules.target_score:
            self._finish(team, ResultReason.BAM if bam == "won" else ResultReason.SCORE)
            return
        if self.round >= MAX_ROUNDS:
            self._finish(None, ResultReason.ABORTED)
            return
        self.hakem = self._next_hakem(won_by_hakem=team == hakem_team)
        self._start_round()

    def _next_hakem(self, *, won_by_hakem: bool) -> int:
        rotation = self.rules.hakem_rotation
        if rotation == "every_round" or (rotation == "on_loss" and not won_by_hakem):
            return (self.hakem + 1) % self.players
        if rotation == "on_loss_previous" and not won_by_hakem:
            return (self.hakem - 1) % self.players
        return self.hakem

    def _finish(self, team: int | None, reason: ResultReason) -> None:
        """The match is over: won by ``team``, or by nobody (None: aborted)."""
        winners = () if team is None else self.team_seats(team)
        self.result = Result(winners, reason, tuple(self.scores))
        self.kind = None
        self.to_act = None
        self._log.append(
            {
                "type": "result",
                "score": self.scores[:],
                "winners": list(self.result.winners),
                "reason": reason,
            }
        )

    # -- explaining an illegal action ---------------------------------------

    def _why_illegal(self, action: Any) -> str:
        kind, seat = self.kind, self.to_act
        if kind is None or seat is None:
            return f"the match is over; no decision is pending (got {action!r})"
        if kind == PLAY:
            return self._why_illegal_play(seat, action)
        if kind == TRUMP:
            return f"seat {seat} named trump {action!r}: expected a suit index 0-3 ({', '.join(SUITS)})"
        if kind == DISCARD:
            return self._why_illegal_discard(seat, action)
        if kind == DRAW:
            return f"seat {seat} answered DRAW with {action!r}: expected 'keep' or 'pass'"
        return f"seat {seat} answered {kind} with {action!r}: expected true or false"

    def _why_illegal_play(self, seat: int, card: Any) -> str:
        if type(card) is not int or not 0 <= card < 52:
            return f"seat {seat} played {card!r}, which is not a card"
        name = CARD_NAMES[card]
        hand = self.hands[seat]
        if card not in hand:
            return f"seat {seat} played {name!r} but does not hold it: holds {names(hand)}"
        led = self.trick[0] // 13
        follow = [c for c in hand if c // 13 == led]
        if follow:
            return f"seat {seat} played {name!r} but must follow {SUIT_NAMES[led]}: holds {names(follow)}"
        trump = self.trump
        assert trump is not None  # PLAY is pending: trump is named
        trumps = [c for c in hand if c // 13 == trump]
        partner = " with its partner not winning the trick" if self.players == 4 else ""
        return (
            f"seat {seat} played {name!r} but, void in {SUIT_NAMES[led]}{partner}, "
            f"must trump ({SUIT_NAMES[trump]}): holds {names(trumps)}"
        )

    def _why_illegal_discard(self, seat: int, pair: Any) -> str:
        shown = pair
        if isinstance(pair, (tuple, list)):
            shown = [CARD_NAMES[c] if type(c) is int and 0 <= c < 52 else c for c in pair]
            if len(pair) == DISCARDS and len(set(pair)) == DISCARDS:
                strangers = [c for c in pair if c not in self.hands[seat]]
                if strangers and all(type(c) is int and 0 <= c < 52 for c in strangers):
                    return (
                        f"seat {seat} discarded {shown} but does not hold "
                        f"{names(strangers)}: holds {names(self.hands[seat])}"
                    )
        return f"seat {seat} discarded {shown!r}: must discard exactly two different cards it holds"


# -- building and rebuilding matches ---------------------------------------


def new_match(
    rules: HokmRules, seed: int | str, dealer: SeededDealer | FixedDealer | ChanceDealer | None = None
) -> HokmState:
    """A match whose every shuffle follows from ``seed``, or that ``dealer`` deals (a staged deal)."""
    return HokmState(rules, dealer or SeededDealer(seed))


def action_to_json(kind: str, action: Any) -> Any:
    """An action as a record and the protocol spell it (docs/records.md, actions by kind)."""
    if kind == PLAY:
        return CARD_NAMES[action]
    if kind == TRUMP:
        return SUITS[action]
    if kind == DISCARD:
        return [CARD_NAMES[c] for c in action]
    return action  # DRAW's "keep"/"pass", REDEAL's and BAM's bools


def action_from_json(kind: str, value: Any) -> Any:
    """The record's spelling of an action of ``kind`` -> the engine's value.

    Raises :class:`ActionError` quoting the value when it spells no action of
    that kind; whether the action is *legal* is :meth:`HokmState.apply`'s call.
    """
    if kind not in KINDS:
        raise ActionError(f"{kind!r} is not a decision kind: expected one of {', '.join(KINDS)}")
    try:
        if kind == PLAY:
            return parse_card(value)
        if kind == TRUMP:
            return parse_suit(value)
    except CardError as error:
        raise ActionError(f"{kind}: {error}") from None
    if kind == DISCARD:
        if not isinstance(value, list) or len(value) != DISCARDS:
            raise ActionError(f"DISCARD: {value!r} is not a list of two cards")
        try:
            return tuple(sorted(parse_card(v) for v in value))
        except CardError as error:
            raise ActionError(f"DISCARD: {error}") from None
    if kind == DRAW:
        if isinstance(value, str) and value in _DRAWS:
            return _DRAWS[_DRAWS.index(value)]  # the engine's own constant
        raise ActionError(f"DRAW: {value!r} is neither 'keep' nor 'pass'")
    if type(value) is bool:
        return value
    raise ActionError(f"{kind}: {value!r} is neither true nor false")


# Event fields the engine writes; a record may carry more (times, notes).
ENGINE_EVENTS = ("ace_draw", "deal", "decision", "round_end", "result")


def dealer_from_events(rules: HokmRules, events: Iterable[dict[str, Any]]) -> FixedDealer:
    """The decks of a record, to deal the same match again."""
    ace: list[int] | None = None
    decks: list[list[int]] = []
    try:
        for event in events:
            if event.get("type") == "ace_draw" and ace is None:
                ace = [parse_card(c) for c in event["cards"]]
            elif event.get("type") == "deal":
                decks.append([parse_card(c) for c in event["deck"]])
    except (CardError, KeyError, TypeError) as error:
        raise ReplayError(f"a deal in the record cannot be read: {error}") from None
    if ace is None:
        raise ReplayError("the record has no ace_draw event")
    return FixedDealer(ace, decks)


def iter_replay(rules: HokmRules, events: Sequence[dict[str, Any]]) -> Iterator[HokmState]:
    """Re-play a record's decisions, yielding the state after each one (see
    :func:`waraq.referee.games.replaying.iter_replay`): every event the engine
    produces must equal the record's on the fields the engine writes."""
    return replaying.iter_replay(
        events,
        start=lambda recorded: HokmState(rules, dealer_from_events(rules, recorded)),
        engine_events=ENGINE_EVENTS,
        dealing_events=("deal", "decision"),
        action_from_json=action_from_json,
        refused=(ActionError, IllegalAction),
    )


def replay(rules: HokmRules, events: Sequence[dict[str, Any]]) -> HokmState:
    """The state at the end of a record (see :func:`iter_replay`)."""
    return replaying.replay_to_end(
        iter_replay(rules, events), lambda: HokmState(rules, dealer_from_events(rules, events))
    )
