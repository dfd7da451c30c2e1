"""Small inline-SVG plots for pages that must work offline: a line plot with axes, ticks and a legend.

Pure: numbers in, SVG text out; no plotting library and no script, so a page
that holds one needs nothing but itself. Every string (a series' name comes
from a bot) is escaped. The DOM it makes, for tests and for styling:
``<svg class="plot">`` holds one ``<polyline class="series" data-series=NAME>``
per series, a ``<path class="whisker">`` at the last point of each series that
has one, and a ``<g class="legend">`` with one ``<g class="entry"
data-series=NAME>`` per series.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

# Tableau's ten colours: told apart by most eyes, also by most colour-blind ones.
PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
)  # fmt: skip
MARKERS_UP_TO = 60  # points a series may have and still get a dot at each (more would be a smear)


@dataclass(frozen=True)
class Series:
    name: str
    points: Sequence[tuple[float, float]]  # (x, y), x ascending
    # (low, high) at the last point, drawn as an error bar there: a band along the whole line muddles
    # a plot of several series that cross (measured by eye: four bots' ±σ bands were one brown smear).
    whisker: tuple[float, float] | None = None
    colour: str = ""  # "" : the palette's, by the series' place


@dataclass(frozen=True)
class Frame:
    """Where the data's ranges fall on the picture: the plotting area inside the margins."""

    x0: float
    x1: float
    y0: float
    y1: float
    left: float
    right: float
    top: float
    bottom: float

    def x(self, value: float) -> float:
        span = self.x1 - self.x0 or 1.0
        return self.left + (value - self.x0) / span * (self.right - self.left)

    def y(self, value: float) -> float:
        span = self.y1 - self.y0 or 1.0
        return self.bottom - (value - self.y0) / span * (self.bottom - self.top)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round values (steps of 1, 2 or 5 times a power of ten) covering [low, high]."""
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"ticks of [{low}, {high}]: expected finite bounds")
    if high < low:
        low, high = high, low
    if high == low:
        low, high = low - 1, high + 1
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value < high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high - step * 1e-9:
        ticks.append(round(value, 10))
    return ticks


def _label(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.3g}"


def line_plot(
    series: Sequence[Series],
    *,
    x_label: str,
    y_label: str,
    width: int = 760,
    height: int = 380,
    title: str = "",
) -> str:
    """An SVG line plot of ``series`` with both axes, their ticks and labels, and a legend on the right."""
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points] + [v for s in series if s.whisker for v in s.whisker]
    if not xs:
        raise ValueError("a line plot of no points")
    x_ticks, y_ticks = nice_ticks(min(xs), max(xs)), nice_ticks(min(ys), max(ys))
    legend_width = 24 + 7 * min(28, max(len(s.name) for s in series))
    frame = Frame(
        x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1],
        left=56, right=width - legend_width - 16 - 4 * len(series), top=16 + 18 * bool(title), bottom=height - 44,
    )  # fmt: skip
    parts = [
        f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title or y_label)}">',
    ]
    if title:
        parts.append(f'<text class="title" x="{frame.left}" y="14">{escape(title)}</text>')
    parts += _axes(frame, x_ticks, y_ticks, x_label, y_label)
    for place, one in enumerate(series):
        colour = one.colour or PALETTE[place % len(PALETTE)]
        parts += _series(frame, one, colour, place)
    parts.append(_legend(series, frame.right + 16 + 4 * len(series), frame.top))
    parts.append("</svg>")
    return "\n".join(parts)


def _axes(frame: Frame, x_ticks: list[float], y_ticks: list[float], x_label: str, y_label: str) -> list[str]:
    out = ['<g class="axes">']
    for value in y_ticks:
        y = frame.y(value)
        out.append(f'<line class="grid" x1="{frame.left}" x2="{frame.right}" y1="{y:.1f}" y2="{y:.1f}"/>')
        out.append(f'<text class="tick" x="{frame.left - 6}" y="{y + 4:.1f}" text-anchor="end">{_label(value)}</text>')
    for value in x_ticks:
        x = frame.x(value)
        out.append(f'<line class="tick-mark" x1="{x:.1f}" x2="{x:.1f}" y1="{frame.bottom}" y2="{frame.bottom + 5}"/>')
        out.append(
            f'<text class="tick" x="{x:.1f}" y="{frame.bottom + 18}" text-anchor="middle">{_label(value)}</text>'
        )
    out.append(f'<line class="axis" x1="{frame.left}" x2="{frame.right}" y1="{frame.bottom}" y2="{frame.bottom}"/>')
    out.append(f'<line class="axis" x1="{frame.left}" x2="{frame.left}" y1="{frame.top}" y2="{frame.bottom}"/>')
    middle = (frame.left + frame.right) / 2
    out.append(
        f'<text class="label" x="{middle:.1f}" y="{frame.bottom + 36}" text-anchor="middle">{escape(x_label)}</text>'
    )
    centre = (frame.top + frame.bottom) / 2
    out.append(
        f'<text class="label" transform="translate(14 {centre:.1f}) rotate(-90)" text-anchor="middle">'
        f"{escape(y_label)}</text>"
    )
    out.append("</g>")
    return out


def _series(frame: Frame, one: Series, colour: str, place: int) -> list[str]:
    name = escape(one.name)
    points = " ".join(f"{frame.x(x):.1f},{frame.y(y):.1f}" for x, y in one.points)
    out = [
        f'<polyline class="series" data-series="{name}" stroke="{colour}" points="{points}"><title>{name}'
        "</title></polyline>"
    ]
    if len(one.points) <= MARKERS_UP_TO:
        out += [
            f'<circle class="marker" cx="{frame.x(x):.1f}" cy="{frame.y(y):.1f}" r="2.5" fill="{colour}"/>'
            for x, y in one.points
        ]
    if one.whisker is not None and one.points:
        # Right of the last point, each series a few pixels further, so bars ending together stay apart.
        x = frame.x(one.points[-1][0]) + 6 + 4 * place
        low, high = (frame.y(v) for v in one.whisker)
        out.append(
            f'<path class="whisker" data-series="{name}" stroke="{colour}" '
            f'd="M{x - 2:.1f},{low:.1f}H{x + 2:.1f}M{x:.1f},{low:.1f}V{high:.1f}M{x - 2:.1f},{high:.1f}H{x + 2:.1f}"/>'
        )
    return out


def _legend(series: Sequence[Series], left: float, top: float) -> str:
    out = ['<g class="legend">']
    for place, one in enumerate(series):
        colour = one.colour or PALETTE[place % len(PALETTE)]
        y = top + 18 * place
        shown = one.name if len(one.name) <= 28 else one.name[:27] + "…"
        out.append(
            f'<g class="entry" data-series="{escape(one.name)}"><line x1="{left}" x2="{left + 16}" y1="{y + 6}" '
            f'y2="{y + 6}" stroke="{colour}" stroke-width="3"/><text x="{left + 22}" y="{y + 10}">{escape(shown)}'
            f"</text></g>"
        )
    out.append("</g>")
    return "".join(out)
