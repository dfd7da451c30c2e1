"""What ``waraq ladder report`` shows, read from a ladder: data only, no HTML (report_html.py beside it renders it).

One snapshot of the database gives every part, so the standings, the plot,
the matrix and the match list describe the same matches while a run writes:

* the standings: the rows ``waraq ladder show`` prints (:func:`waraq.ladder.present.table.standings`);
* each bot's TrueSkill rating over the matches: the rating history (one row
  per bot per board, under the board's last match), placed by the number of
  matches rated or unrated up to it;
* head to head: :func:`waraq.ladder.present.table.pairs`, read from either bot's side
  (:func:`cell`);
* faults per bot, by kind;
* every match played, with its record's path (relative to the ladder folder).

Names and notes in it come from bots (a bot chooses its Hello name, a fault's
detail quotes its output): whoever renders them escapes them.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from waraq.ladder.play.folder import Ladder
from waraq.ladder.present import table
from waraq.ladder.present.table import PairStat, Standing
from waraq.ladder.storage.store import CANCELLED, DONE, PLANNED, RATED, UNRATED


@dataclass(frozen=True)
class RatingPoint:
    rated: int  # matches rated or unrated up to and including ``match``: the plot's x
    match: int  # the board's last match, under which the rating row is stored
    mu: float
    sigma: float


@dataclass(frozen=True)
class History:
    bot: str
    points: tuple[RatingPoint, ...]


@dataclass(frozen=True)
class MatchLine:
    """A match played (its result stored), as the report's list shows it."""

    id: int
    deal: int  # its board
    status: str  # rated, unrated, done (played, not rated yet) or cancelled after it was played
    bots: tuple[str, ...]  # by seat
    reason: str  # how it ended: score, forfeit, abort...
    winners: tuple[int, ...]  # seats
    score: tuple[int, ...]
    note: str | None  # why unrated or cancelled
    record: str  # relative to the ladder folder


@dataclass(frozen=True)
class Cell:
    """Bot ``a`` against bot ``b``, from ``a``'s side: its share of the matches they decided."""

    a: str
    b: str
    wins: int
    matches: int
    low: float  # Wilson's 95 % interval of the share
    high: float

    @property
    def rate(self) -> float:
        return self.wins / self.matches


@dataclass(frozen=True)
class Report:
    folder: Path
    description: str  # the game in a few words: "Hokm, 4 players, to 7"
    counts: Mapping[str, int]  # matches by status
    standings: tuple[Standing, ...]
    histories: tuple[History, ...]  # in the standings' order; a bot not yet rated has no points
    pairs: tuple[PairStat, ...]
    faults: Mapping[str, Mapping[str, int]]  # bot -> fault kind -> count, for the bots of the standings
    matches: tuple[MatchLine, ...]

    @property
    def played(self) -> int:
        return self.counts[RATED] + self.counts[UNRATED]

    @property
    def planned(self) -> int:
        return self.counts[PLANNED] + self.counts[DONE]

    def cell(self, a: str, b: str) -> Cell | None:
        return cell(self.pairs, a, b)


def cell(pairs: Sequence[PairStat], a: str, b: str) -> Cell | None:
    """``a`` against ``b`` from ``a``'s side (a pair is stored once, its better bot first); None if they never
    decided a match between them."""
    for pair in pairs:
        if (pair.a, pair.b) == (a, b):
            return Cell(a, b, pair.a_wins, pair.matches, pair.low, pair.high)
        if (pair.a, pair.b) == (b, a):
            return Cell(a, b, pair.matches - pair.a_wins, pair.matches, 1 - pair.high, 1 - pair.low)
    return None


def gather(ladder: Ladder, description: str, *, everyone: bool = False) -> Report:
    """The report of an open ladder (``everyone``: retired and removed bots too, as ``show --all``)."""
    store, config = ladder.store, ladder.config
    with store.snapshot():
        standings = table.standings(store, config, everyone=everyone)
        pairs = table.pairs(store, config.layout, everyone=everyone)
        counts = store.count_by_status()
        names = {e.id: e.name for e in store.entries()}
        history = store.rating_history()
        rows = store.match_rows()
        kinds = store.fault_kinds()
    shown = [row.bot for row in standings]
    rated_ids = [row["id"] for row in rows if row["status"] in (RATED, UNRATED)]
    return Report(
        folder=ladder.folder,
        description=description,
        counts=counts,
        standings=tuple(standings),
        histories=histories(history, names, rated_ids, shown),
        pairs=tuple(pairs),
        faults=faults_by_kind(kinds, names, shown),
        matches=tuple(_match_line(row, names) for row in rows if _was_played(row)),
    )


def histories(
    rows: Sequence[tuple[int, int, float, float]],
    names: Mapping[int, str],
    rated_ids: Sequence[int],
    shown: Sequence[str],
) -> tuple[History, ...]:
    """Each shown bot's ratings in match order, each at the count of matches rated up to its match.

    ``rows``: (match id, bot id, μ, σ) as :meth:`Store.rating_history` gives them; ``rated_ids``: the ids
    of the matches rated or unrated, ascending.
    """
    points: dict[str, list[RatingPoint]] = {name: [] for name in shown}
    for match, bot, mu, sigma in rows:
        name = names.get(bot)
        if name in points:
            points[name].append(RatingPoint(bisect.bisect_right(rated_ids, match), match, mu, sigma))
    return tuple(History(name, tuple(points[name])) for name in shown)


def faults_by_kind(
    rows: Sequence[tuple[int, str, int]], names: Mapping[int, str], shown: Sequence[str]
) -> dict[str, dict[str, int]]:
    """bot -> kind -> count for the shown bots, every shown bot present (none: an empty mapping)."""
    out: dict[str, dict[str, int]] = {name: {} for name in shown}
    for bot, kind, count in rows:
        name = names.get(bot)
        if name in out:
            out[name][kind] = out[name].get(kind, 0) + count
    return {name: dict(sorted(kinds.items())) for name, kinds in out.items()}


def _was_played(row: Mapping) -> bool:
    # A cancelled match may have been played first (a bot suspended while it was in flight): it has a reason.
    return row["status"] in (RATED, UNRATED, DONE) or (row["status"] == CANCELLED and row["reason"] is not None)


def _match_line(row: Mapping, names: Mapping[int, str]) -> MatchLine:
    return MatchLine(
        id=row["id"],
        deal=row["deal"],
        status=row["status"],
        bots=tuple(names.get(b, f"#{b}") for b in row["seats"]),
        reason=row["reason"],
        winners=tuple(row["winners"] or ()),
        score=tuple(row["score"] or ()),
        note=row["note"],
        record=row["record"],
    )
