"""Bot A against bot B, board by board: what ``waraq versus`` shows and stops on.

A versus ladder's first two bots are A and B (ladder.toml's order); any
others only fill the seats a game of more sides needs. Each board is one
deal played in every rotation of the seats, so A and B hold each other's
cards in turn; A's *board score* is its mean result against B over the
board's rooms (ladder/stats/boards.py), and the sequential test (ladder/stats/sprt.py)
reads the board scores of the complete boards in planned order, so a run
killed and resumed decides on exactly the boards an unbroken run would.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from waraq.ladder.play.matchmaking import group_size
from waraq.ladder.stats import boards as bd
from waraq.ladder.stats import sprt
from waraq.ladder.storage.config import LadderConfig
from waraq.ladder.storage.store import RATED, UNRATED, Store


@dataclass(frozen=True)
class Summary:
    a: str
    b: str
    boards: int  # complete boards, the ones the test reads
    wins: int  # A's rooms against B: ranked better, worse, the same
    losses: int
    draws: int
    points: tuple[int, int]  # A's side's and B's side's match points summed over those rooms
    tally: sprt.Tally  # the complete boards' board scores

    @property
    def matches(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def paired_score(self) -> float | None:
        return self.tally.mean if self.tally.n else None


def players(store: Store, config: LadderConfig) -> tuple[int, int]:
    """The entry ids of A and B."""
    found = []
    for bot in config.bots[:2]:
        entry = store.current_entry(bot.name)
        if entry is None:
            raise ValueError(f"bot {bot.name} is not in this ladder's database")
        found.append(entry.id)
    if len(found) < 2:
        raise ValueError("a head-to-head needs two bots")
    return found[0], found[1]


def summary(store: Store, config: LadderConfig, *, before: int | None = None) -> Summary:
    layout = config.layout
    a, b = players(store, config)
    with store.snapshot():
        results = [p for p in store.results((RATED, UNRATED)) if before is None or p.id < before]
    found = bd.boards(results, layout, group_size(layout, config.matchmaking.duplicate))
    wins = losses = draws = 0
    points = [0, 0]
    for played in results:
        each = bd.room(played, layout)
        side_of = {bot: seat % layout.sides for seat, bot in enumerate(played.seats)}
        if each.ranks is None or a not in side_of or b not in side_of or side_of[a] == side_of[b]:
            continue
        mine, theirs = each.ranks[side_of[a]], each.ranks[side_of[b]]
        wins += mine < theirs
        losses += mine > theirs
        draws += mine == theirs
        if len(played.score) == layout.sides:
            points[0] += played.score[side_of[a]]
            points[1] += played.score[side_of[b]]
    scores = [bd.head_to_head(board, layout, a, b) for board in found if board.complete]
    names = (store.entry(a).name, store.entry(b).name)
    counted = [s for s in scores if s is not None]
    return Summary(*names, len(counted), wins, losses, draws, (points[0], points[1]), sprt.Tally.of(counted))


class Decided(StrEnum):
    """Why a head-to-head ends before its cap: the test's verdict, or an interval narrow enough."""

    H1 = "h1"
    H0 = "h0"
    WIDTH = "width"


def verdict(found: Summary, test: sprt.Sprt | None, width: float | None) -> tuple[Decided, str] | None:
    """(why, detail) once the test decided or the interval is narrow enough; None to go on."""
    tally = found.tally
    if test is not None:
        decision = test.decide(tally)
        if decision is not sprt.Decision.CONTINUE:
            llr = test.llr(tally)
            elo = test.elo1 if decision is sprt.Decision.H1 else test.elo0
            return (
                Decided.H1 if decision is sprt.Decision.H1 else Decided.H0,
                f"{decision.value} accepted ({found.a} − {found.b} = {elo:g} Elo) after {tally.n} boards: "
                f"LLR {llr:+.2f} outside ({test.lower:.2f}, {test.upper:.2f})",
            )
    if width is not None and tally.n >= 2 and sprt.width_elo(tally) <= width:
        wide = sprt.width_elo(tally)
        return (Decided.WIDTH, f"the 95 % interval is {wide:.1f} Elo wide after {tally.n} boards (<= {width:g})")
    return None
