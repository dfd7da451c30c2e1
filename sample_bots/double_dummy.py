"""Exact double-dummy values of 4-player Hokm positions: every hand known, best play by all.

4-player Hokm with the ``free`` void rule is bridge's card play with a trump suit:
13 cards each, follow suit, a trump beats the led suit, the winner leads. So Bo
Haglund's DDS, the double-dummy solver bridge programs are built on, values
its positions exactly, in C++, thousands of times faster than our alpha-beta
(:func:`waraq.bots.hokm_search.solve`). We use the ``libdds.so`` the endplay
package ships (``pip install 'waraq[analysis]'``), through ctypes and only
its ``SolveBoard``: importing endplay itself would load numpy and matplotlib
for nothing.

The encodings agree with ours: DDS's suits are S H D C (then no trump), as
``cards.SUITS``; its hands N E S W play in that order, as our seats 0 1 2 3
do, so seat ``s`` is DDS's hand ``s`` and partners 0, 2 and 1, 3 are its NS
and EW. A rank ``r`` (0 for the 2) is DDS's bit ``1 << (r + 2)``.

Who uses it: bench/search_ceiling.py, to measure what the search bot could
gain from exact values and from knowing hands. A DDS count is over all the
tricks left, while a Hokm round stops when a side has 7: who reaches 7 is
the same either way (13 tricks: exactly one side takes 7 or more), a kot is
not (a side may take the first 7 and lose later tricks), so callers read a
kot from "all the tricks left", a lower bound.
"""

from __future__ import annotations

import ctypes
import importlib.util
from collections.abc import Sequence
from functools import cache
from pathlib import Path

NO_TRUMP = 4
MEMORY_MB = 64  # the transposition table's cap, of one thread: a bot's sandbox allows 2 GiB


class DoubleDummyUnavailable(RuntimeError):
    """The DDS library cannot be loaded (endplay is not installed, or its library not for this machine)."""


class _Deal(ctypes.Structure):
    _fields_ = [
        ("trump", ctypes.c_int),
        ("first", ctypes.c_int),
        ("currentTrickSuit", ctypes.c_int * 3),
        ("currentTrickRank", ctypes.c_int * 3),
        ("remainCards", (ctypes.c_uint * 4) * 4),
    ]


class _FutureTricks(ctypes.Structure):
    _fields_ = [
        ("nodes", ctypes.c_int),
        ("cards", ctypes.c_int),
        ("suit", ctypes.c_int * 13),
        ("rank", ctypes.c_int * 13),
        ("equals", ctypes.c_int * 13),
        ("score", ctypes.c_int * 13),
    ]


@cache
def _library() -> ctypes.CDLL:
    spec = importlib.util.find_spec("endplay")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        raise DoubleDummyUnavailable("double-dummy values need endplay's DDS: pip install 'waraq[analysis]'")
    path = Path(spec.submodule_search_locations[0]) / "_dds" / "libdds.so"
    try:
        library = ctypes.CDLL(str(path))
    except OSError as error:
        raise DoubleDummyUnavailable(f"{path}: {error}") from None
    library.SolveBoard.argtypes = [
        _Deal,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.POINTER(_FutureTricks),
        ctypes.c_int,
    ]
    library.SolveBoard.restype = ctypes.c_int
    library.SetResources(MEMORY_MB, 1)  # one thread: a seat's search must not take the other cores
    return library


def available() -> bool:
    try:
        _library()
    except DoubleDummyUnavailable:
        return False
    return True


def _solve(
    trump: int | None, leader: int, trick: Sequence[int], hands: Sequence[Sequence[int]], target: int, solutions: int
) -> dict[int, int]:
    """DDS's ``SolveBoard``: per legal card of the seat to play, the tricks its side takes of
    those left (the current trick's included); with ``solutions`` 2 only the cards that reach
    ``target``."""
    deal = _Deal()
    deal.trump = NO_TRUMP if trump is None else trump
    deal.first = leader
    for i, card in enumerate(trick):
        deal.currentTrickSuit[i] = card // 13
        deal.currentTrickRank[i] = card % 13 + 2
    for seat, hand in enumerate(hands):
        row = deal.remainCards[seat]
        for card in hand:
            row[card // 13] |= 1 << (card % 13 + 2)
    found = _FutureTricks()
    code = _library().SolveBoard(deal, target, solutions, 1, ctypes.byref(found), 0)
    if code != 1:
        raise ValueError(f"DDS refused the position (code {code}): {len(trick)} on the table, hands {list(hands)}")
    values: dict[int, int] = {}
    for i in range(found.cards):
        suit, score = found.suit[i], found.score[i]
        values[suit * 13 + found.rank[i] - 2] = score
        equals = found.equals[i]  # lower cards of the suit that take the same tricks
        for rank in range(13):
            if equals >> (rank + 2) & 1:
                values[suit * 13 + rank] = score
    return values


def tricks_by_card(
    trump: int | None, leader: int, trick: Sequence[int], hands: Sequence[Sequence[int]]
) -> dict[int, int]:
    """Every legal card of the seat to play, with the most tricks its side can then take of
    those left, the current trick's included, against best defence. ``leader`` led ``trick``
    (the cards on the table, in play order); ``hands`` are the seats' cards, sorted or not."""
    return _solve(trump, leader, trick, hands, -1, 3)


def reaching(
    trump: int | None, leader: int, trick: Sequence[int], hands: Sequence[Sequence[int]], target: int
) -> frozenset[int]:
    """The legal cards of the seat to play with which its side takes at least ``target`` of the
    tricks left (1 to as many as are left). A yes-or-no question, solved far faster than
    :func:`tricks_by_card`: with 52 cards, a few milliseconds against tens."""
    values = _solve(trump, leader, trick, hands, target, 2)
    return frozenset(card for card, score in values.items() if score >= target)
