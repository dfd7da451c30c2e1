"""``waraq ladder report --html OUT``: a ladder's report as one self-contained HTML file, and the replays beside it.

The page is HTML with inline CSS and inline SVG (ladder/present/svg.py): no script,
no font, no image, no request, so it opens from disk, offline, and can be
mailed. Each match played links to its replay page (waraq.referee.replay.html),
written in a folder beside the report, ``OUT's stem + "-replays"``; the links
are relative, so the report and that folder can be zipped together.

Every string from a ladder is escaped: bots choose their own Hello names, and
faults quote what bots wrote.

The DOM the tests read: ``#standings tbody tr[data-bot]`` in the table's
order; ``#ratings svg.plot`` (svg.py's classes); ``#matrix td.cell`` with
``data-a``, ``data-b``, ``data-rate``, coloured by the rate; ``#faults``;
``#matches tr[data-match]``, each with ``a.replay``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from waraq.ladder.play.folder import Ladder
from waraq.ladder.present import svg
from waraq.ladder.present.report import Cell, MatchLine, Report, gather
from waraq.ladder.stats.sequential import Verdict
from waraq.ladder.storage.config import ConfigError
from waraq.ladder.storage.store import ACTIVE
from waraq.referee.replay.html.write import write_folder

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 1.8em; }
p.about { color: #555; margin-top: 0; } p.note { color: #555; font-size: .92em; max-width: 60em; }
table { border-collapse: collapse; } th, td { padding: .25em .6em; text-align: right; white-space: nowrap; }
th { border-bottom: 1px solid #999; font-weight: 600; } tbody th { border-bottom: none; }
tbody tr:nth-child(even) { background: #f4f4f4; }
td.bot, th.bot, td.text { text-align: left; } tr.inactive { color: #888; }
td.cell { text-align: center; min-width: 5.5em; border: 1px solid #fff; }
td.cell small { display: block; color: #333; font-size: .78em; } td.self { background: #eee; color: #aaa; }
td.none { color: #aaa; text-align: center; }
svg.plot text { font: 11px system-ui, sans-serif; fill: #333; } svg.plot .title { font-weight: 600; }
svg.plot .grid { stroke: #e4e4e4; } svg.plot .axis, svg.plot .tick-mark { stroke: #555; }
svg.plot .series { fill: none; stroke-width: 2; } svg.plot .whisker { fill: none; stroke-width: 1.5; }
.empty { padding: 1em; background: #fff8e0; border: 1px solid #e8d9a0; }
"""


@dataclass(frozen=True)
class Written:
    path: Path
    size: int  # bytes of the report itself
    replays: int  # replay pages written beside it
    replay_folder: Path


def write_report(ladder: Ladder, out: Path, description: str, *, everyone: bool = False) -> Written:
    """Gather the report of ``ladder``, write each played match's replay page beside ``out``, then ``out``."""
    report = gather(ladder, description, everyone=everyone)
    if not out.parent.is_dir():
        raise ConfigError(f"--html {out}: no folder {out.parent} to write it in")
    replay_folder = replay_folder_of(out)
    links = write_replays(report, replay_folder, out.parent)
    page = render(report, links)
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"--html {out}: cannot write it: {error.strerror or error}") from None
    return Written(out, len(page.encode()), len(links), replay_folder)


def replay_folder_of(out: Path) -> Path:
    """Where the report ``out`` gets its replay pages: ``report.html`` -> ``report-replays/`` beside it."""
    return out.with_name(out.stem + "-replays")


def write_replays(report: Report, replay_folder: Path, page_folder: Path) -> dict[int, str]:
    """A replay page for each match whose record is on disk, in ``replay_folder``; match id -> the link
    to it from a page in ``page_folder``. A record that does not replay still gets a page saying why."""
    found = [(m.id, report.folder / m.record) for m in report.matches if (report.folder / m.record).is_file()]
    if not found:
        return {}
    try:
        pages = write_folder([record for _, record in found], replay_folder, index=False)
    except OSError as error:
        raise ConfigError(f"{replay_folder}: cannot write the replay pages there: {error.strerror or error}") from None
    return {match: _relative(page, page_folder) for (match, _), page in zip(found, pages, strict=True)}


def _relative(path: Path, start: Path) -> str:
    """A link from a page in ``start`` to ``path``, with / between parts whatever the system."""
    return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()


