"""Hokm's actions and one seat's view as fixed-size numbers, for learning agents (numpy only).

Everything here is a function of one seat's :class:`~waraq.referee.games.hokm.engine.HokmView`:
never of the state, so an encoding cannot leak what the seat may not know. Legality
is the view's own ``legal``, the engine's; nothing here judges a move.

Actions: one discrete space for every decision kind and player count
(:data:`ACTIONS` = 1388 indices):

=========  ===========  ================================================
indices    kind         the engine's action
=========  ===========  ================================================
0-51       PLAY         the card (``suit * 13 + rank``, cards.py)
52-55      TRUMP        the suit index 0-3 (S H D C)
56-1381    DISCARD      a sorted pair of cards, in the order of
                        ``itertools.combinations(range(52), 2)`` (C(52,2) = 1326)
1382-1383  DRAW         ``"keep"``, ``"pass"``
1384-1385  REDEAL       ``False``, ``True``
1386-1387  BAM          ``False``, ``True``
=========  ===========  ================================================

:func:`action_index` maps (kind, action) to its index, :func:`action_of` an index
back to the engine's action, checked against the view (ValueError naming it when it
is not legal now), and :func:`legal_mask` gives the view's legal actions as an
``int8`` mask of length :data:`ACTIONS` (all zeros when the seat is not to act).

Observation: :func:`encode` gives a ``float32`` vector, every value in [0, 1], of
:func:`observation_size(players)` values (501 for 4 players, 445 for 3, 491 for 2).
Seats are *relative*: position ``r`` is the seat ``r`` places after the observer
(0 is the observer itself; with 4 players 2 is its partner). The blocks, in order
(``n`` players; :func:`layout` gives each block's offset and length):

* ``hand`` (52): the cards the seat holds;
* ``trick`` (n x 52): the trick in progress, one 52-card plane per relative seat;
* ``played`` (n x 52): the cards of this round's completed tricks, per relative seat
  that played them (so a void shown by play can be read);
* ``trump`` (4): the trump suit one-hot, zeros before it is named;
* ``kind`` (6): the pending decision one-hot in ``HokmKind`` order (TRUMP, PLAY,
  DISCARD, DRAW, REDEAL, BAM), whoever makes it; zeros when the match is over;
* ``to_act``, ``hakem``, ``leader`` (n each): relative seats one-hot (``to_act``
  zeros when the match is over);
* ``tricks_won`` (n): per relative seat, this round, divided by the round's tricks;
* ``scores`` (n sides, 2 with 4 players): per relative side (the observer's first),
  divided by ``target_score`` and capped at 1;
* ``hand_sizes`` (n): per relative seat, divided by the hand size;
* ``bam`` (1): a side has called bam and plays on;
* 2 and 3 players, ``removed`` (52): the cards out of the deck (``removed_cards``);
* 2 players, ``discarded`` (52): this seat's own discards; ``burned`` (52): the cards
  this seat saw leave play in its draws (the offered card it passed, the burned card
  after a keep when ``burn_visible``); ``offered`` (52): the stock's top card while
  this seat decides DRAW.

Rules that do not change within a match (target, void rule, rotation) are not
encoded beyond the scalings above; an agent trained on one rules set knows them.
Redeals' shown hands are not encoded: a redeal reshuffles every card.
"""

from __future__ import annotations

import functools
from itertools import combinations
from typing import Any

import numpy as np

from waraq.referee.games.cards import CARD_NAMES, SUITS, parse_card
from waraq.referee.games.hokm.engine import KEEP, KINDS, PASS, HokmKind, HokmView
from waraq.referee.games.hokm.rules import HokmRules

CARDS = 52
PLAY_BASE = 0
TRUMP_BASE = PLAY_BASE + CARDS
DISCARD_BASE = TRUMP_BASE + len(SUITS)
PAIRS: tuple[tuple[int, int], ...] = tuple(combinations(range(CARDS), 2))
DRAW_BASE = DISCARD_BASE + len(PAIRS)
REDEAL_BASE = DRAW_BASE + 2
BAM_BASE = REDEAL_BASE + 2
ACTIONS = BAM_BASE + 2  # 1388

