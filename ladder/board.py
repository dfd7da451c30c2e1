"""The leaderboard, head-to-head figures and exports: data first, then rich renderables.

The table ranks bots by the conservative μ − 3σ. Its last column is the
probability that each bot's skill is above the next one's (Φ of the μ
difference over the combined σ, ratings.p_above), which is what
``--until-stable`` waits on.

Head to head, bot A against bot B counts the matches where they sat on
different sides: on opposite teams (whoever their partners were) when the
game has teams, else each for itself. A wins when its side ranked better
(Hand: a lower score); two sides that tie are left out. The 95 % interval is
Wilson's score interval, which treats the matches as independent: the two
matches of a duplicate deal are not quite, so read it as a little too narrow.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import trueskill
from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from waraq.ladder import ratings as rt
from waraq.ladder.store import ACTIVE, RATED, REMOVED, RETIRED, SUSPENDED, UNRATED, Store

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Standing:
    rank: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    matches: int
    wins: int
    faults: int
    status: str
    reason: str | None
    p_above_next: float | None  # P(this bot's skill > the next row's)
    version: str | None

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.matches if self.matches else None


@dataclass(frozen=True)
class PairStat:
    a: str
    b: str
    matches: int
    a_wins: int
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.a_wins / self.matches if self.matches else math.nan


def standings(store: Store, env: trueskill.TrueSkill, *, everyone: bool = False) -> list[Standing]:
    """The table: active and suspended bots (all, with ``everyone``), best μ − 3σ first."""
    statuses = [ACTIVE, SUSPENDED] + ([RETIRED, REMOVED] if everyone else [])
    with store.snapshot():
        entries = {e.id: e for e in store.entries(statuses)}
        known = store.latest_ratings()
        tallies = store.tallies()
    ratings = {i: rt.Rating(*known[i]) if i in known else rt.prior(env) for i in entries}
    order = rt.table_order(ratings)
    out = []
    for rank, bot in enumerate(order, start=1):
        entry, rating = entries[bot], ratings[bot]
        played, wins, faults = tallies.get(bot, (0, 0, 0))
        after = order[rank] if rank < len(order) else None
        out.append(
            Standing(
                rank,
                entry.name,
                rating.mu,
                rating.sigma,
                rating.conservative,
                played,
                wins,
                faults,
                entry.status,
                entry.reason,
                rt.p_above(rating, ratings[after]) if after is not None else None,
                " ".join(v for v in (entry.hello_name, entry.hello_version) if v) or None,
            )
        )
    return out


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a win rate of ``wins`` in ``n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def pairs(store: Store, players: int | rt.Layout, *, everyone: bool = False) -> list[PairStat]:
    """Head to head for every two bots that met, the better-ranked of the two first."""
    env_names = {e.id: e.name for e in store.entries()}
    shown = {e.id for e in store.entries(None if everyone else [ACTIVE, SUSPENDED])}
    tally: dict[tuple[int, int], list[int]] = {}
    count = rt.layout(players).sides
    with store.snapshot():
        results = store.results((RATED, UNRATED))
    for played in results:
        side_ranks = rt.ranks(players, played.winners, played.score, played.faulty)
        if side_ranks is None:
            continue
        side_of = {bot: seat % count for seat, bot in enumerate(played.seats)}
        bots = sorted(b for b in side_of if b in shown)
        for i, a in enumerate(bots):
            for b in bots[i + 1 :]:
                ra, rb = side_ranks[side_of[a]], side_ranks[side_of[b]]
                if side_of[a] == side_of[b] or ra == rb:
                    continue
                counts = tally.setdefault((a, b), [0, 0])
                counts[0 if ra < rb else 1] += 1
    out = []
    for (a, b), (a_wins, b_wins) in tally.items():
        if b_wins > a_wins:
            a, b, a_wins, b_wins = b, a, b_wins, a_wins
        low, high = wilson(a_wins, a_wins + b_wins)
        out.append(PairStat(env_names[a], env_names[b], a_wins + b_wins, a_wins, low, high))
    return sorted(out, key=lambda p: (p.a, p.b))


# --- rendering -------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f} %"


class StandingsTable:
    """The leaderboard as a rich renderable (``limit``: the top rows only)."""

    def __init__(self, rows: Sequence[Standing], *, title: str | None = None, limit: int | None = None) -> None:
        self.rows = rows
        self.title = title
        self.limit = limit

    def __rich__(self) -> Table:
        table = Table(title=self.title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 0, 0, 1), pad_edge=False)
        rows = self.rows if self.limit is None else self.rows[: self.limit]
        statuses = any(row.status != ACTIVE for row in rows)
        widest = min(24, max((len(row.bot) for row in rows), default=3))
        for name in ("#", "bot", "μ", "σ", "μ−3σ", "matches", "win%", "faults", "P>next"):
            if name == "bot":
                table.add_column(name, min_width=widest, overflow="fold")
            else:
                table.add_column(name, justify="right", no_wrap=True)
        if statuses:
            table.add_column("status", no_wrap=True)
        for row in rows:
            cells = [
                str(row.rank),
                row.bot,
                f"{row.mu:.2f}",
                f"{row.sigma:.2f}",
                f"{row.conservative:.2f}",
                str(row.matches),
                _pct(row.win_rate),
                str(row.faults),
                _pct(row.p_above_next) if row.p_above_next is not None else "",
            ]
            if statuses:
                cells.append("" if row.status == ACTIVE else row.status)
            table.add_row(*cells, style="dim" if row.status != ACTIVE else None)
        if self.limit is not None and len(self.rows) > self.limit:
            table.caption = f"and {len(self.rows) - self.limit} more"
        return table


def suspensions(rows: Sequence[Standing]) -> list[Text]:
    return [
        Text.assemble((f"{r.bot} {r.status}: ", "bold red" if r.status == SUSPENDED else "bold"), r.reason or "")
        for r in rows
        if r.status != ACTIVE and r.reason
    ]


class PairsTable:
    def __init__(self, rows: Sequence[PairStat]) -> None:
        self.rows = rows

    def __rich__(self) -> RenderableType:
        table = Table(title="Head to head (95 % Wilson intervals)", title_justify="left", box=box.SIMPLE_HEAD)
        for name in ("bot", "vs", "matches", "wins", "win %", "95 % interval"):
            table.add_column(name, justify="left" if name in ("bot", "vs") else "right")
        for row in self.rows:
            table.add_row(
                row.a,
                row.b,
                str(row.matches),
                str(row.a_wins),
                f"{100 * row.rate:.1f} %",
                f"{100 * row.low:.1f} – {100 * row.high:.1f} %",
            )
        if not self.rows:
            return Group(table, Text("no two bots have met yet"))
        return table


# --- export -------------------------------------------------------------------------------------


def standings_rows(rows: Sequence[Standing]) -> list[dict]:
    return [{**asdict(r), "win_rate": r.win_rate} for r in rows]


def pair_rows(rows: Sequence[PairStat]) -> list[dict]:
    return [{**asdict(r), "rate": r.rate} for r in rows]


def to_csv(rows: Sequence[dict]) -> str:
    out = io.StringIO()
    if not rows:
        return ""
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _csv_value(v) for k, v in row.items()})
    return out.getvalue()


def _csv_value(value: object) -> object:
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return "" if value is None else value
