"""The live view of a run: progress, matches a second, the top of the table, faults and notes.

A rich renderable read afresh at each refresh of ``rich.live.Live`` (the
scheduler only updates a :class:`~waraq.ladder.play.scheduler.RunState`; the table is read
from the database, so what is shown is what is committed). Rich refreshes from
a thread of its own: give the view a store opened for it (``any_thread``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from waraq.ladder.play.folder import Ladder
from waraq.ladder.play.scheduler import RunState, run
from waraq.ladder.present import table
from waraq.ladder.storage.config import LadderConfig
from waraq.ladder.storage.store import Store

PROGRESS_EVERY_S = 15.0


def duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class LiveView:
    def __init__(self, state: RunState, store: Store, config: LadderConfig, *, top: int = 8) -> None:
        self.state = state
        self.store = store
        self.config = config
        self.top = top
        self._rows: list[table.Standing] = []
        self._read = 0.0

    def rows(self) -> list[table.Standing]:
        if time.monotonic() - self._read > 0.9:  # the table at most about once a second
            self._rows = table.standings(self.store, self.config, rule=self.state.target.rule)
            self._read = time.monotonic()
        return self._rows

    def __rich__(self) -> RenderableType:
        state = self.state
        done = state.before + state.played
        total = state.target.matches
        rate = state.rate()
        left = max(0, total - done)
        eta = f", about {duration(left / rate)} left" if rate > 0 and left and not state.target.until_stable else ""
        goal = (
            f"until ordered or tied at {state.target.confidence:.0%} (cap {total})"
            if state.target.until_stable
            else f"of {total}"
        )
        head = Table.grid(padding=(0, 1))
        head.add_row(
            Text(f"{done} matches {goal}", style="bold"),
            ProgressBar(total=max(total, 1), completed=min(done, total), width=30),
        )
        line = Text(
            f"{rate:.2f} matches/s · {state.in_flight} in flight (of {state.concurrency}) · "
            f"{state.played} this run in {duration(state.elapsed)}{eta}"
        )
        if state.playing is None:
            line = Text("starting the bots…")
        if state.stopping:
            line.append(
                " · stopping: the matches in flight finish (Ctrl-C again drops them)"
                if state.stopping == 1
                else " · stopping now",
                style="yellow",
            )
        parts: list[RenderableType] = [head, line, table.StandingsTable(self.rows(), limit=self.top)]
        if state.faults:
            parts.append(Text("recent faults:", style="bold"))
            parts += [Text(f"  {f}", overflow="ellipsis", no_wrap=True) for f in state.faults]
        parts += [Text(note, style="yellow") for note in state.notes[-5:]]
        parts += [Text(note, style="red") for note in state.suspensions[-5:]]
        return Group(*parts)


def play(
    ladder: Ladder, state: RunState, console: Console, view: Callable[[Store], RenderableType], *, quiet: bool = False
) -> None:
    """Run the ladder with a live view on a terminal, else (a log file) a line of progress every 15 seconds.

    ``view`` makes the view from a store of its own: rich refreshes it from its own thread.
    """
    if quiet or not console.is_terminal:
        asyncio.run(_with_progress_lines(None if quiet else console, ladder, state))
        return
    view_store = Store.open(ladder.store.path, readonly=True, any_thread=True)
    try:
        with Live(view(view_store), console=console, refresh_per_second=2, transient=True):
            asyncio.run(_run(ladder, state))
    finally:
        view_store.close()


async def _run(ladder: Ladder, state: RunState) -> RunState:
    """The run here, or on the Ray cluster ``state.cluster`` names (the one place that imports its module)."""
    if state.cluster is None:
        return await run(ladder.folder, ladder.config, ladder.store, state)
    from waraq.ladder.play import ray_cluster

    return await ray_cluster.run(ladder.folder, ladder.config, ladder.store, state)


async def _with_progress_lines(console: Console | None, ladder: Ladder, state: RunState) -> None:
    work = asyncio.ensure_future(_run(ladder, state))
    while console is not None and not work.done():
        await asyncio.wait([work], timeout=PROGRESS_EVERY_S)
        if not work.done() and state.playing is not None:
            console.print(
                f"{state.before + state.played} matches ({state.played} this run), {state.rate():.2f} matches/s, "
                f"{state.in_flight} in flight",
                highlight=False,
            )
    await work
