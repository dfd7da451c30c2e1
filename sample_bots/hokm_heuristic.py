"""A Hokm bot that plays by the strategy tips of the Persian source (seeds/000).

It decides from one seat's :class:`~waraq.referee.games.hokm.engine.HokmView` alone, as a
bot over the wire does, and keeps no memory between calls: everything it
"remembers" (cards played, who showed out of which suit) is read again from
``view.tricks`` and ``view.trick``. So it answers a replayed decision the same
way whenever it is asked. The seed only breaks ties, through a generator keyed
by the seed and the decision itself.

The tips it follows (000, «نکته‌های بازی حکم»):

* name your longest suit trump, weighted by its high cards;
* with many trumps, lead trumps to draw the opponents' trumps;
* play aces, but remember who showed out of which suit;
* do not overtake a partner who is sure to win the trick;
* second hand low, third hand high (but a card nobody after us can beat
  takes the trick at once);
* empty your shortest side suit, so you can trump it later;
* when the trick is lost anyway throw your lowest card; win as cheaply as you can.

With 3 players everyone plays alone: no partner logic applies. The source has
no tip for the 2-player discard and draw, the redeal or bam; their functions
below say what they do and why.

Each decision comes with a short note, sent as the reply's ``note`` (the
player's ``note`` attribute after it decides) and shown by ``waraq replay``:
the action, then the reason, written by the branch that chose it, as in
``lead AS: top spade, trumps drawn`` or ``duck 2C: partner's KC wins, the
lowest club``. A play's verb says what the card does to the trick: ``lead``;
``follow`` or ``ruff`` when it takes the trick so far; ``duck`` (the led suit)
or ``throw`` when it does not.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, TypeVar

from waraq.referee.games.cards import CARD_NAMES, JACK, SUIT_NAMES, SUITS
from waraq.referee.games.hokm.engine import BAM, DISCARD, DRAW, KEEP, PASS, PLAY, REDEAL, TRUMP, HokmView, winning_index

T = TypeVar("T")

# An action and the note that says why it was chosen.
Decision = tuple[Any, str]

# High-card points of A, K, Q, J when weighing a trump suit. A card of length
# counts more than any one honour: the source says three small trumps beat two
# bare high cards («دو برگ بالا بدون همراه از سه حکم کوچک ضعیف‌تر است»).
HONOUR_POINTS = {12: 4, 11: 3, 10: 2, 9: 1}
LENGTH_POINTS = 10
# «با پنج حکم یا بیشتر، زود حکم بازی کنید»: five trumps or more is long.
LONG_TRUMPS = 5


def suit(card: int) -> int:
    return card // 13


def rank(card: int) -> int:
    return card % 13


def of_suit(cards: Iterable[int], s: int) -> list[int]:
    return sorted(c for c in cards if c // 13 == s)


def spelled(cards: Iterable[int]) -> str:
    """Cards by name for a note: ``2C 3D``."""
    return " ".join(CARD_NAMES[c] for c in cards)


def suit_word(s: int, count: int = 2) -> str:
    """``spade`` for one card, ``spades`` for any other count."""
    return SUIT_NAMES[s][:-1] if count == 1 else SUIT_NAMES[s]


def named_trump(view: HokmView) -> int:
    """The trump suit: named before every decision but TRUMP and REDEAL, which never ask it."""
    assert view.trump is not None, f"{view.kind} is asked before trump is named"
    return view.trump


# -- what the table has shown: the card-counting helpers ----------------------


@dataclass(frozen=True)
class Table:
    """What this seat knows of the cards, rebuilt from the view at every call.

    ``unseen`` are the cards some other seat may hold: the deck in play minus
    this seat's hand, the cards played this round and, with 2 players, the
    cards this seat knows are out of play (its discards, the burned cards it
    saw). ``voids[seat]`` are the suits that seat has shown out of.
    """

    seat: int
    players: int
    trump: int  # a table is read only once trump is named
    unseen: frozenset[int]
    voids: tuple[frozenset[int], ...]

    @classmethod
    def of(cls, view: HokmView) -> Table:
        n = view.rules.players
        played = {c for t in view.tricks for c in t.cards} | {c for _, c in view.trick}
        gone = played | set(view.hand) | _known_out_of_play(view)
        unseen = frozenset(c for c in view.rules.deck if c not in gone)
        trump = named_trump(view)
        return cls(view.seat, n, trump, unseen, _shown_out(view, trump))

    def partner(self) -> int | None:
        return (self.seat + 2) % 4 if self.players == 4 else None

    def opponents(self) -> list[int]:
        return [s for s in range(self.players) if s not in (self.seat, self.partner())]

    def outstanding(self, s: int) -> list[int]:
        """The unseen cards of suit ``s``, low to high."""
        return of_suit(self.unseen, s)

    def is_master(self, card: int) -> bool:
        """The highest outstanding card of its suit: no unseen card of the suit beats it."""
        return all(c < card for c in self.outstanding(suit(card)))

    def shown_out(self, seat: int, s: int) -> bool:
        """``seat`` holds no card of suit ``s``: it showed out, or none is left unseen."""
        return s in self.voids[seat] or not self.outstanding(s)

    def may_hold(self, seat: int, s: int) -> bool:
        return not self.shown_out(seat, s)

    def can_ruff(self, seat: int, s: int) -> bool:
        """``seat`` has shown out of side suit ``s`` and may still hold a trump."""
        return s != self.trump and self.shown_out(seat, s) and self.may_hold(seat, self.trump)

    def can_beat(self, seat: int, card: int, led: int) -> bool:
        """Whether ``seat``, yet to play, may beat ``card``, the winning card of a trick led in ``led``.

        Reasoned from the cards played and the voids shown: a seat that has
        not shown out of the led suit is taken to follow it.
        """
        trump = self.trump
        if suit(card) == led:
            higher = any(c > card for c in self.outstanding(led))
            if higher and self.may_hold(seat, led):
                return True
            return led != trump and self.can_ruff(seat, led)
        # ``card`` is a trump on a side-suit trick: only a higher trump beats it.
        return self.shown_out(seat, led) and any(c > card for c in self.outstanding(trump))

    def is_sure(self, card: int, led: int, later: Sequence[int]) -> bool:
        """No seat of ``later`` (opponents still to play) can beat ``card``."""
        return not any(self.can_beat(seat, card, led) for seat in later)


def _known_out_of_play(view: HokmView) -> set[int]:
    """2 players: cards this seat knows nobody holds (its discards, burned cards it saw)."""
    out = set(view.discarded)
    for step in view.draws:
        if step.choice == PASS:
            out.add(step.offered)  # passed cards are burned
        elif step.second is not None:
            out.add(step.second)  # a keep burns the next card, seen if burn_visible
    return out


def _shown_out(view: HokmView, trump: int) -> tuple[frozenset[int], ...]:
    """Per seat, the suits it has shown out of this round.

    A seat that did not follow the led suit holds none of it. Under
    ``must_trump`` a seat that showed out and did not trump (its partner not
    winning the trick then) holds no trump either.
    """
    n = view.rules.players
    must_trump = view.rules.void_rule == "must_trump"
    voids: list[set[int]] = [set() for _ in range(n)]
    tricks = [list(t.plays(n)) for t in view.tricks]
    if view.trick:
        tricks.append(list(view.trick))
    for plays in tricks:
        led = suit(plays[0][1])
        for i, (seat, card) in enumerate(plays[1:], start=1):
            if suit(card) == led:
                continue
            voids[seat].add(led)
            if must_trump and suit(card) != trump:
                before = [c for _, c in plays[:i]]
                winner = plays[winning_index(before, trump)][0]
                if n != 4 or winner != (seat + 2) % 4:
                    voids[seat].add(trump)
    return tuple(frozenset(v) for v in voids)


# -- the bot --------------------------------------------------------------------


class HeuristicPlayer:
    """Plays every Hokm decision by the source's tips; see the module docstring."""

    def __init__(self, seed: int | str = 0) -> None:
        self.seed = seed
        self.note = ""  # why the last decision went as it did: the server sends it with the reply

    def __call__(self, view: HokmView) -> Any:
        rng = random.Random(self._decision_key(view))
        assert view.kind is not None, "a bot is asked only while a decision is pending"
        action, self.note = _DECIDE[view.kind](view, rng)
        return action

    def _decision_key(self, view: HokmView) -> str:
        # The same decision (same seat, round, cards, trick) gets the same
        # tie-breaks whenever and in whatever order it is asked.
        return (
            f"heuristic/{self.seed}/{view.seat}/{view.round}/{view.scores}/{view.kind}/"
            f"{view.hand}/{len(view.tricks)}/{view.trick}/{view.offered}/{len(view.draws)}"
        )


