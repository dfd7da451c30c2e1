"""``waraq ladder show --plot``: each bot's TrueSkill μ over the matches, drawn in the terminal with plotext.

One line per bot, each drawn with its own marker so the lines are told
apart without colour too, and a legend under the plot naming each marker's
bot and its latest μ. (plotext's own legend sits inside the canvas, where the
lines of a ladder's bots cross it.) The x axis is the matches rated, as in the
HTML report (ladder/present/report.py's histories).

Sized to the terminal when the output is one; else a fixed size
(:data:`FIXED`), so what a pipe or a test reads does not depend on where it ran.
"""

from __future__ import annotations

from collections.abc import Sequence

from plotext import figure, terminal  # type: ignore[import-untyped]  # plotext ships no type hints

from waraq.ladder.present.report import History
from waraq.ladder.present.svg import nice_ticks

MARKERS = ("•", "+", "x", "o", "*", "#", "%", "@", "=", "~")  # one a bot, in the table's order, then again
FIXED = (80, 24)  # columns, rows: the plot's size when the output is not a terminal
SMALLEST = (40, 12)


def size_for(terminal: tuple[int, int] | None) -> tuple[int, int]:
    """The plot's size: :data:`FIXED` off a terminal; on one, its width and up to 30 of its rows."""
    if terminal is None:
        return FIXED
    columns, rows = terminal
    return max(SMALLEST[0], columns), max(SMALLEST[1], min(30, rows - 6))


def marker_of(place: int) -> str:
    return MARKERS[place % len(MARKERS)]


def ratings_plot(histories: Sequence[History], size: tuple[int, int], *, colour: bool = False) -> str:
    """The plot and its legend as text (ANSI colours with ``colour``); a line of words when nothing is rated."""
    drawn = [(place, h) for place, h in enumerate(histories) if h.points]
    if not drawn:
        return "no board is rated yet: nothing to plot"
    width, height = size
    figure.clear()  # plotext keeps one figure for the process: start from a blank one
    terminal.limit(False, False)  # the size is ours (size_for): not cut to what plotext takes the terminal to be
    try:
        figure.plot_size(width, height)
        figure.theme("simple")  # coloured lines on the terminal's own background, light or dark
        figure.title("TrueSkill μ over the matches")
        figure.label("matches rated", axis="x")
        figure.label("μ", axis="y")
        # Whole matches on the x axis (plotext's own ticks fall between them), the range from tick to tick.
        rated = [p.rated for _, h in drawn for p in h.points]
        ticks = [int(t) for t in nice_ticks(min(rated), max(rated), 6) if t == int(t)]
        figure.ruler("x").lim(ticks[0], ticks[-1]).ticks(ticks, [str(t) for t in ticks])
        for place, history in drawn:
            xs = [p.rated for p in history.points]
            ys = [p.mu for p in history.points]
            figure.draw(figure.signal(xs, ys, marker=marker_of(place)).lines())
        text = figure.build().string(colorless=not colour)
    finally:
        figure.clear()
        terminal.limit()
    legend = [f"{marker_of(place)} {history.bot} (μ {history.points[-1].mu:.2f})" for place, history in drawn]
    return text.rstrip("\n") + "\n" + "\n".join(_rows(legend, width))


def _rows(entries: Sequence[str], width: int) -> list[str]:
    """The legend's entries, three spaces apart, in as many rows of ``width`` as they need."""
    rows: list[str] = []
    for entry in entries:
        if rows and len(rows[-1]) + 3 + len(entry) <= width:
            rows[-1] += "   " + entry
        else:
            rows.append(entry)
    return rows
