"""``waraq ladder report --html`` and ``waraq ladder show --plot``, on a ladder really played.

The ladder: 4-player Hokm to 1 point, 12 matches (6 boards of 2 rooms), four
bots over gRPC: heuristic, random, ``shady`` (plays like random; its Hello
name is ``<script>alert(1)</script>``) and ``clumsy`` (tests/bots/misbehaving.py:
an illegal card at its 12th decision of a match, which forfeits that match).
The browser's view of the same report: tests/browser/test_ladder_report.py.
"""

from __future__ import annotations

import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.support.ladders import make
from tests.support.report_ladders import BOTS, HOSTILE, MATCHES, WARAQ, played_ladder, waraq
from waraq.ladder.commands.cli import describe
from waraq.ladder.play import folder
from waraq.ladder.present import plot, report, report_html, svg, table

ROOMS = 2  # a 4-player board: the deal played twice, the teams swapped


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    return played_ladder(tmp_path_factory.mktemp("report") / "ladder")


@pytest.fixture(scope="module")
def gathered(played) -> report.Report:
    with folder.open_ladder(played, readonly=True) as ladder:
        return report.gather(ladder, describe(ladder.config.rules))


# --- what the report gathers -----------------------------------------------------------------------


@pytest.mark.slow
def test_the_report_holds_the_rows_ladder_show_prints_and_every_match_played(played, gathered):
    with folder.open_ladder(played, readonly=True) as ladder:
        rows = table.standings(ladder.store, ladder.config)
    assert [r.bot for r in gathered.standings] == [r.bot for r in rows] and len(rows) == len(BOTS)
    assert gathered.played == MATCHES and [m.id for m in gathered.matches] == list(range(1, MATCHES + 1))
    assert all((played / m.record).is_file() for m in gathered.matches)
    by_name = {r.bot: r for r in gathered.standings}
    assert by_name["shady"].version.startswith(HOSTILE)  # the name the bot gave itself, kept as it came


def test_each_bot_has_one_rating_per_board_it_played_placed_at_the_matches_rated_by_then(gathered):
    for row, history in zip(gathered.standings, gathered.histories, strict=True):
        assert history.bot == row.bot
        assert len(history.points) == row.boards > 0
        xs = [p.rated for p in history.points]
        assert xs == sorted(set(xs))  # one point a board, in order
        # A board is rated under its last room; with every match rated, that is after an even count.
        assert all(x % ROOMS == 0 and 0 < x <= MATCHES for x in xs)
        assert [p.rated for p in history.points] == [p.match for p in history.points]  # no match was cancelled
        assert (history.points[-1].mu, history.points[-1].sigma) == pytest.approx((row.mu, row.sigma))


def test_head_to_head_reads_the_same_from_either_side(gathered):
    names = [r.bot for r in gathered.standings]
    seen = 0
    for a in names:
        for b in names:
            if a == b:
                continue
            ab, ba = gathered.cell(a, b), gathered.cell(b, a)
            assert ab is not None and ba is not None  # four bots in every match: every two met
            assert ab.matches == ba.matches and ab.wins + ba.wins == ab.matches
            assert (ab.low, ab.high) == pytest.approx((1 - ba.high, 1 - ba.low))
            assert ab.low <= ab.rate <= ab.high
            seen += 1
    assert seen == 12


def test_faults_by_kind_add_up_to_the_tables_faults_and_only_the_clumsy_bot_has_any(gathered):
    for row in gathered.standings:
        assert sum(gathered.faults[row.bot].values()) == row.faults
    assert {bot for bot, kinds in gathered.faults.items() if kinds} == {"clumsy"}
    forfeits = [m for m in gathered.matches if m.reason == "forfeit"]
    assert len(forfeits) == sum(gathered.faults["clumsy"].values()) > 0  # each fault forfeited its match


# --- the page ---------------------------------------------------------------------------------------