def _pick(rng: random.Random, cards: Sequence[T], key: Callable[[T], Any]) -> T:
    """The element with the smallest ``key``; ties broken by ``rng``."""
    best = min(key(c) for c in cards)
    return rng.choice([c for c in cards if key(c) == best])


# -- TRUMP ------------------------------------------------------------------------


def trump_strength(hand: Sequence[int], s: int) -> int:
    """Length first, then high cards: «بلندترین خالتان را حکم کنید»."""
    cards = of_suit(hand, s)
    return LENGTH_POINTS * len(cards) + sum(HONOUR_POINTS.get(rank(c), 0) for c in cards)


def choose_trump(view: HokmView, rng: random.Random) -> Decision:
    chosen = _pick(rng, view.legal, lambda s: -trump_strength(view.hand, s))
    held = of_suit(view.hand, chosen)
    honours = "".join(CARD_NAMES[c][:-1] for c in reversed(held) if rank(c) in HONOUR_POINTS) or "no honours"
    note = f"trump {SUITS[chosen]}: {len(held)} {suit_word(chosen, len(held))}, {honours}"
    strength = trump_strength(view.hand, chosen)
    tied = [SUITS[s] for s in view.legal if s != chosen and trump_strength(view.hand, s) == strength]
    if tied:
        note += f"; as strong as {' '.join(tied)}, the seed chose"
    return chosen, note


