"""The leaderboard, head to head, exports and the live view, from ladders with results set by hand."""

from __future__ import annotations

import pytest
from rich.console import Console

from waraq.ladder.play import folder, ledger
from waraq.ladder.play.scheduler import RunState
from waraq.ladder.present import table
from waraq.ladder.present.live import LiveView
from waraq.ladder.stats.ratings import environment
from waraq.ladder.storage.store import FaultRow, Outcome, Planned
from waraq.referee.games.hokm.rules import PRESETS


def ladder_with(tmp_path, rules, names):
    folder.init(tmp_path / "l", rules, seed=1)
    ladder = folder.open_ladder(tmp_path / "l")
    with ladder.store.transaction():
        ids = [ladder.store.add_entry(n, n, "random", (n, "1.0", None)) for n in names]
    return ladder, ids


def play(ladder, match_id, seats, winners, score, faults=(), faulty=()):
    """Plan one match and store its result as if it had been played."""
    planned = Planned(match_id, 0, match_id, 0, match_id, tuple(seats), f"records/{match_id}.jsonl")
    with ladder.store.transaction():
        ladder.store.plan([planned])
    outcome = Outcome(match_id, "forfeit" if faulty else "score", winners, score, faulty, faults, 40, 0.1)
    ledger.record(ladder.store, ladder.config, environment(ladder.config.trueskill), outcome, planned.seats)


def render(renderable, width=100) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


@pytest.fixture
def two_players(tmp_path):
    """A beats B three times out of four; C beats B once; B crashes once against C."""
    ladder, (a, b, c) = ladder_with(tmp_path, PRESETS["two"], ["A", "B", "C"])
    play(ladder, 1, (a, b), (0,), (7, 2))
    play(ladder, 2, (b, a), (1,), (3, 7))
    play(ladder, 3, (a, b), (1,), (5, 7))
    play(ladder, 4, (b, a), (1,), (0, 7))
    play(ladder, 5, (c, b), (0,), (7, 1))
    play(ladder, 6, (c, b), (0,), (0, 0), faults=(FaultRow(1, "CRASH", "the stream broke", 1),), faulty=(1,))
    yield ladder
    ladder.close()


def test_the_table_counts_matches_wins_and_faults_and_ranks_by_the_batch_rating(two_players):
    rows = table.standings(two_players.store, two_players.config)
    by_name = {r.bot: r for r in rows}
    assert (by_name["A"].matches, by_name["A"].wins, by_name["A"].faults) == (4, 3, 0)
    assert (by_name["B"].matches, by_name["B"].wins, by_name["B"].faults) == (6, 1, 1)
    assert (by_name["C"].matches, by_name["C"].wins) == (2, 2)
    assert [r.boards for r in rows] == [r.matches for r in rows]  # each match here is a board of its own
    assert [r.elo for r in rows] == sorted((r.elo for r in rows), reverse=True)
    assert [r.rank for r in rows] == [1, 2, 3] and rows[-1].vs_next is None
    assert rows[-1].bot == "B" and by_name["B"].elo < 0 < by_name["A"].elo
    # The score against the field: the mean chance to beat each other bot one to one, by the Elo formula.
    elo = {r.bot: r.elo for r in rows}
    for row in rows:
        others = [1 / (1 + 10 ** ((elo[o] - row.elo) / 400)) for o in elo if o != row.bot]
        assert row.score == pytest.approx(sum(others) / 2)
        assert row.elo_low < row.elo < row.elo_high
    # Six matches are far too few for the stopping rule to say anything.
    assert {r.vs_next for r in rows[:-1]} == {"open"}