# --- the page ------------------------------------------------------------------------------------


def render(report: Report, links: Mapping[int, str], *, now: datetime | None = None) -> str:
    """The whole page; ``links``: match id -> a relative link to its replay (a match without one is listed
    unlinked)."""
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    title = f"Ladder {report.folder.resolve().name}"  # resolved: `-C .` (the default) has no name of its own
    about = (
        f"{report.description}: {report.played} match{'es' * (report.played != 1)} played"
        + (f", {report.planned} planned" if report.planned else "")
        + f". Made {when}."
    )
    body = [f"<h1>{escape(title)}</h1>", f'<p class="about">{escape(about)}</p>']
    if not report.matches:
        body.append(
            f'<p class="empty" id="no-results">This ladder has no results yet: '
            f"<code>waraq ladder run -C {escape(str(report.folder))}</code> plays its matches.</p>"
        )
    body += _standings(report)
    if report.matches:
        body += _ratings(report) + _matrix(report) + _faults(report) + _matches(report, links)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # No request of any kind, also none the browser would make by itself (a favicon).
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        'img-src data:">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.0f}"


def _standings(report: Report) -> list[str]:
    heads = "#|bot|version|Elo|95 %|score|μ|σ|boards|matches|faults|vs next|status".split("|")
    out = [
        "<h2>Standings</h2>",
        '<p class="note">As <code>waraq ladder show</code> prints them: best batch rating (Elo, a Bradley–Terry '
        "fit to every board) first, with its 95 % interval; score: the expected score against the field; μ, σ: "
        "TrueSkill; vs next: the stopping rule on this row and the next (docs/ranking.md).</p>",
        '<table id="standings"><thead><tr>'
        + "".join(f'<th class="bot">{h}</th>' if h in ("bot", "version") else f"<th>{h}</th>" for h in heads)
        + "</tr></thead><tbody>",
    ]
    for row in report.standings:
        interval = "" if row.elo_low is None or row.elo_high is None else f"{row.elo_low:+.0f} … {row.elo_high:+.0f}"
        cells = [
            str(row.rank),
            f'<td class="bot">{escape(row.bot)}</td>',
            f'<td class="text">{escape(row.version or "")}</td>',
            _signed(row.elo),
            interval,
            "–" if row.score is None else f"{100 * row.score:.0f} %",
            f"{row.mu:.2f}",
            f"{row.sigma:.2f}",
            str(row.boards),
            str(row.matches),
            str(row.faults),
            f'<td class="text">{"" if row.vs_next in (None, Verdict.OPEN.value) else escape(row.vs_next or "")}</td>',
            f'<td class="text" title="{escape(row.reason or "")}">'
            f"{'' if row.status == ACTIVE else escape(row.status)}</td>",
        ]
        inactive = ' class="inactive"' if row.status != ACTIVE else ""
        out.append(
            f'<tr data-bot="{escape(row.bot)}"{inactive}>'
            + "".join(c if c.startswith("<td") else f"<td>{escape(c)}</td>" for c in cells)
            + "</tr>"
        )
    out.append("</tbody></table>")
    return out


def _ratings(report: Report) -> list[str]:
    series = [
        svg.Series(
            h.bot,
            [(p.rated, p.mu) for p in h.points],
            whisker=(h.points[-1].mu - h.points[-1].sigma, h.points[-1].mu + h.points[-1].sigma),
        )
        for h in report.histories
        if h.points
    ]
    out = [
        '<h2>Ratings over the matches</h2><section id="ratings">',
        '<p class="note">Each bot\'s TrueSkill μ after every board it played (a board is rated once, after its '
        "last room), against the number of matches rated by then; the bar right of each line's end is its latest "
        "μ ± σ. This is the rating "
        "matchmaking reads; the table ranks by the batch Elo, fitted to every board at once.</p>",
    ]
    if series:
        out.append(svg.line_plot(series, x_label="matches rated", y_label="TrueSkill μ"))
    else:
        out.append('<p class="empty">No board is rated yet.</p>')
    out.append("</section>")
    return out


def cell_colour(rate: float) -> str:
    """A score's colour: red at 0, yellow at one half, green at 1 (the hue follows the score)."""
    return f"hsl({120 * rate:.0f}, 70%, 78%)"


