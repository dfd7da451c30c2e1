"""Whole ladders with real bot processes and the real ``waraq ladder`` command.

The reference ladder (a module fixture) plays 40 short 4-player matches between
four bot processes in one uninterrupted ``waraq ladder run``. Another ladder
of the same seed is killed with SIGKILL mid-run and run again; it must end with
the same matches, results and ratings. Matches are short (to 1 point) and the
sample bots seed themselves from the match id and seat, so every match is
reproducible.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import TEST_BOTS
from tests.support.ladders import check_invariants, make
from waraq.ladder.play import folder
from waraq.ladder.play.bots import reap
from waraq.ladder.play.ledger import Target
from waraq.ladder.play.scheduler import RunState, run
from waraq.ladder.storage.store import Store
from waraq.referee.games.hokm.dealing import deal_order
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.records.record_file import read_record

PYTHON = sys.executable
RANDOM_COMMAND = f"{PYTHON} -m waraq.bots.server random --port {{port}}"
MISBEHAVING = TEST_BOTS / "misbehaving.py"
FOUR_BOTS = {"random": "random", "heuristic": "heuristic", "r2": RANDOM_COMMAND, "r3": RANDOM_COMMAND}
TIMES = ("planned_at", "finished_at", "seconds")


def waraq(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [PYTHON, "-m", "waraq.referee.cli.main", *args], capture_output=True, text=True, timeout=timeout, env=_env()
        )
    except subprocess.TimeoutExpired:
        if "-C" in args:  # the command was killed: end the bots it launched, as the next run would
            reap_bots(Path(args[args.index("-C") + 1]))
        raise


def reap_bots(path: Path) -> None:
    if (path / "ladder.sqlite").exists():
        store = Store.open(path / "ladder.sqlite")
        try:
            reap(store)
        finally:
            store.close()


def _env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "120", "NO_COLOR": "1"}


def db_rows(path: Path, query: str) -> list[tuple]:
    with sqlite3.connect(path / "ladder.sqlite") as db:
        return db.execute(query).fetchall()


def exported(path: Path) -> dict:
    result = waraq("ladder", "export", "--json", "-C", str(path))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for match in data["matches"]:
        for key in TIMES:
            match.pop(key)
    return data


def events_without_times(record_path: Path) -> list[dict]:
    return [
        {k: v for k, v in e.items() if k not in ("ms", "bot_ms", "started")} for e in read_record(record_path).events
    ]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """40 matches in one uninterrupted run."""
    path = make(tmp_path_factory.mktemp("ladders") / "reference", FOUR_BOTS)
    result = waraq("ladder", "run", "--matches", "40", "-C", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "done: 40 matches, as asked" in result.stdout
    return path


# --- duplicate deals ----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_duplicate_pair_plays_the_same_decks_with_the_teams_swapped(reference):
    pairs = db_rows(reference, "SELECT deal, GROUP_CONCAT(record, ' ') FROM matches GROUP BY deal ORDER BY deal")
    assert len(pairs) == 20
    for _, records in pairs:
        first, second = (read_record(reference / r).events for r in records.split())
        seats = [[s["bot"] for s in m[0]["seats"]] for m in (first, second)]
        # Seats moved on by one: the team of seats 0+2 now sits in 1+3 and the other way round.
        assert seats[1] == [seats[0][3], seats[0][0], seats[0][1], seats[0][2]]
        assert first[0]["seed"] == second[0]["seed"]
        # The same ace draw (so the same first hakem seat) and the same deck every round both played.
        draws = [next(e for e in m if e["type"] == "ace_draw") for m in (first, second)]
        assert draws[0] == draws[1]
        decks = [[e["deck"] for e in m if e["type"] == "deal"] for m in (first, second)]
        rounds = min(map(len, decks))
        assert rounds >= 1 and decks[0][:rounds] == decks[1][:rounds]


def hands_by_round(events: list[dict], rules) -> list[list[list[str]]]:
    """Per round dealt, each seat's cards as the deal gave them (docs/records.md "deal": the deck and the hakem)."""
    out = []
    for deal in (e for e in events if e["type"] == "deal"):
        order = deal_order(rules, deal["hakem"])
        out.append([[c for c, to in zip(deal["deck"], order, strict=True) if to == s] for s in range(rules.players)])
    return out