# -- PLAY: leading -----------------------------------------------------------------


def choose_play(view: HokmView, rng: random.Random) -> Decision:
    table = Table.of(view)
    legal = sorted(view.legal)
    if not view.trick:
        return lead(view, table, legal, rng)
    return follow(view, table, legal, rng)


def lead(view: HokmView, table: Table, legal: list[int], rng: random.Random) -> Decision:
    trumps = of_suit(legal, table.trump)
    sides = [c for c in legal if suit(c) != table.trump]
    if trumps and not sides:
        card, which = lead_trump(table, trumps)
        return card, f"lead {CARD_NAMES[card]}: only trumps left, {which}"
    if trumps and should_draw_trumps(table, trumps):
        card, which = lead_trump(table, trumps)
        out = len(table.outstanding(table.trump))
        return card, f"lead {CARD_NAMES[card]}: drawing trumps, {len(trumps)} held and {out} unseen, {which}"
    winner = safe_winner(table, sides, rng)
    if winner is not None:
        drawn = not any(table.may_hold(s, table.trump) for s in table.opponents())
        safe = "trumps drawn" if drawn else "no opponent can ruff it"
        return winner, f"lead {CARD_NAMES[winner]}: top {suit_word(suit(winner), 1)}, {safe}"
    card, why = lead_low_from_safe_short_suit(table, sides, rng)
    return card, f"lead {CARD_NAMES[card]}: no sure winner; {why}"


def should_draw_trumps(table: Table, trumps: list[int]) -> bool:
    """Long in trumps, and an opponent may still hold one: pull them out
    («با حکم زیاد، حکم بکشید»), so our side suits cannot be trumped later."""
    opponent_trumps = any(table.may_hold(s, table.trump) for s in table.opponents())
    long = len(trumps) >= LONG_TRUMPS or len(trumps) > len(table.outstanding(table.trump))
    return opponent_trumps and long


def lead_trump(table: Table, trumps: list[int]) -> Decision:
    """The master trump if we hold it (its cheapest equal), else the lowest; and which it is."""
    top = trumps[-1]
    if table.is_master(top):
        card = cheapest_equal(table, trumps, top)
        return card, "the top trump" if card == top else f"as good as the top trump {CARD_NAMES[top]}"
    return trumps[0], "the lowest, a higher trump is unseen"


