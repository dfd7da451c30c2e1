"""The simplest sensible Hokm bot: take the trick as cheaply as it can, else throw the lowest card.

It is the second rung of the house bots (docs/bots.md): above ``random``,
below ``heuristic``, which counts cards and reads voids. ``greedy`` remembers
nothing and looks only at its hand and the trick on the table:

* TRUMP: the longest suit, the higher cards breaking ties;
* PLAY, leading: the highest side card (an ace first), so a winner is cashed
  before it can be trumped; only trumps left, the highest trump;
* PLAY, following: a partner (4 players) winning the trick gets the lowest
  card; else the cheapest card that takes the trick (a card of the led suit
  before a trump); else the lowest card, a side card before a trump;
* DISCARD (2 players): the two lowest side cards; DRAW: keep a trump or a
  picture card (J or better), pass anything else;
* REDEAL: always, when offered (five cards without a picture card);
  BAM: never: the kot already won is worth more than a gamble.

The PLAY rule is two pure functions on cards, :func:`greedy_lead` and
:func:`greedy_follow`, so the search bot's rollouts (sample_bots/hokm_search.py)
play the very same policy without building a view. Each decision has a
note: ``follow QS: the cheapest card that takes the trick``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from waraq.referee.games.cards import CARD_NAMES, JACK, SUITS
from waraq.referee.games.hokm.engine import BAM, DISCARD, DRAW, KEEP, PASS, PLAY, REDEAL, TRUMP, HokmView, winning_index

Decision = tuple[Any, str]


def low_key(card: int, trump: int | None) -> tuple[bool, int]:
    """Cheapness of a card to give away: any side card before a trump, then by rank."""
    return (card // 13 == trump, card % 13)


def greedy_lead(legal: Sequence[int], trump: int | None) -> int:
    """Lead the highest side card (its rank, an ace first); with only trumps, the highest trump."""
    sides = [c for c in legal if c // 13 != trump]
    return max(sides or legal, key=lambda c: c % 13)


def greedy_follow(legal: Sequence[int], trick: Sequence[int], trump: int | None, partner_winning: bool) -> int:
    """The card to play to ``trick`` (its cards in play order, not empty).

    The partner winning: the lowest card. Else the cheapest card that takes the
    trick, else the lowest. "Cheapest" and "lowest" put side cards before trumps.
    """
    if not partner_winning:
        best = trick[winning_index(trick, trump)]
        beating = [c for c in legal if beats(c, best, trump)]
        if beating:
            return min(beating, key=lambda c: low_key(c, trump))
    return min(legal, key=lambda c: low_key(c, trump))


def beats(card: int, best: int, trump: int | None) -> bool:
    """``card`` takes the trick from ``best``, the card winning it so far."""
    if card // 13 == best // 13:
        return card > best
    return card // 13 == trump


def trump_choice(hand: Sequence[int]) -> int:
    """The longest suit; between equally long suits, the one with the higher ranks."""
    return max(
        range(4),
        key=lambda s: (
            sum(1 for c in hand if c // 13 == s),
            sorted((c % 13 for c in hand if c // 13 == s), reverse=True),
        ),
    )


def discard_choice(hand: Sequence[int], trump: int) -> tuple[int, int]:
    """The two cards cheapest to give away: low side cards, then low trumps."""
    low = sorted(hand, key=lambda c: low_key(c, trump))[:2]
    return (min(low), max(low))


def keeps(card: int, trump: int) -> bool:
    """DRAW: a trump or a picture card is worth keeping."""
    return card // 13 == trump or card % 13 >= JACK


class GreedyPlayer:
    """Plays every Hokm decision by the rules of the module docstring; notes each."""

    def __init__(self, seed: int | str = 0) -> None:
        self.seed = seed  # unused: greedy breaks no ties by chance; kept for the server's factory
        self.note = ""

    def __call__(self, view: HokmView) -> Any:
        assert view.kind is not None, "a bot is asked only while a decision is pending"
        action, self.note = _DECIDE[view.kind](view)
        return action


def _play(view: HokmView) -> Decision:
    legal = view.legal
    if not view.trick:
        card = greedy_lead(legal, view.trump)
        side = card // 13 != view.trump
        return card, f"lead {CARD_NAMES[card]}: the highest {'side card' if side else 'trump, only trumps left'}"
    cards = [c for _, c in view.trick]
    winner_seat = view.trick[winning_index(cards, view.trump)][0]
    partner = view.rules.players == 4 and winner_seat == (view.seat + 2) % 4
    card = greedy_follow(legal, cards, view.trump, partner)
    best = cards[winning_index(cards, view.trump)]
    if partner:
        why = f"partner's {CARD_NAMES[best]} wins, the lowest card"
    elif beats(card, best, view.trump):
        why = f"the cheapest card that takes {CARD_NAMES[best]}"
    else:
        why = f"cannot take {CARD_NAMES[best]}, the lowest card"
    verb = "follow" if card // 13 == cards[0] // 13 else ("ruff" if card // 13 == view.trump else "throw")
    return card, f"{verb} {CARD_NAMES[card]}: {why}"


def _trump(view: HokmView) -> Decision:
    s = trump_choice(view.hand)
    held = sum(1 for c in view.hand if c // 13 == s)
    return s, f"trump {SUITS[s]}: the longest suit, {held} of {len(view.hand)}"


def _discard(view: HokmView) -> Decision:
    assert view.trump is not None
    pair = discard_choice(view.hand, view.trump)
    return pair, f"discard {CARD_NAMES[pair[0]]} {CARD_NAMES[pair[1]]}: the lowest, side cards first"


def _draw(view: HokmView) -> Decision:
    assert view.trump is not None and view.offered is not None
    name = CARD_NAMES[view.offered]
    if keeps(view.offered, view.trump):
        return KEEP, f"draw keep {name}: a trump or a picture card"
    return PASS, f"draw pass {name}: neither a trump nor a picture card"


def _redeal(view: HokmView) -> Decision:
    if True in view.legal:
        return True, "redeal: no A, K, Q or J in my first five"
    return False, "no redeal: not offered"


def _bam(view: HokmView) -> Decision:
    return False, "no bam: take the kot already won"


_DECIDE = {TRUMP: _trump, PLAY: _play, DISCARD: _discard, DRAW: _draw, REDEAL: _redeal, BAM: _bam}
