"""The ladder report in a real Chromium, opened from disk as a mailed file is.

The ladder is really played (4-player Hokm to 1 point, 12 matches over gRPC):
heuristic, random, ``shady`` (random play, Hello name
``<script>alert(1)</script>``) and ``clumsy`` (an illegal card at its 12th
decision of a match, a forfeit). What is read through the page: the DOM
ladder/present/report_html.py documents (``#standings tbody tr[data-bot]``,
``#ratings polyline.series``, ``#matrix td.cell`` with ``data-rate``, ``a.replay``).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.support.report_ladders import HOSTILE, MATCHES, played_ladder
from waraq.ladder.commands.cli import describe
from waraq.ladder.play import folder
from waraq.ladder.present import report_html, table
from waraq.referee.replay.walk import load

pytestmark = pytest.mark.system("chromium")  # Debian's Chromium opens the pages


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, Path, list[str]]:
    """(the ladder, the report, the standings' bots in order)."""
    base = tmp_path_factory.mktemp("report")
    path = played_ladder(base / "ladder")
    with folder.open_ladder(path, readonly=True) as ladder:
        out = base / "site" / "report.html"
        out.parent.mkdir()
        report_html.write_report(ladder, out, describe(ladder.config.rules))
        bots = [row.bot for row in table.standings(ladder.store, ladder.config)]
    return path, out, bots


def rgb(colour: str) -> tuple[int, int, int]:
    """``rgb(12, 34, 56)`` (what getComputedStyle gives) as numbers."""
    inside = colour[colour.index("(") + 1 : colour.index(")")]
    red, green, blue = (int(float(part)) for part in inside.split(",")[:3])
    return red, green, blue


def test_the_report_shows_the_table_the_plot_and_the_matrix_with_no_request_and_no_script(browser, written):
    ladder, out, bots = written
    opened = browser.open(out)
    page = opened.page
    assert page.eval_on_selector_all("#standings tbody tr", "rows => rows.map(r => r.dataset.bot)") == bots
    # The name the bot chose is shown as text, not run: the page has no script at all.
    versions = page.eval_on_selector_all("#standings tbody td:nth-child(3)", "cells => cells.map(c => c.textContent)")
    assert any(v.startswith(HOSTILE) for v in versions)
    assert page.evaluate("document.scripts.length") == 0
    lines = page.eval_on_selector_all("#ratings svg.plot polyline.series", "ls => ls.map(l => l.dataset.series)")
    assert sorted(lines) == sorted(bots)
    points = page.eval_on_selector_all("#ratings polyline.series", "ls => ls.map(l => l.points.numberOfItems)")
    assert len(points) == len(bots) and all(n > 0 for n in points)
    assert opened.foreign_requests(out) == [] and opened.errors == [] and opened.console_errors == []
    opened.screenshot("ladder-report")


def test_a_matrix_cell_is_greener_the_higher_its_score(browser, written):
    _, out, bots = written
    page = browser.open(out).page
    cells = page.eval_on_selector_all(
        "#matrix td.cell",
        "cells => cells.map(c => [c.dataset.a, c.dataset.b, Number(c.dataset.rate),"
        " getComputedStyle(c).backgroundColor])",
    )
    assert len(cells) == len(bots) * (len(bots) - 1)  # every two met: four bots in every match
    greenness = {}
    for a, b, rate, colour in cells:
        red, green, _ = rgb(colour)
        greenness[a, b] = (rate, green - red)
    ordered = sorted(greenness.values())
    assert ordered[0][0] < ordered[-1][0]  # the ladder has scores that differ
    for (low_rate, low_green), (high_rate, high_green) in zip(ordered, ordered[1:], strict=False):
        if high_rate > low_rate:
            assert high_green > low_green, (low_rate, high_rate)
    # A cell and its mirror: the row's score and the column's add up to one, and the greener is the higher.
    for (a, b), (rate, green) in greenness.items():
        mirror_rate, mirror_green = greenness[b, a]
        assert rate + mirror_rate == pytest.approx(1, abs=1e-3)
        assert (rate > mirror_rate) == (green > mirror_green) or rate == mirror_rate


def test_every_replay_link_opens_the_page_of_its_match(browser, written):
    ladder, out, _ = written
    opened = browser.open(out)
    links = opened.page.eval_on_selector_all(
        "#matches tr[data-match]", "rows => rows.map(r => [Number(r.dataset.match), r.querySelector('a.replay').href])"
    )
    assert [match for match, _ in links] == list(range(1, MATCHES + 1))
    with folder.open_ladder(ladder, readonly=True) as opened_ladder:
        records = {row["id"]: ladder / row["record"] for row in opened_ladder.store.match_rows()}
    for _, href in links:
        page_path = Path(unquote(urlparse(href).path))
        assert page_path.is_file() and page_path.parent == out.parent / "report-replays"
    # One opens the page of its match: the title names the match id of the record the ladder stored for it.
    # (Three of them: the first, the last and one between; each page is a whole replay to load.)
    for match, href in (links[0], links[len(links) // 2], links[-1]):
        page_path = Path(unquote(urlparse(href).path))
        replay = browser.open(page_path)
        assert load(records[match]).match_id in replay.page.title()
        assert replay.foreign_requests(page_path) == [] and replay.errors == []