def safe_winner(table: Table, sides: list[int], rng: random.Random) -> int | None:
    """A side card that is the highest outstanding of its suit, in a suit no
    opponent can trump («آس‌ها را بازی کنید، ولی حواستان به خال تمام‌شده باشد»).
    From the longest such suit: its other cards become winners after it."""
    winners = [c for c in sides if table.is_master(c) and not opponents_can_ruff(table, suit(c))]
    if not winners:
        return None
    return _pick(rng, winners, lambda c: (-len(of_suit(sides, suit(c))), c))


def opponents_can_ruff(table: Table, s: int) -> bool:
    return any(table.can_ruff(seat, s) for seat in table.opponents())


def lead_low_from_safe_short_suit(table: Table, sides: list[int], rng: random.Random) -> Decision:
    """No sure winner to lead: a low card of a suit the opponents cannot trump.

    Preferred: a suit our partner can trump (4 players); then the shortest
    side suit, to empty it («خال خالی بسازید»).
    """
    suits = sorted({suit(c) for c in sides})
    safe = [s for s in suits if not opponents_can_ruff(table, s)]
    partner = table.partner()

    def preference(s: int) -> tuple[int, int]:
        partner_ruffs = partner is not None and table.can_ruff(partner, s)
        return (0 if partner_ruffs else 1, len(of_suit(sides, s)))

    chosen = _pick(rng, safe or suits, preference)
    if preference(chosen)[0] == 0:
        why = f"low {suit_word(chosen, 1)}, partner can ruff {suit_word(chosen)}"
    else:
        shortest = "suit no opponent can ruff" if safe else "side suit"
        why = f"low from {suit_word(chosen)}, the shortest {shortest}"
    if not safe:
        why = f"opponents can ruff every side suit; {why}"
    return of_suit(sides, chosen)[0], why


# -- PLAY: following ----------------------------------------------------------------


def follow(view: HokmView, table: Table, legal: list[int], rng: random.Random) -> Decision:
    n = view.rules.players
    trump = table.trump
    led = suit(view.trick[0][1])
    played = [c for _, c in view.trick]
    win_seat, win_card = view.trick[winning_index(played, trump)]
    later = [(view.seat + k) % n for k in range(1, n - len(view.trick))]
    later_opponents = [s for s in later if s in table.opponents()]
    beating = [c for c in legal if beats(c, win_card, trump)]
    partner_holds = win_seat == table.partner()

    if partner_holds and table.is_sure(win_card, led, later_opponents):
        # «دست یارتان را نبرید»: the partner wins anyway; give the least we can.
        card, which = throw_lowest(table, legal, led, rng)
        why = f"partner's {CARD_NAMES[win_card]} wins, {which}"
    elif not beating:
        # The trick is lost anyway: throw the lowest card.
        card, which = throw_lowest(table, legal, led, rng)
        why = f"cannot beat {CARD_NAMES[win_card]}, {which}"
    elif suit(legal[0]) == led:
        card, why = follow_suit(table, legal, beating, led, later_opponents, position=len(view.trick))
    else:
        card, why = trump_cheaply(table, beating, led, later_opponents)
    return card, f"{play_verb(card, win_card, led, trump)} {CARD_NAMES[card]}: {why}"


def play_verb(card: int, best: int, led: int, trump: int) -> str:
    """What ``card`` does to a trick led in ``led`` that ``best`` wins so far, in one word."""
    if beats(card, best, trump):
        return "follow" if suit(card) == led else "ruff"
    return "duck" if suit(card) == led else "throw"


def beats(card: int, best: int, trump: int) -> bool:
    """``card`` would take the lead from ``best``, the trick's winning card."""
    if suit(card) == suit(best):
        return card > best
    return suit(card) == trump


def follow_suit(
    table: Table,
    legal: list[int],
    beating: list[int],
    led: int,
    later_opponents: list[int],
    position: int,
) -> Decision:
    """Holding the led suit, able to beat the trick so far."""
    if not later_opponents:
        # Last to play against us: win as cheaply as possible.
        return beating[0], "the cheapest winner, no opponent plays after"
    sure = [c for c in beating if table.is_sure(c, led, later_opponents)]
    if sure:
        # Nobody after us can beat it: take the trick with the cheapest sure
        # winner, even second hand (a literal "second hand low" that gives up
        # such tricks won only 41% of 600 4-player matches against this bot).
        return sure[0], "the cheapest winner no opponent after can beat"
    if position == 1:
        # «نفر دوم پایین»: second hand low, our high card kept for later; the
        # partner (4 players) still plays after us.
        return legal[0], "second hand low"
    # «نفر سوم بالا»: third hand high, so the last seat must spend its high card.
    top = beating[-1]
    card = cheapest_equal(table, beating, top)
    return card, "third hand high" if card == top else f"third hand high, as good as {CARD_NAMES[top]}"