def test_head_to_head_counts_wins_with_wilson_intervals(two_players):
    pairs = {(p.a, p.b): p for p in table.pairs(two_players.store, 2)}
    assert set(pairs) == {("A", "B"), ("C", "B")}
    ab = pairs["A", "B"]
    # 3 wins in 4: Wilson's 95 % interval is (0.301, 0.954) (centre (0.75 + 1.96²/8) / (1 + 1.96²/4)).
    assert (ab.matches, ab.a_wins, ab.rate) == (4, 3, 0.75)
    assert (round(ab.low, 3), round(ab.high, 3)) == (0.301, 0.954)
    assert table.wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))  # 0 of 10: up to 27.8 %


def test_four_players_meet_head_to_head_only_on_opposite_teams(tmp_path):
    ladder, (a, b, c, d) = ladder_with(tmp_path, PRESETS["classic"], ["A", "B", "C", "D"])
    play(ladder, 1, (a, c, b, d), (0, 2), (7, 3))  # A and B partners against C and D; A+B win
    pairs = {(p.a, p.b): (p.matches, p.a_wins) for p in table.pairs(ladder.store, 4)}
    assert pairs == {("A", "C"): (1, 1), ("A", "D"): (1, 1), ("B", "C"): (1, 1), ("B", "D"): (1, 1)}
    ladder.close()


def test_the_table_renders_with_every_column_and_a_status_only_when_needed(two_players):
    rows = table.standings(two_players.store, two_players.config)
    text = render(table.StandingsTable(rows, title="Ladder"), width=120)
    header = next(line for line in text.splitlines() if "Elo" in line)
    columns = ["#", "bot", "Elo", "95", "%", "score", "μ", "σ", "boards", "matches", "faults", "vs", "next"]
    assert header.split() == columns
    lines = [line.split() for line in text.splitlines() if line.strip()[:1].isdigit()]
    assert [line[1] for line in lines] == [r.bot for r in rows]
    assert lines[0][2] == f"{rows[0].elo:+.0f}" and lines[0][6:8] == [f"{100 * rows[0].score:.0f}", "%"]
    with two_players.store.transaction():
        two_players.store.set_status(two_players.store.entry_named("B").id, "suspended", "crashed")
    rows = table.standings(two_players.store, two_players.config)
    text = render(table.StandingsTable(rows), width=120)
    assert "status" in text and "suspended" in text
    assert [str(t) for t in table.suspensions(rows)] == ["B suspended: crashed"]


def test_the_live_view_shows_progress_rate_table_and_faults(two_players):
    state = RunState(ledger.Target(10), concurrency=4, before=6, played=0)
    assert "starting the bots" in render(LiveView(state, two_players.store, two_players.config))
    state.playing = state.started  # the bots are up
    state.faults.append("match 6, B (seat 1): CRASH: the stream broke")
    state.suspensions.append("B suspended: 3 matches with a crash")
    text = render(LiveView(state, two_players.store, two_players.config), width=120)
    assert "6 matches of 10" in text
    assert "matches/s · 0 in flight (of 4)" in text
    assert "recent faults:" in text and "CRASH: the stream broke" in text
    assert "B suspended" in text and "Elo" in text and "score" in text


def test_exports_are_csv_with_a_header_and_one_row_per_bot(two_players):
    rows = table.standings_rows(table.standings(two_players.store, two_players.config))
    text = table.to_csv(rows)
    lines = text.splitlines()
    assert lines[0].split(",")[:6] == ["rank", "bot", "elo", "elo_low", "elo_high", "score"]
    assert len(lines) == 4 and lines[1].split(",")[1] == rows[0]["bot"]


def test_a_bot_that_has_not_played_ranks_last_and_leaves_the_others_scores_alone(two_players):
    before = {r.bot: r.score for r in table.standings(two_players.store, two_players.config)}
    with two_players.store.transaction():
        two_players.store.add_entry("D", "D", "random", (None, None, None))
    rows = table.standings(two_players.store, two_players.config)
    assert rows[-1].bot == "D" and (rows[-1].elo, rows[-1].score, rows[-1].boards) == (None, None, 0)
    assert {r.bot: r.score for r in rows[:-1]} == pytest.approx(before)
