"""Boards: one deal played under every seating of a duplicate set, and what a board says about its bots.

A board is the matches (its *rooms*) of one deal of the ladder (``matches.deal``
in the database): the same decks and first hakem or first player, the bots
moved on by one seat from room to room (ladder/play/matchmaking.py's rotations), so
each side of the board held every side's cards once. With two teams that is
two rooms, the teams swapped; with each seat a side, one room per seat. A
ladder without duplicate deals has boards of one room.

Every room of a Hokm board is dealt by a :class:`SeatDealer` (:func:`dealer`):
the hakem of a later round depends on the rounds before, and a deck dealt
from another seat gives every hand to another player, so without it the rooms
share the luck of the first round only.

A board is *complete* when every room was played and none was cancelled (a bot
suspended mid-board cancels the rest of it). A run killed mid-board leaves the
board's other rooms planned, and the next run plays them: a board is never left
half played, only half rated while it waits.

What a board says, paired, is what each side did on the same cards as the
others: its *board ranks* (each side's ranks over the rooms, summed: lower is
better, equal sums tie), which the ladder's TrueSkill rates once per board, and
its *comparisons* (every two sides of every room, for the batch rating of
ladder/stats/strength.py, which treats the board as one cluster so the correlation
of its rooms is counted, not ignored). Nothing here reads the database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from waraq.ladder.stats import ratings as rt
from waraq.ladder.stats.strength import Comparison
from waraq.referee.games import registry
from waraq.referee.games.dealers import SeatDealer

Side = dict[int, int]  # a side's bots and the seats each holds


class Result(Protocol):
    """A played match as a board reads it; the store's rows (waraq.ladder.storage.store.Played) are
    ones. Named here because the statistics import nothing of the ladder's storage."""

    @property
    def id(self) -> int: ...
    @property
    def deal(self) -> int: ...  # its board: the matches of one deal
    @property
    def seats(self) -> tuple[int, ...]: ...
    @property
    def winners(self) -> tuple[int, ...]: ...
    @property
    def score(self) -> tuple[int, ...]: ...
    @property
    def faulty(self) -> tuple[int, ...]: ...


@dataclass(frozen=True)
class Room:
    """One match of a board: who sat where, and the sides' ranks (None: no side won, so unrated)."""

    match_id: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...] | None


@dataclass(frozen=True)
class Board:
    deal: int
    rooms: tuple[Room, ...]  # the rooms played (rated or not), in planned order
    size: int  # the rooms of a whole board

    @property
    def complete(self) -> bool:
        return len(self.rooms) == self.size

    @property
    def rated(self) -> tuple[Room, ...]:
        return tuple(room for room in self.rooms if room.ranks is not None)

    @property
    def bots(self) -> set[int]:
        return {bot for room in self.rooms for bot in room.seats}


def dealer(game: str, rooms: int, dealing_seed: int | str) -> SeatDealer | None:
    """The dealer of a room of a board of ``rooms``: in a game that deals by seat (the registry's
    ``deals_by_seat``: Hokm) one that deals each round's hands to the same seats whoever is hakem,
    so a board's rooms share the cards of every round, not only of the first (referee/games/dealers.py
    SeatDealer); None: the game's own (Hand's rounds already start from the same seat in every room;
    a board of one room has nothing to share)."""
    return SeatDealer(dealing_seed) if registry.entry(game).deals_by_seat and rooms > 1 else None


def room(played: Result, layout: rt.Layout) -> Room:
    ranks = rt.ranks(layout, played.winners, played.score, played.faulty)
    return Room(played.id, played.seats, None if ranks is None else tuple(ranks))


def boards(results: Iterable[Result], layout: rt.Layout, size: int) -> list[Board]:
    """The boards of these results (rated and unrated matches), by deal, in planned order."""
    rooms: dict[int, list[Room]] = {}
    for played in results:
        rooms.setdefault(played.deal, []).append(room(played, layout))
    return [Board(deal, tuple(found), size) for deal, found in rooms.items()]


def outcome(board: Board, layout: rt.Layout) -> tuple[list[Side], list[int]] | None:
    """The board's sides (as its first rated room seats them) and their board ranks; None if no room is rated.

    A side keeps its bots from room to room (a rotation moves whole sides), so a
    side is found in every room by its set of bots. A board of one room ranks
    its sides as that room does.
    """
    rated = board.rated
    if not rated:
        return None
    sides = rt.sides(rated[0].seats, layout)
    index = {frozenset(side): number for number, side in enumerate(sides)}
    totals = [0] * len(sides)
    for each in rated:
        assert each.ranks is not None
        for side, rank in zip(rt.sides(each.seats, layout), each.ranks, strict=True):
            key = frozenset(side)
            if key not in index:
                raise ValueError(f"match {each.match_id} does not seat the sides of its board (deal {board.deal})")
            totals[index[key]] += rank
    distinct = sorted(set(totals))
    return sides, [distinct.index(total) for total in totals]


def comparisons(board: Board, layout: rt.Layout) -> list[Comparison]:
    """Every two sides of every rated room, the side that ranked better scoring 1 (0.5 the same rank)."""
    out = []
    for each in board.rated:
        assert each.ranks is not None
        sides = rt.sides(each.seats, layout)
        for a in range(len(sides)):
            for b in range(a + 1, len(sides)):
                out.append(Comparison(_entries(sides[a]), _entries(sides[b]), _score(each.ranks[a], each.ranks[b])))
    return out


def head_to_head(board: Board, layout: rt.Layout, a: int, b: int) -> float | None:
    """Bot ``a``'s board score against ``b``: its mean result over the rated rooms where they sat on
    different sides (1 ranked better, 0.5 the same rank, 0 worse); None if there is none."""
    scores = []
    for each in board.rated:
        assert each.ranks is not None
        side_of = {bot: seat % layout.sides for seat, bot in enumerate(each.seats)}
        if a in side_of and b in side_of and side_of[a] != side_of[b]:
            scores.append(_score(each.ranks[side_of[a]], each.ranks[side_of[b]]))
    return sum(scores) / len(scores) if scores else None


def same_cards(board: Board, layout: rt.Layout) -> list[Comparison]:
    """Per rated room, the comparison of the side in seat 0 with the side in seat 1: the same cards each
    room, held by different bots (what ρ, the correlation between the rooms, is measured on)."""
    out = []
    for each in board.rated:
        assert each.ranks is not None
        sides = rt.sides(each.seats, layout)
        out.append(Comparison(_entries(sides[0]), _entries(sides[1]), _score(*each.ranks[:2])))
    return out


def clusters(found: Sequence[Board], layout: rt.Layout) -> list[list[Comparison]]:
    """The comparisons of each board with any: what ladder/stats/strength.py fits."""
    return [c for c in (comparisons(board, layout) for board in found) if c]


def _entries(side: Mapping[int, int]) -> tuple[int, ...]:
    """A side as strength.Comparison takes it: each bot once per seat it holds."""
    return tuple(bot for bot, seats in sorted(side.items()) for _ in range(seats))


def _score(rank: int, other: int) -> float:
    return 1.0 if rank < other else 0.5 if rank == other else 0.0