def _matrix(report: Report) -> list[str]:
    bots = [row.bot for row in report.standings]
    out = [
        "<h2>Head to head</h2>",
        '<p class="note">Row against column: the share of the matches they decided on opposite sides that the '
        "row's bot won, with the number of matches and Wilson's 95 % interval (it treats a board's rooms as "
        "independent, which they are not: read it as approximate). Red: the row lost most; green: won most.</p>",
        '<table id="matrix"><thead><tr><th class="bot">row v column</th>'
        + "".join(f'<th class="bot">{escape(b)}</th>' for b in bots)
        + "</tr></thead><tbody>",
    ]
    for a in bots:
        cells = []
        for b in bots:
            if a == b:
                cells.append('<td class="self">—</td>')
                continue
            found = report.cell(a, b)
            cells.append(
                _cell(found)
                if found is not None
                else f'<td class="none" title="{escape(a)} and {escape(b)} never decided a match between them">·</td>'
            )
        out.append(f'<tr><th class="bot">{escape(a)}</th>{"".join(cells)}</tr>')
    out.append("</tbody></table>")
    return out


def _cell(cell: Cell) -> str:
    low, high = 100 * cell.low, 100 * cell.high
    tip = (
        f"{cell.a} won {cell.wins} of {cell.matches} against {cell.b}: {100 * cell.rate:.0f} % "
        f"(95 %: {low:.0f}–{high:.0f} %)"
    )
    return (
        f'<td class="cell" data-a="{escape(cell.a)}" data-b="{escape(cell.b)}" data-rate="{cell.rate:.4f}" '
        f'style="background-color: {cell_colour(cell.rate)}" title="{escape(tip)}">{100 * cell.rate:.0f} %'
        f"<small>{cell.wins}/{cell.matches} · {low:.0f}–{high:.0f} %</small></td>"
    )


def _faults(report: Report) -> list[str]:
    kinds = sorted({kind for counts in report.faults.values() for kind in counts})
    out = ['<h2>Faults</h2><section id="faults">']
    if not kinds:
        out.append('<p class="note">No bot has a fault.</p></section>')
        return out
    out.append(
        '<p class="note">Each bot\'s faults by kind (docs/records.md says what each means), in every match '
        "it played.</p>"
    )
    out.append(
        '<table><thead><tr><th class="bot">bot</th>'
        + "".join(f"<th>{escape(k)}</th>" for k in kinds)
        + "<th>all</th></tr></thead><tbody>"
    )
    for bot, counts in report.faults.items():
        row = "".join(f"<td>{counts.get(k, 0) or ''}</td>" for k in kinds)
        out.append(
            f'<tr data-bot="{escape(bot)}"><td class="bot">{escape(bot)}</td>{row}<td>{sum(counts.values())}</td></tr>'
        )
    out.append("</tbody></table></section>")
    return out


def result_text(match: MatchLine) -> str:
    """How a match ended, in words: ``score 7–3, won by A, C`` or ``forfeit, won by B``."""
    winners = ", ".join(dict.fromkeys(match.bots[s] for s in match.winners if s < len(match.bots)))
    score = "–".join(map(str, match.score))
    text = match.reason + (f" {score}" if score and match.reason == "score" else "")
    return text + (f", won by {winners}" if winners else ", no winner")


def _matches(report: Report, links: Mapping[int, str]) -> list[str]:
    out = [
        '<h2>Matches</h2><section id="matches">',
        '<p class="note">Every match played, in the order planned (the rooms of a board share its deal). '
        "A link opens the match's replay.</p>",
        '<table><thead><tr><th>match</th><th>board</th><th class="bot">seats</th><th class="bot">result</th>'
        '<th class="bot">status</th><th class="bot">replay</th></tr></thead><tbody>',
    ]
    for match in report.matches:
        link = links.get(match.id)
        replay = f'<a class="replay" href="{escape(link)}">match {match.id}</a>' if link else "no record"
        status = match.status + (f": {match.note}" if match.note else "")
        out.append(
            f'<tr data-match="{match.id}"><td>{match.id}</td><td>{match.deal}</td>'
            f'<td class="text">{escape(" · ".join(match.bots))}</td><td class="text">{escape(result_text(match))}</td>'
            f'<td class="text">{escape(status)}</td><td class="text">{replay}</td></tr>'
        )
    out.append("</tbody></table></section>")
    return out