@pytest.mark.slow
def test_every_round_of_a_board_deals_each_seat_the_same_hands_in_both_rooms_whoever_is_hakem(tmp_path):
    rules = PRESETS["classic"].replace(target_score=3)
    path = make(tmp_path / "rounds", {"random": "random", "heuristic": "heuristic"}, rules=rules)
    result = waraq("ladder", "run", "--matches", "8", "-C", str(path), timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    boards = db_rows(path, "SELECT deal, GROUP_CONCAT(record, ' ') FROM matches GROUP BY deal ORDER BY deal")
    other_hakem = 0
    for _, records in boards:
        first, second = (read_record(path / r).events for r in records.split())
        hands = [hands_by_round(m, rules) for m in (first, second)]
        hakems = [[e["hakem"] for e in m if e["type"] == "deal"] for m in (first, second)]
        rounds = min(map(len, hands))
        assert rounds >= 2
        for k in range(rounds):
            assert hands[0][k] == hands[1][k], f"round {k + 1} of {records}"
            other_hakem += hakems[0][k] != hakems[1][k]
    assert other_hakem > 0  # some round was dealt by different hakems in the two rooms, and the hands still agree


def test_a_target_inside_a_board_plays_the_whole_board_and_says_so(tmp_path):
    path = make(
        tmp_path / "odd",
        {"random": "random", "heuristic": "heuristic"},
        rules=PRESETS["classic"].replace(target_score=1),
    )
    result = waraq("ladder", "run", "--matches", "3", "-C", str(path), timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "done: 4 matches: 3 asked, rounded up to whole boards" in result.stdout  # not "as asked"
    boards = db_rows(path, "SELECT deal, COUNT(*) FROM matches GROUP BY deal")
    assert [count for _, count in boards] == [2, 2]  # both rooms of each deal


def test_every_match_is_rated_and_every_record_is_complete(reference):
    rows = db_rows(reference, "SELECT status, record FROM matches")
    assert len(rows) == 40 and {s for s, _ in rows} == {"rated"}
    assert all(read_record(reference / r).complete for _, r in rows)
    # Four bots, four seats each match: each bot played all 40, and 4 rating rows a board of two.
    assert db_rows(reference, "SELECT COUNT(*) FROM ratings") == [(80,)]
    check_invariants(reference / "ladder.sqlite")


# --- kill -9 and resume -------------------------------------------------------------------------


def wait_for(runner: subprocess.Popen, path: Path, rated: int, in_flight: bool = False) -> None:
    """Wait until `rated` matches are rated and, if asked, a match has its record open but no result."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert runner.poll() is None, f"the run ended early: {runner.stderr.read()!s}"
        if (path / "ladder.sqlite").exists():
            done = db_rows(path, "SELECT COUNT(*) FROM matches WHERE status = 'rated'")[0][0]
            playing = db_rows(path, "SELECT record FROM matches WHERE status = 'planned'")
            if done >= rated and (not in_flight or any((path / r).exists() for (r,) in playing)):
                return
        time.sleep(0.01)
    raise AssertionError(f"the run did not reach {rated} rated matches in 60 s")


@pytest.mark.slow
def test_a_run_killed_with_sigkill_and_run_again_ends_as_an_uninterrupted_run(reference, tmp_path):
    path = make(tmp_path / "killed", FOUR_BOTS)
    runner = subprocess.Popen(
        [PYTHON, "-m", "waraq.referee.cli.main", "ladder", "run", "--matches", "40", "-C", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    show = None
    try:
        wait_for(runner, path, rated=4)
        # `show` from another process while the run writes; the kill comes in the middle of a match.
        show = subprocess.Popen(
            [PYTHON, "-m", "waraq.referee.cli.main", "ladder", "show", "-C", str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        wait_for(runner, path, rated=8, in_flight=True)
        runner.send_signal(signal.SIGKILL)
        runner.wait(10)
        shown, show_errors = show.communicate(timeout=60)
    except BaseException:
        runner.kill()
        runner.wait(10)
        if show is not None:
            show.kill()
        reap_bots(path)
        raise
    assert show.returncode == 0 and "heuristic" in shown, show_errors
    in_flight = db_rows(path, "SELECT record FROM matches WHERE status = 'planned'")
    assert any((path / r).exists() for (r,) in in_flight), "no match was in flight at the kill"
    check_invariants(path / "ladder.sqlite")
    orphans = [pid for (pid,) in db_rows(path, "SELECT pid FROM processes")]
    assert len(orphans) >= 4  # a process for each bot, and more for the seats and seatings it holds
    # Sandboxed bots die with the run that launched them, killed as it was.
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in orphans) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(alive(pid) for pid in orphans)

    again = waraq("ladder", "run", "-C", str(path))  # no options: on toward the goal of the killed run
    assert again.returncode == 0, again.stdout + again.stderr

    want, got = exported(reference), exported(path)
    assert got["matches"] == want["matches"]
    assert got["ratings"] == want["ratings"]
    assert got["standings"] == want["standings"]
    for match in want["matches"]:
        assert events_without_times(path / match["record"]) == events_without_times(reference / match["record"])
    check_invariants(path / "ladder.sqlite")


@pytest.mark.slow
def test_ctrl_c_lets_the_matches_in_flight_finish_and_run_again_continues(reference, tmp_path):
    path = make(tmp_path / "interrupted", FOUR_BOTS)
    runner = subprocess.Popen(
        [PYTHON, "-m", "waraq.referee.cli.main", "ladder", "run", "--matches", "40", "-C", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        wait_for(runner, path, rated=8, in_flight=True)
        runner.send_signal(signal.SIGINT)
        out, err = runner.communicate(timeout=30)
    except BaseException:
        runner.kill()
        runner.wait(10)
        reap_bots(path)
        raise
    assert runner.returncode == 130, out + err
    assert "stopped before the goal: `waraq ladder run` continues where this run stopped" in out
    # The matches in flight were finished and stored; those not started have no record yet.
    for status, record in db_rows(path, "SELECT status, record FROM matches"):
        assert (status == "planned") == (not (path / record).exists()), (status, record)
    check_invariants(path / "ladder.sqlite")
    again = waraq("ladder", "run", "-C", str(path))
    assert again.returncode == 0, again.stdout + again.stderr
    want, got = exported(reference), exported(path)
    assert (got["matches"], got["ratings"]) == (want["matches"], want["ratings"])


# --- faults ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_bot_that_crashes_at_start_is_suspended_and_the_others_play_on(tmp_path):
    crasher = f'{PYTHON} -c "import sys; sys.exit(3)" {{port}}'
    path = make(tmp_path / "crash", {"random": "random", "heuristic": "heuristic", "crasher": crasher})
    result = waraq("ladder", "run", "--matches", "6", "-C", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "crasher suspended: did not start" in result.stdout and "exited with status 3" in result.stdout
    rows = db_rows(
        path, "SELECT b.name, COUNT(DISTINCT s.match_id) FROM bots b LEFT JOIN seats s ON s.bot_id = b.id GROUP BY b.id"
    )
    assert dict(rows) == {"random": 6, "heuristic": 6, "crasher": 0}
    show = waraq("ladder", "show", "-C", str(path))
    assert "suspended" in show.stdout and "crasher suspended: did not start" in show.stdout


@pytest.mark.slow
def test_a_bot_that_crashes_again_and_again_is_suspended_with_the_reason(tmp_path):
    # It exits at its 3rd decision of every match, and is started again each time until suspended.
    exits = f"{PYTHON} {MISBEHAVING} exit --at 3 --port {{port}}"
    path = make(
        tmp_path / "exits", {"random": "random", "heuristic": "heuristic", "exits": exits, "r2": RANDOM_COMMAND}
    )
    result = waraq("ladder", "run", "--matches", "12", "-C", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    status, reason = db_rows(path, "SELECT status, reason FROM bots WHERE name = 'exits'")[0]
    assert status == "suspended" and reason.startswith("3 matches with a crash or start-up fault")
    # Each crash is a forfeit, rated as a loss for the crasher's team; the ladder reached its 12 matches.
    forfeits = db_rows(path, "SELECT COUNT(*) FROM matches WHERE reason = 'forfeit' AND status = 'rated'")[0][0]
    assert forfeits >= 3
    assert db_rows(path, "SELECT COUNT(*) FROM matches WHERE status = 'rated'")[0][0] in (12, 13)
    assert "started again" in result.stdout


# --- three players, until stable ------------------------------------------------------------------


@pytest.mark.slow
def test_three_players_rotate_every_seat_on_one_deal_and_rate_a_free_for_all(tmp_path):
    rules = PRESETS["three"].replace(target_score=1)
    path = make(tmp_path / "three", {"random": "random", "heuristic": "heuristic", "r2": RANDOM_COMMAND}, rules=rules)
    with folder.open_ladder(path) as ladder:
        state = asyncio.run(run(ladder.folder, ladder.config, ladder.store, RunState(Target(6), 3)))
    assert state.finished.reason == "target" and state.played == 6
    deals = db_rows(path, "SELECT deal, GROUP_CONCAT(record, ' ') FROM matches GROUP BY deal")
    assert len(deals) == 2
    for _, records in deals:
        matches = [read_record(path / r).events for r in records.split()]
        seatings = [[s["bot"] for s in m[0]["seats"]] for m in matches]
        for seat in range(3):  # each bot once in each seat
            assert sorted(s[seat] for s in seatings) == sorted(seatings[0])
        first_decks = {json.dumps(next(e["deck"] for e in m if e["type"] == "deal")) for m in matches}
        assert len(first_decks) == 1
    # Free-for-all, rated once a board: three rating rows under each board's last match, none elsewhere.
    for match_id, position in db_rows(path, "SELECT id, position FROM matches"):
        rows = 3 if position == 2 else 0
        assert db_rows(path, f"SELECT COUNT(*) FROM ratings WHERE match_id = {match_id}") == [(rows,)]


@pytest.mark.slow
def test_until_stable_orders_heuristic_above_random_and_says_so(tmp_path):
    bots = {"random": "random", "heuristic": "heuristic"}
    path = make(tmp_path / "stable", bots, rules=PRESETS["two"].replace(target_score=2))
    result = waraq("ladder", "run", "--until-stable", "--confidence", "0.9", "--cap", "300", "-C", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "stable: 1 neighbour pair ordered; 90 % that every verdict is right" in result.stdout
    table = exported(path)["standings"]
    assert [r["bot"] for r in table] == ["heuristic", "random"] and table[0]["vs_next"] == "above"


@pytest.mark.slow
def test_until_stable_stops_at_the_cap_when_two_bots_cannot_be_told_apart(tmp_path):
    path = make(
        tmp_path / "cap", {"random": "random", "r2": RANDOM_COMMAND}, rules=PRESETS["two"].replace(target_score=1)
    )
    result = waraq("ladder", "run", "--until-stable", "--cap", "8", "-C", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not stable: the cap of 8 matches came first" in result.stdout
    assert db_rows(path, "SELECT COUNT(*) FROM matches WHERE status = 'rated'") == [(8,)]


# --- the command line ------------------------------------------------------------------------------


@pytest.mark.slow
def test_show_pairs_and_export(reference, tmp_path):
    show = waraq("ladder", "show", "--pairs", "-C", str(reference))
    assert show.returncode == 0, show.stderr
    for heading in ("Elo", "score", "boards", "faults", "vs next", "Head to head", "95 % interval"):
        assert heading in show.stdout
    figures = waraq("ladder", "show", "--figures", "--bootstrap", "-C", str(reference))
    assert figures.returncode == 0, figures.stderr
    assert "20 boards, 20 complete; ρ = " in figures.stdout
    assert "a board of 2 rooms is worth" in figures.stdout and "β fitted to the matches' results" in figures.stdout
    data = exported(reference)
    assert len(data["standings"]) == 4 and sum(r["matches"] for r in data["standings"]) == 160
    # Four different bots in every 4-player match: every two met on opposite sides in some matches.
    assert len(data["pairs"]) == 6
    for pair in data["pairs"]:
        assert pair["low"] <= pair["rate"] <= pair["high"] and pair["a_wins"] * 2 >= pair["matches"]
    csv = waraq("ladder", "export", "--csv", "--table", "matches", "-C", str(reference))
    lines = csv.stdout.splitlines()
    assert lines[0].startswith("id,batch,deal,position,seed,record,status") and len(lines) == 41


@pytest.mark.slow
def test_init_add_remove_from_the_command_line(tmp_path):
    path = tmp_path / "cli"
    made = waraq("ladder", "init", str(path), "--rules", "two", "--seed", "3")
    assert made.returncode == 0 and (path / "ladder.toml").exists(), made.stderr
    added = waraq("ladder", "add", "h", "heuristic", "-C", str(path))
    assert added.returncode == 0 and "added h: heuristic" in added.stdout, added.stderr
    again = waraq("ladder", "add", "h", "heuristic", "-C", str(path))
    assert "in the ladder already, the same version" in again.stdout
    bad = waraq("ladder", "add", "x", "no such bot", "-C", str(path))
    assert bad.returncode == 2 and "none of: a built-in bot" in bad.stderr
    gone = waraq("ladder", "remove", "h", "-C", str(path))
    assert gone.returncode == 0 and 'name = "h"' not in (path / "ladder.toml").read_text()
    missing = waraq("ladder", "remove", "h", "-C", str(path))
    assert missing.returncode == 2 and "no bot 'h'" in missing.stderr
    back = waraq("ladder", "add", "h", "heuristic", "-C", str(path))  # the same version: the same entry
    assert "h is back: h, the same version, keeps its rating" in back.stdout, back.stdout + back.stderr


@pytest.mark.slow
def test_a_new_version_of_a_bot_is_a_new_entry_unless_told_otherwise(tmp_path):
    bot = tmp_path / "mybot.py"
    bot.write_text("import sys\nfrom waraq.bots import server\nsys.exit(server.main(['random', *sys.argv[1:]]))\n")
    path = make(tmp_path / "versions", {})
    command = f"{PYTHON} {bot} --port {{port}}"
    assert waraq("ladder", "add", "mine", command, "-C", str(path)).returncode == 0
    bot.write_text(bot.read_text() + "# a change\n")
    second = waraq("ladder", "add", "mine", command, "-C", str(path))
    assert "new version" in second.stdout and "mine.v2" in second.stdout
    bot.write_text(bot.read_text() + "# another\n")
    third = waraq("ladder", "add", "mine", command, "--same-entry", "-C", str(path))
    assert "kept in the same entry" in third.stdout
    rows = db_rows(path, "SELECT name, status FROM bots ORDER BY id")
    assert rows == [("mine", "retired"), ("mine.v2", "active")]