def trump_cheaply(table: Table, beating: list[int], led: int, later_opponents: list[int]) -> Decision:
    """Void in the led suit, with trumps that take the trick from an opponent
    (or from a partner who may still lose it): the cheapest trump nobody after
    us can beat, else the cheapest that wins now."""
    sure = [c for c in beating if table.is_sure(c, led, later_opponents)]
    if sure:
        return sure[0], f"void in {SUIT_NAMES[led]}, the cheapest trump no opponent after can beat"
    return beating[0], f"void in {SUIT_NAMES[led]}, the cheapest trump that wins for now"


def throw_lowest(table: Table, legal: list[int], led: int, rng: random.Random) -> Decision:
    """The least useful card: the lowest of the led suit when following, else a
    throw-off from the shortest side suit («خال خالی بسازید») that is not a
    sure winner, and a trump only when nothing else is left; and which it is."""
    if suit(legal[0]) == led:  # following suit: all of legal is the led suit
        return legal[0], f"the lowest {suit_word(led, 1)}"
    sides = [c for c in legal if suit(c) != table.trump]
    if not sides:
        return legal[0], f"void in {SUIT_NAMES[led]} with only trumps, the lowest"
    suits = sorted({suit(c) for c in sides})
    # A suit whose lowest card is a sure winner is kept for a trick of its own.
    no_winner = [s for s in suits if not table.is_master(of_suit(sides, s)[0])]
    chosen = _pick(rng, no_winner or suits, lambda s: len(of_suit(sides, s)))
    which = f"void in {SUIT_NAMES[led]}, low from {suit_word(chosen)}, the shortest side suit"
    if not no_winner:
        which += ", all winners"
    elif len(no_winner) < len(suits):
        which += " not all winners"
    return of_suit(sides, chosen)[0], which


def cheapest_equal(table: Table, mine: list[int], top: int) -> int:
    """The lowest of ``mine`` that is as good as ``top``: no unseen card lies
    between them (the cards in between are ours or already played)."""
    for card in sorted(mine):
        if suit(card) == suit(top) and not any(card < c < top for c in table.unseen):
            return card
    return top


# -- 2 players: DISCARD and DRAW ---------------------------------------------------


def keep_value(card: int, hand: Sequence[int], trump: int) -> int:
    """How much a card is worth keeping before the draw: trumps above all, then
    high cards and cards of long suits («lowest cards of short side suits» go)."""
    if suit(card) == trump:
        return 100 + rank(card)
    return rank(card) + 2 * len(of_suit(hand, suit(card)))


def choose_discard(view: HokmView, rng: random.Random) -> Decision:
    hand, trump = view.hand, named_trump(view)
    pair = _pick(rng, view.legal, lambda pair: sum(keep_value(c, hand, trump) for c in pair))
    # A trump is worth more than any side card, so how many side cards there are says why.
    sides = sum(1 for c in hand if suit(c) != trump)
    if sides == 0:
        why = "only trumps, the two lowest"
    elif sides == 1:
        why = "the one side card, then the lowest trump"
    elif sides == 2:
        why = "the only side cards, every trump kept"
    else:
        why = "the side cards least worth keeping, low and of short suits"
    return pair, f"discard {spelled(pair)}: {why}"


class DrawWorth(IntEnum):
    """Why a card on offer is worth having, worst to best: the whole part of its draw value."""

    LOW = 0
    LONG = 1  # it makes its suit long
    HONOUR = 2  # J or better
    TRUMP = 3


def draw_worth(card: int, hand: Sequence[int], trump: int) -> DrawWorth:
    if suit(card) == trump:
        return DrawWorth.TRUMP
    if rank(card) >= JACK:
        return DrawWorth.HONOUR
    if makes_long_suit(card, hand):
        return DrawWorth.LONG
    return DrawWorth.LOW


