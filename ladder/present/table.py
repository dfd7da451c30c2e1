"""The leaderboard, head-to-head figures and exports: data first, then rich renderables.

The table ranks bots by their batch rating (ladder/stats/strength.py, through
ladder/play/evidence.py): an Elo fitted to every board, a team's strength the sum
of its bots', so it is the same whoever a bot was matched with. Its columns:

* ``Elo`` and ``95 %``: that rating, centred on every bot that played (their mean is 0), and its
  interval (resampled boards with ``intervals="bootstrap"``, else ±1.96 robust standard errors);
* ``score``: the expected score against the field, the mean over every other bot shown of
  the chance to beat it one to one; unlike a win rate it does not depend on who matchmaking
  happened to seat the bot with or against;
* ``μ``, ``σ``: TrueSkill, updated once per board from its paired outcome; matchmaking reads it;
* ``boards``, ``matches``, ``faults``: what the bot played, and its faults;
* ``vs next``: the stopping rule's verdict on this bot and the next row (ladder/stats/sequential.py):
  ``above`` (ordered), ``tied`` (equal within the margin), or blank (not yet known).

Head to head, bot A against bot B counts the matches where they sat on
different sides: on opposite teams (whoever their partners were) when the
game has teams, else each for itself. A wins when its side ranked better
(Hand: a lower score); two sides that tie are left out. The 95 % interval is
Wilson's score interval, which treats the matches as independent: the rooms of
a board are not (their cards are the same), so read it as approximate.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from waraq.ladder.play import evidence
from waraq.ladder.stats import ratings as rt
from waraq.ladder.stats import strength
from waraq.ladder.stats.sequential import StoppingRule, Verdict
from waraq.ladder.storage.config import LadderConfig
from waraq.ladder.storage.store import ACTIVE, RATED, REMOVED, RETIRED, SUSPENDED, UNRATED, Store
from waraq.referee.launch.bots import SpecKind

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Standing:
    rank: int
    bot: str
    elo: float | None  # the batch rating, centred on every bot that played; None before its first board
    elo_low: float | None
    elo_high: float | None
    score: float | None  # expected score against the field
    mu: float
    sigma: float
    boards: int
    matches: int
    wins: int
    faults: int
    status: str
    reason: str | None
    vs_next: str | None  # the rule's verdict on this row and the next: above, tied, open; None on the last
    version: str | None

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


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


def standings(
    store: Store,
    config: LadderConfig,
    *,
    everyone: bool = False,
    intervals: str = "robust",
    rule: StoppingRule | None = None,
) -> list[Standing]:
    """The table: active and suspended bots (all, with ``everyone``), best batch rating first.

    ``intervals``: "robust" (±1.96 cluster-robust standard errors, fast: the live view) or
    "bootstrap" (percentiles over resampled boards, what ``show`` prints).
    """
    env = rt.environment(config.trueskill)
    statuses = [ACTIVE, SUSPENDED] + ([RETIRED, REMOVED] if everyone else [])
    with store.snapshot():
        entries = {e.id: e for e in store.entries(statuses)}
        known = store.latest_ratings()
        tallies = store.tallies()
        found = evidence.gather(store, config, list(entries))
    fit = found.fit
    played = {bot: 0 for bot in entries}
    for board in found.boards:
        for bot in board.bots & played.keys():
            played[bot] += 1
    ratings = {i: rt.Rating(*known[i]) if i in known else rt.prior(env) for i in entries}
    order = sorted(entries, key=lambda b: (not played[b], -fit.elo.get(b, 0.0), -ratings[b].conservative, b))
    spans = _intervals(found, fit, intervals)
    # The field of the score and the verdicts: the bots that played (one not yet played sits at
    # the prior's 0 and would stand between neighbours).
    field = evidence.narrowed(fit, [b for b in entries if played[b]])
    verdicts = {(v.upper, v.lower): v.verdict for v in (rule or StoppingRule()).judge(field)}
    out = []
    for rank, bot in enumerate(order, start=1):
        entry, rating = entries[bot], ratings[bot]
        matches, wins, faults = tallies.get(bot, (0, 0, 0))
        after = order[rank] if rank < len(order) else None
        rated = played[bot] > 0
        low, high = spans.get(bot, (None, None)) if rated else (None, None)
        verdict = verdicts.get((bot, after)) if after is not None else None
        out.append(
            Standing(
                rank,
                entry.name,
                fit.elo[bot] if rated else None,
                low,
                high,
                field.expected_score(bot) if rated else None,
                rating.mu,
                rating.sigma,
                played[bot],
                matches,
                wins,
                faults,
                entry.status,
                entry.reason,
                None if after is None else (verdict or Verdict.OPEN).value,
                " ".join(v for v in (entry.hello_name, entry.hello_version) if v) or None,
            )
        )
    return out


def _intervals(found: evidence.Evidence, fit: strength.Fit, kind: str) -> dict[int, tuple[float, float]]:
    if kind == "bootstrap":
        return strength.bootstrap(found.clusters, list(found.everyone))
    out = {}
    for bot in fit.bots:
        half = Z95 * math.sqrt(max(fit.covariance.get((bot, bot), 0.0), 0.0))
        out[bot] = (fit.elo[bot] - half, fit.elo[bot] + half)
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
    """The leaderboard as a rich renderable (``limit``: the top rows only); its columns: the module's docstring."""

    def __init__(self, rows: Sequence[Standing], *, title: str | None = None, limit: int | None = None) -> None:
        self.rows = rows
        self.title = title
        self.limit = limit

    def __rich__(self) -> Table:
        table = Table(title=self.title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 0, 0, 1), pad_edge=False)
        rows = self.rows if self.limit is None else self.rows[: self.limit]
        statuses = any(row.status != ACTIVE for row in rows)
        widest = min(24, max((len(row.bot) for row in rows), default=3))
        for name in ("#", "bot", "Elo", "95 %", "score", "μ", "σ", "boards", "matches", "faults", "vs next"):
            if name == "bot":
                table.add_column(name, min_width=widest, overflow="fold")
            else:
                table.add_column(name, justify="left" if name == "vs next" else "right", no_wrap=True)
        if statuses:
            table.add_column("status", no_wrap=True)
        for row in rows:
            cells = [
                str(row.rank),
                row.bot,
                "–" if row.elo is None else f"{row.elo:+.0f}",
                "" if row.elo_low is None or row.elo_high is None else f"{row.elo_low:+.0f} … {row.elo_high:+.0f}",
                _pct(row.score),
                f"{row.mu:.2f}",
                f"{row.sigma:.2f}",
                str(row.boards),
                str(row.matches),
                str(row.faults),
                "" if row.vs_next in (None, Verdict.OPEN.value) else row.vs_next,
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


def dial_ins(store: Store, config: LadderConfig) -> list[str]:
    """A line for each dial-in bot: connected to the running ladder's lobby since when, from where, or not."""
    seen = store.connections()
    lines = []
    for bot in config.bots:
        if bot.bot_spec.kind is not SpecKind.DIAL_IN:
            continue
        found = seen.get(bot.name)
        if found is None or not _running(found[3]):  # a row a killed run left says nothing now
            lines.append(f"{bot.name} (dial-in): not connected")
            continue
        since, peer, streams, _ = found
        lines.append(f"{bot.name} (dial-in): connected since {since} from {peer}, {streams} stream(s) open")
    return lines


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


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
    return [{**asdict(r), "conservative": r.conservative} for r in rows]


def pair_rows(rows: Sequence[PairStat]) -> list[dict]:
    return [{**asdict(r), "rate": r.rate} for r in rows]


def export_data(store: Store, config: LadderConfig) -> dict[str, Any]:
    """Everything ``waraq ladder export --json`` writes: the ladder, standings, pairs, bots, matches, ratings."""
    with store.snapshot():
        entries = store.entries()
        names = {e.id: e.name for e in entries}
        matches = store.match_rows()
        history = store.rating_history()
    for row in matches:
        row["bots"] = [names[b] for b in row["seats"]]
    return {
        "ladder": {
            "game": config.game,
            "seed": config.seed,
            "rules": config.rules.to_dict(),
            "rules_hash": config.rules.rules_hash,
        },
        "standings": standings_rows(standings(store, config, everyone=True)),
        "pairs": pair_rows(pairs(store, config.layout, everyone=True)),
        "bots": [asdict(e) for e in entries],
        "matches": matches,
        "ratings": [{"match": m, "bot": names[b], "mu": mu, "sigma": s} for m, b, mu, s in history],
    }


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