_PAIR_INDEX = {pair: i for i, pair in enumerate(PAIRS)}
_DRAWS = (KEEP, PASS)
_KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}
_NO_ACTIONS = np.zeros(ACTIONS, dtype=np.int8)  # copied for each mask (a copy is writeable)
_NO_ACTIONS.flags.writeable = False


def action_index(kind: str, action: Any) -> int:
    """The index of the engine's ``action`` of decision ``kind``; ValueError when it spells none."""
    if kind == HokmKind.PLAY:
        if type(action) is int and 0 <= action < CARDS:
            return PLAY_BASE + action
    elif kind == HokmKind.TRUMP:
        if type(action) is int and 0 <= action < len(SUITS):
            return TRUMP_BASE + action
    elif kind == HokmKind.DISCARD:
        if isinstance(action, (tuple, list)) and len(action) == 2 and all(type(c) is int for c in action):
            index = _PAIR_INDEX.get((min(action), max(action)))
            if index is not None:
                return DISCARD_BASE + index
    elif kind == HokmKind.DRAW:
        if action in _DRAWS:
            return DRAW_BASE + _DRAWS.index(action)
    elif kind in (HokmKind.REDEAL, HokmKind.BAM):
        if type(action) is bool:
            return (REDEAL_BASE if kind == HokmKind.REDEAL else BAM_BASE) + int(action)
    raise ValueError(f"{action!r} is no {kind} action")


def decode(index: int | np.integer) -> tuple[HokmKind, Any]:
    """The (kind, engine action) an index stands for, legal or not; ValueError outside the space."""
    if type(index) is not int and not isinstance(index, np.integer):
        raise ValueError(f"action index {index!r} is not an integer")
    i = int(index)
    if not 0 <= i < ACTIONS:
        raise ValueError(f"action index {i} is outside the action space 0-{ACTIONS - 1}")
    if i < TRUMP_BASE:
        return HokmKind.PLAY, i - PLAY_BASE
    if i < DISCARD_BASE:
        return HokmKind.TRUMP, i - TRUMP_BASE
    if i < DRAW_BASE:
        return HokmKind.DISCARD, PAIRS[i - DISCARD_BASE]
    if i < REDEAL_BASE:
        return HokmKind.DRAW, _DRAWS[i - DRAW_BASE]
    if i < BAM_BASE:
        return HokmKind.REDEAL, bool(i - REDEAL_BASE)
    return HokmKind.BAM, bool(i - BAM_BASE)


def describe(index: int | np.integer) -> str:
    """An index for messages: ``17 (PLAY 6H)``."""
    kind, action = decode(index)
    if kind == HokmKind.PLAY:
        shown = CARD_NAMES[action]
    elif kind == HokmKind.TRUMP:
        shown = SUITS[action]
    elif kind == HokmKind.DISCARD:
        shown = " ".join(CARD_NAMES[c] for c in action)
    else:
        shown = str(action).lower()
    return f"{int(index)} ({kind} {shown})"


def action_of(index: int | np.integer, view: HokmView) -> Any:
    """The engine's action for ``index``, if it is legal for ``view``'s seat now; else ValueError naming it."""
    kind, action = decode(index)
    if view.kind is None:
        raise ValueError(f"action index {describe(index)} is not legal: the match is over")
    if view.to_act != view.seat:
        raise ValueError(
            f"action index {describe(index)} is not legal: seat {view.to_act} is to decide {view.kind}, "
            f"not seat {view.seat}"
        )
    if kind != view.kind:
        raise ValueError(f"action index {describe(index)} is not legal: seat {view.seat} is to decide {view.kind}")
    for legal in view.legal:
        if legal == action and type(legal) is type(action):
            return legal  # the engine's own value
    shown = ", ".join(describe(action_index(view.kind, a)) for a in view.legal[:8])
    more = f" and {len(view.legal) - 8} more" if len(view.legal) > 8 else ""
    raise ValueError(f"action index {describe(index)} is not legal for seat {view.seat} now: legal are {shown}{more}")


def legal_mask(view: HokmView) -> np.ndarray:
    """``int8`` of length :data:`ACTIONS`: 1 at each of the view's legal actions, else 0."""
    mask = _NO_ACTIONS.copy()
    kind = view.kind
    # Item by item: a handful of items set costs less than one fancy-indexed set of them.
    if kind == HokmKind.PLAY:  # the commonest: a PLAY's index is its card
        for card in view.legal:
            mask[card] = 1
    elif kind is not None:
        for action in view.legal:
            mask[action_index(kind, action)] = 1
    return mask