class Page(HTMLParser):
    """What a test reads of the report's HTML: every element's tag and attributes, and its text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def having(self, tag: str, attribute: str) -> list[dict[str, str | None]]:
        return [attrs for t, attrs in self.elements if t == tag and attribute in attrs]


def test_the_report_command_writes_one_page_and_a_replay_page_per_match_linked_relatively(played, tmp_path):
    out = tmp_path / "shared" / "ladder.html"
    out.parent.mkdir()
    done = waraq("ladder", "report", "--html", str(out), "-C", str(played))
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout and f"{MATCHES} replay pages" in done.stdout
    page = Page(out.read_text(encoding="utf-8"))
    links = [a["href"] for a in page.having("a", "href") if "replay" in (a.get("class") or "")]
    assert len(links) == MATCHES
    for href in links:
        assert href is not None and not href.startswith(("/", "file:")) and href.startswith("ladder-replays/")
        assert (out.parent / href).is_file()
    # Moved elsewhere together, the links still hold: they are relative.
    moved = tmp_path / "mailed"
    out.parent.rename(moved)
    assert all((moved / href).is_file() for href in links if href)


def test_run_in_the_ladder_folder_the_page_is_titled_by_its_name(played, tmp_path):
    out = tmp_path / "here.html"
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run([WARAQ, "ladder", "report", "--html", str(out)], cwd=played, capture_output=True, env=env)
    assert done.returncode == 0, done.stderr
    assert f"<title>Ladder {played.name}</title>" in out.read_text(encoding="utf-8")


def test_every_string_a_bot_chose_is_escaped_and_the_page_has_no_script(gathered):
    text = report_html.render(gathered, {})
    assert "<script" not in text.lower()  # neither the bot's nor any of the page's own
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    page = Page(text)
    shown = "".join(page.text)
    assert HOSTILE in shown  # the parser unescapes it: a reader sees the name as the bot gave it
    assert [r["data-bot"] for r in page.having("tr", "data-bot")][: len(BOTS)] == [r.bot for r in gathered.standings]


def test_the_plot_has_one_line_per_bot_and_a_legend_entry_for_each(gathered):
    text = report_html.render(gathered, {})
    page = Page(text)
    lines = [e["data-series"] for e in page.having("polyline", "data-series")]
    legend = [e["data-series"] for e in page.having("g", "data-series")]
    assert lines == legend == [r.bot for r in gathered.standings]


def test_a_cells_colour_goes_from_red_to_green_with_its_score():
    assert report_html.cell_colour(0) == "hsl(0, 70%, 78%)"  # hue 0: red
    assert report_html.cell_colour(0.5) == "hsl(60, 70%, 78%)"  # yellow
    assert report_html.cell_colour(1) == "hsl(120, 70%, 78%)"  # green


def test_a_ladder_with_no_results_gets_a_report_that_says_so(tmp_path):
    path = make(tmp_path / "new", {"a": "random", "b": "random"})
    out = tmp_path / "new.html"
    done = waraq("ladder", "report", "--html", str(out), "-C", str(path))
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert 'id="no-results"' in text and "has no results yet" in text
    assert [e["data-bot"] for e in Page(text).having("tr", "data-bot")] == ["a", "b"]
    assert not (tmp_path / "new-replays").exists()


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["missing", "no database", "garbage database"])
def test_a_missing_or_damaged_ladder_is_one_line_naming_it_and_exit_2(tmp_path, damage):
    path = tmp_path / "ladder"
    if damage != "missing":
        make(path, {"a": "random", "b": "random"})
        if damage == "no database":
            (path / "ladder.sqlite").unlink()
        else:
            (path / "ladder.sqlite").write_bytes(b"not a database at all" * 10)
    done = waraq("ladder", "report", "--html", str(tmp_path / "r.html"), "-C", str(path))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and str(path) in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "r.html").exists()


def test_an_out_file_in_no_folder_is_one_line_and_exit_2(played, tmp_path):
    out = tmp_path / "nowhere" / "r.html"
    done = waraq("ladder", "report", "--html", str(out), "-C", str(played))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert str(out) in done.stderr and "Traceback" not in done.stderr


# --- the SVG plot -----------------------------------------------------------------------------------


def test_ticks_are_round_steps_covering_the_range():
    # Worked by hand: a range of 12 in about 5 steps is 2.4 a step, rounded up to 5 (1, 2, 5 times a power of ten).
    assert svg.nice_ticks(0, 12) == [0, 5, 10, 15]
    assert svg.nice_ticks(13.7, 36.3) == [10, 15, 20, 25, 30, 35, 40]
    assert svg.nice_ticks(0.02, 0.09) == [0.02, 0.04, 0.06, 0.08, 0.1]
    assert svg.nice_ticks(3, 3) == [2, 2.5, 3, 3.5, 4]  # one value: a unit either side
    with pytest.raises(ValueError, match="nan"):
        svg.nice_ticks(float("nan"), 1)


def test_a_line_runs_from_the_lower_left_to_the_upper_right_of_its_frame():
    drawn = svg.line_plot([svg.Series("up", [(0, 0), (10, 10)])], x_label="x", y_label="y", width=400, height=300)
    points = re.search(r'class="series" data-series="up" stroke="[^"]+" points="([^"]+)"', drawn).group(1).split()
    (x0, y0), (x1, y1) = (tuple(map(float, p.split(","))) for p in points)
    frame_left = float(re.search(r'class="axis" x1="([\d.]+)" x2="\1"', drawn).group(1))  # the y axis
    assert x0 == frame_left and x1 > x0 and y1 < y0  # SVG's y grows downwards
    assert drawn.count('class="marker"') == 2 and drawn.count('class="entry"') == 1


# --- the terminal plot ------------------------------------------------------------------------------


def test_the_terminal_plot_is_a_fixed_size_off_a_terminal_with_one_marker_per_bot(gathered):
    text = plot.ratings_plot(gathered.histories, plot.size_for(None))
    width, height = plot.FIXED
    lines = text.splitlines()
    canvas, legend = lines[:height], lines[height:]
    assert all(len(line) <= width for line in lines)
    markers = [plot.marker_of(i) for i in range(len(BOTS))]
    for marker, row in zip(markers, gathered.standings, strict=True):
        assert f"{marker} {row.bot} (μ {row.mu:.2f})" in " ".join(legend)
        assert any(marker in line[5:] for line in canvas[1:-3])  # drawn inside the frame, right of the y ticks
    assert "matches rated" in canvas[-1]


def test_show_plot_draws_below_the_table(played, gathered):
    done = waraq("ladder", "show", "--plot", "-C", str(played))
    assert done.returncode == 0, done.stderr
    table_end = done.stdout.index(gathered.standings[-1].bot)
    assert done.stdout.index("TrueSkill μ over the matches") > table_end
    lines = done.stdout.rstrip().splitlines()
    legend = [line for line in lines[next(i for i, line in enumerate(lines) if "matches rated" in line) + 1 :]]
    assert "   ".join(legend).split("   ") == [
        f"{plot.marker_of(i)} {row.bot} (μ {row.mu:.2f})" for i, row in enumerate(gathered.standings)
    ]
    assert "\x1b[" not in done.stdout  # no colour into a pipe


def test_nothing_rated_is_said_in_words():
    assert plot.ratings_plot([report.History("a", ())], plot.FIXED) == "no board is rated yet: nothing to plot"


def test_ladder_show_piped_to_a_file_keeps_its_last_column_whole(played, tmp_path):
    out = tmp_path / "show.txt"
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}  # piped: rich would take 80 columns
    with out.open("w") as file:
        done = subprocess.run([WARAQ, "ladder", "show", "-C", str(played)], stdout=file, env=env, timeout=60)
    assert done.returncode == 0
    lines = out.read_text().splitlines()
    header = next(line for line in lines if line.lstrip().startswith("#"))
    assert header.rstrip().endswith("vs next"), header
    rows = [line for line in lines if line.split()[:1] in ([str(n)] for n in range(1, len(BOTS) + 1))]
    assert len(rows) == len(BOTS) and all(not line.rstrip().endswith("…") for line in rows), rows