def draw_value(card: int, hand: Sequence[int], trump: int) -> float:
    """Worth of a card on offer: a trump, then an honour (J or better), then a
    card that makes its suit long; its rank breaks ties."""
    return draw_worth(card, hand, trump) + rank(card) / 13


def makes_long_suit(card: int, hand: Sequence[int]) -> bool:
    """Kept, the card's suit would hold a third of the hand and at least three cards."""
    length = len(of_suit(hand, suit(card))) + 1
    return length >= 3 and 3 * length >= len(hand) + 1


def choose_draw(view: HokmView, rng: random.Random) -> Decision:
    """Keep a trump, an honour or a card that makes a suit long. Anything else
    is weighed against the card a pass brings, unseen: the average worth of the
    cards this seat has not seen."""
    offered, hand, trump = view.offered, view.hand, named_trump(view)
    assert offered is not None, "DRAW shows the card on offer"
    name = CARD_NAMES[offered]
    worth = draw_worth(offered, hand, trump)
    if worth > DrawWorth.LOW:
        return KEEP, f"draw keep {name}: {_worth_words(worth, offered, hand)}"
    unknown = Table.of(view).unseen - {offered}
    average = sum(draw_value(c, hand, trump) for c in unknown) / max(len(unknown), 1)
    value = draw_value(offered, hand, trump)
    if value >= average:
        return KEEP, f"draw keep {name}: a low card, as good as the unseen next card ({value:.2f} >= {average:.2f})"
    return PASS, f"draw pass {name}: a low card, worse than the unseen next card ({value:.2f} < {average:.2f})"


def _worth_words(worth: DrawWorth, card: int, hand: Sequence[int]) -> str:
    s = suit(card)
    if worth == DrawWorth.TRUMP:
        return "a trump"
    if worth == DrawWorth.HONOUR:
        return f"a high {suit_word(s, 1)}"
    return f"makes {SUIT_NAMES[s]} long, {len(of_suit(hand, s)) + 1} of {len(hand) + 1} cards"


# -- REDEAL and BAM ------------------------------------------------------------------


def choose_redeal(view: HokmView, rng: random.Random) -> Decision:
    """Offered only for five cards without a picture card: always ask for new ones."""
    if True in view.legal:
        return True, "redeal: no A, K, Q or J in my first five"
    return False, "no redeal: not offered"


def choose_bam(view: HokmView, rng: random.Random) -> Decision:
    table = Table.of(view)
    risk = bam_risk(view, table)
    if risk is not None:
        return False, f"no bam: take the kot, {risk}"
    unseen = len(table.outstanding(table.trump))
    held = len(of_suit(view.hand, table.trump))
    trumps = f"my {held} trumps above the {unseen} unseen" if unseen else "no trump unseen"
    return True, f"bam: play on, each of my {len(view.hand)} cards wins, {trumps}"


def bam_risk(view: HokmView, table: Table) -> str | None:
    """What could lose a trick, or None when leading from our own hand alone every card
    wins: our trumps are all above the unseen ones and enough to draw them, and every
    side card is above every unseen card of its suit. The partner's cards are not
    counted: we cannot see them."""
    trump = table.trump
    trumps = of_suit(view.hand, trump)
    enemy_trumps = table.outstanding(trump)
    if enemy_trumps:
        if not trumps:
            return f"I hold no trump and {len(enemy_trumps)} are unseen"
        if len(trumps) < len(enemy_trumps):
            return f"{len(enemy_trumps)} trumps are unseen and I hold {len(trumps)}"
        if trumps[0] < enemy_trumps[-1]:
            return f"my {CARD_NAMES[trumps[0]]} is below the unseen {CARD_NAMES[enemy_trumps[-1]]}"
    for card in view.hand:
        higher = [c for c in table.outstanding(suit(card)) if c > card] if suit(card) != trump else []
        if higher:
            return f"my {CARD_NAMES[card]} can lose to the unseen {CARD_NAMES[higher[-1]]}"
    return None


_DECIDE = {
    TRUMP: choose_trump,
    PLAY: choose_play,
    DISCARD: choose_discard,
    DRAW: choose_draw,
    REDEAL: choose_redeal,
    BAM: choose_bam,
}