# -- the observation ---------------------------------------------------------


def layout(players: int) -> dict[str, tuple[int, int]]:
    """Each block of the observation for ``players`` seats: name -> (offset, length)."""
    sides = 2 if players == 4 else players
    blocks = [
        ("hand", CARDS),
        ("trick", players * CARDS),
        ("played", players * CARDS),
        ("trump", len(SUITS)),
        ("kind", len(KINDS)),
        ("to_act", players),
        ("hakem", players),
        ("leader", players),
        ("tricks_won", players),
        ("scores", sides),
        ("hand_sizes", players),
        ("bam", 1),
    ]
    if players != 4:
        blocks.append(("removed", CARDS))
    if players == 2:
        blocks += [("discarded", CARDS), ("burned", CARDS), ("offered", CARDS)]
    found: dict[str, tuple[int, int]] = {}
    offset = 0
    for name, length in blocks:
        found[name] = (offset, length)
        offset += length
    return found


@functools.cache
def observation_size(players: int) -> int:
    offset, length = list(layout(players).values())[-1]
    return offset + length


def encode(view: HokmView) -> np.ndarray:
    """``view`` as a ``float32`` vector laid out as the module docstring says."""
    rules = view.rules
    n = rules.players
    me = view.seat
    at = _offsets(n)
    out = np.zeros(observation_size(n), dtype=np.float32)
    # The 0/1 entries are gathered as indices and set in one numpy call: an item set costs as much as
    # a whole engine decision, and a view has about seventy of them.
    ones = [at["hand"] + card for card in view.hand]
    trick, played = at["trick"], at["played"]
    ones += [trick + (seat - me) % n * CARDS + card for seat, card in view.trick]
    planes = _planes(n)  # the offset of each seat's plane, relative to the observer, as a lookup
    for leader, cards, _ in view.tricks:
        first = (leader - me) % n
        ones += [played + planes[first + i] + card for i, card in enumerate(cards)]
    if view.trump is not None:
        ones.append(at["trump"] + view.trump)
    if view.kind is not None:
        ones.append(at["kind"] + _KIND_INDEX[view.kind])
    if view.to_act is not None:
        ones.append(at["to_act"] + (view.to_act - me) % n)
    ones.append(at["hakem"] + (view.hakem - me) % n)
    leader = view.trick[0][0] if view.trick else (view.tricks[-1].winner if view.tricks else view.hakem)
    ones.append(at["leader"] + (leader - me) % n)
    if view.bam:
        ones.append(at["bam"])
    if n != 4:
        ones += _removed(rules, at["removed"])
    if n == 2:
        ones += [at["discarded"] + card for card in view.discarded]
        burned = [step.offered if step.choice == PASS else step.second for step in view.draws]
        ones += [at["burned"] + card for card in burned if card is not None]
        if view.offered is not None:
            ones.append(at["offered"] + view.offered)
    out[np.fromiter(ones, np.intp, len(ones))] = 1.0  # an index array: a list would be converted slower
    offset = at["tricks_won"]
    for seat, won in enumerate(view.tricks_won):
        if won:
            out[offset + (seat - me) % n] = won / rules.tricks
    offset, sides = at["scores"], len(view.scores)
    for side, score in enumerate(view.scores):
        if score:
            out[offset + (side - me) % sides] = min(score, rules.target_score) / rules.target_score
    offset = at["hand_sizes"]
    for seat, size in enumerate(view.hand_sizes):
        out[offset + (seat - me) % n] = min(size, rules.hand_size) / rules.hand_size
    return out


@functools.cache
def _planes(players: int) -> tuple[int, ...]:
    """``_planes(n)[k]``: the offset of the card plane of relative seat ``k % n`` (``k`` up to ``2n``)."""
    return tuple((k % players) * CARDS for k in range(2 * players))


@functools.cache
def _offsets(players: int) -> dict[str, int]:
    return {name: offset for name, (offset, _) in layout(players).items()}


@functools.cache
def _removed(rules: HokmRules, offset: int) -> tuple[int, ...]:
    return tuple(offset + parse_card(card) for card in rules.removed_cards)
