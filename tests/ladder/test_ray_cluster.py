"""Ladders played on a real local Ray cluster: two worker processes, one killed mid-match, one head killed.

One cluster serves the module (``ray.init(num_cpus=2)``: two tasks at once, each
in a worker process of its own), shut down at its end. Every ladder here is
the same ladder (tests/support/ladders.py: one seed, one deal key, 1-point
Hokm between the built-in random and heuristic bots, which seed themselves
from the match id and seat), so a ladder played on the cluster must end with
the same matches, results, ratings and records as the reference, played on
this machine by the local scheduler.
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
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import ray  # the README's setup and .ci/run install it: 'waraq[ray]'

from tests.support import TEST_BOTS
from tests.support.ladders import DEAL_KEY, check_invariants, make
from waraq.ladder.play import cluster as cluster_option
from waraq.ladder.play import folder, planned_match, ray_cluster
from waraq.ladder.play.ledger import Target
from waraq.ladder.play.scheduler import RunState, run
from waraq.ladder.storage.config import Bot
from waraq.ladder.storage.store import Planned
from waraq.referee.cli.main import main
from waraq.referee.launch import process_tree
from waraq.referee.match import secret_deals
from waraq.referee.records.record_file import read_record

PYTHON = sys.executable
BOTS = {"random": "random", "heuristic": "heuristic"}
MATCHES = 12  # six boards of two rooms
TASK_TITLE = b"ray::MatchWorker.play"  # a worker's title once it has played a match (Ray leaves it)
CANNOT_START = f"{PYTHON} -c 'raise SystemExit(3)' --port {{port}}"
EXITS = f"{PYTHON} {TEST_BOTS / 'misbehaving.py'} exit --at 3 --unix {{socket}}"  # gone mid-match


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster of two CPUs; its head's address, for another process to join it."""
    # Ray waits 30 s for its GCS server to publish its port; on a loaded 2-core
    # CI machine running four test workers that once ran out. Wait longer, and
    # if it still fails, say what the GCS server logged.
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "180")
    # Ray then waits 30 s (fixed in its code) for the raylet to register; a loaded CI machine once ran
    # out of that too (5 errors here, none elsewhere). And once its GCS server published no port and
    # wrote no log at all within the 180 s (7 errors, on a run that passed the next time): one more
    # start, from nothing, before failing, for either.
    for attempt in (1, 2):
        try:
            ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
            break
        except Exception as error:  # RuntimeError for the GCS's port; a bare Exception for the raylet's wait
            ray.shutdown()
            waited = isinstance(error, RuntimeError) or "timed out during startup" in str(error)
            if attempt == 2 or not waited:
                pytest.fail(f"Ray did not start: {error}\n{_gcs_logs()}")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def _gcs_logs() -> str:
    """The tail of the newest Ray session's GCS server logs."""
    logs = sorted(Path("/tmp/ray").glob("session_*/logs/gcs_server.*"), key=lambda log: log.stat().st_mtime)
    return "\n".join(f"{log}:\n{log.read_text(errors='replace')[-2000:]}" for log in logs[-2:])


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The ladder played on this machine, by the local scheduler."""
    path = make(tmp_path_factory.mktemp("ray") / "local", BOTS)
    state = play(path, None)
    assert state.finished is not None and state.finished.reason == "target"
    return path


def play(
    path: Path, address: str | None, during: Callable[[], Awaitable[None]] | None = None, matches: int = MATCHES
) -> RunState:
    """Run the ladder to ``matches`` here (``address`` None) or on the cluster, with ``during`` beside it."""

    async def main() -> RunState:
        with folder.open_ladder(path) as ladder:
            state = RunState(Target(matches), 2, cluster=address)
            playing = ray_cluster.run if address is not None else run
            work = asyncio.ensure_future(playing(ladder.folder, ladder.config, ladder.store, state))
            if during is not None:
                await during()
            return await work

    return asyncio.run(main())


def rows(path: Path, query: str) -> list[tuple]:
    with sqlite3.connect(path / "ladder.sqlite") as db:
        return db.execute(query).fetchall()


MATCH_ROWS = "SELECT id, deal, position, seed, record, status, reason, winners, score, faulty FROM matches ORDER BY id"
RATING_ROWS = "SELECT match_id, bot_id, mu, sigma FROM ratings ORDER BY match_id, bot_id"


def events(path: Path) -> list[dict]:
    """A record's events without the times, which differ from run to run."""
    return [{k: v for k, v in e.items() if k not in ("ms", "bot_ms", "started")} for e in read_record(path).events]


def assert_same_ladder(path: Path, reference: Path) -> None:
    """Every match counted once, with the reference's results, ratings and records."""
    check_invariants(path / "ladder.sqlite")
    matches = rows(path, MATCH_ROWS)
    assert len(matches) == MATCHES and {m[5] for m in matches} <= {"rated", "unrated"}
    assert rows(path, "SELECT COUNT(*), COUNT(DISTINCT match_id) FROM seats WHERE won IS NOT NULL")[0] == (
        4 * MATCHES,
        MATCHES,
    )
    assert matches == rows(reference, MATCH_ROWS)
    assert rows(path, RATING_ROWS) == rows(reference, RATING_ROWS)
    for (record,) in rows(reference, "SELECT record FROM matches"):
        assert events(path / record) == events(reference / record)
    assert not list((path / "records").glob("*.part"))  # a record is written whole or not at all


def bot_tasks() -> list[int]:
    """The pids of the worker processes that have played a match."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().startswith(TASK_TITLE):
                    found.append(int(entry.name))
            except OSError:
                continue  # it ended while we looked
    return found


def children(pid: int) -> list[int]:
    """The processes it started, from any of its threads (a worker's: its bots, which its event loop's
    thread launches)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue  # the thread, or the process, ended while we looked
    return found


def has_children(pid: int) -> bool:
    return bool(children(pid))


def alive(pid: int) -> bool:
    """Running, not a zombie left for its parent to reap."""
    try:
        return ") Z" not in Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False


def gone_soon(pids: set[int], within: float = 30.0) -> bool:
    """Whether every one of ``pids`` has ended within ``within`` seconds (a sandbox's processes end with
    its namespace, and a worker Ray was told to kill, a moment later)."""
    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(alive(pid) for pid in pids)


def worker_pid(worker: str) -> int:
    """The pid in a worker's name, ``host (node 1a2b3c4d, pid 123)``."""
    return int(worker.rsplit("pid ", 1)[1].rstrip(")"))


def rated(path: Path) -> int:
    if not (path / "ladder.sqlite").exists():
        return 0
    return rows(path, "SELECT COUNT(*) FROM matches WHERE status IN ('rated', 'unrated')")[0][0]


# --- a worker killed mid-match ----------------------------------------------------------------------


@pytest.mark.slow
def test_a_worker_killed_mid_match_costs_that_match_a_rerun_and_nothing_else(cluster, reference, tmp_path, monkeypatch):
    path = make(tmp_path / "ray", BOTS)
    runs: list[ray_cluster.Workers] = []
    killed: list[int] = []
    its_bots: set[int] = set()

    class Watched(ray_cluster.Workers):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            runs.append(self)

    monkeypatch.setattr(ray_cluster, "Workers", Watched)

    async def kill_a_worker_mid_match() -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            # A worker the head has heard from, playing a match now (the head waits for its result).
            playing = [w for w in (runs[0].everyone if runs else []) if w.ready and w not in runs[0].idle]
            named = [worker_pid(w.name) for w in playing if "pid " in w.name]
            if rated(path) >= 2 and named:  # some matches counted, and one being played
                its_bots.update(process_tree.descendants(named[0]))
                os.kill(named[0], signal.SIGKILL)
                killed.append(named[0])
                return
            await asyncio.sleep(0.005)
        raise AssertionError("no worker was seen playing a match within 90 s")

    state = play(path, cluster, kill_a_worker_mid_match)
    assert killed, "no worker was killed"
    assert state.finished is not None and state.finished.reason == "target"
    assert state.played == MATCHES  # the killed match was stored once, from its play on another worker
    assert not any("a result already" in note for note in state.notes)
    assert any(f"pid {killed[0]}) died; played again on another" in note for note in state.notes), state.notes
    assert_same_ladder(path, reference)
    # The dead worker's bots, sandboxed, died with it: none is left behind.
    assert its_bots and gone_soon(its_bots)


# --- the head killed with kill -9 ---------------------------------------------------------------------


def waraq(*args: str) -> list[str]:
    return [PYTHON, "-m", "waraq.referee.cli.main", *args]


@pytest.mark.slow
def test_the_head_killed_with_sigkill_resumes_and_ends_as_the_local_ladder(cluster, reference, tmp_path):
    path = make(tmp_path / "head", BOTS)
    options = ("--matches", f"{MATCHES}", "--concurrency", "2", "--quiet")
    head = subprocess.Popen(
        waraq("ladder", "run", *options, "--ray", cluster, "-C", str(path)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 90
        while rated(path) < 2 or not any(has_children(pid) for pid in bot_tasks()):
            assert head.poll() is None, head.stderr.read() if head.stderr else ""
            assert time.monotonic() < deadline, "the head did not get 2 matches rated, its workers' bots up, in 90 s"
            time.sleep(0.01)
        workers = set(bot_tasks())
        its_bots = {pid for worker in workers for pid in process_tree.descendants(worker)}
        head.send_signal(signal.SIGKILL)
        head.wait(10)
    except BaseException:
        head.kill()
        head.wait(10)
        raise
    left = rows(path, "SELECT COUNT(*) FROM matches WHERE status = 'planned'")[0][0]
    assert left > 0, "nothing was in flight at the kill"
    # Ray ends a dead driver's workers, and their warm bots die with them.
    assert its_bots and gone_soon(its_bots | workers)
    check_invariants(path / "ladder.sqlite")

    again = subprocess.run(
        waraq("ladder", "run", "--quiet", "--ray", cluster, "-C", str(path)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert_same_ladder(path, reference)


# --- bots on workers ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_bot_that_cannot_start_on_a_worker_faults_startup_naming_the_worker(cluster, tmp_path):
    """The worker starts the match's bots; one that exits at start-up is a STARTUP fault there."""
    path = make(tmp_path / "startup", {"heuristic": "heuristic", "broken": CANNOT_START})
    with folder.open_ladder(path) as ladder:
        config = ladder.config
    broken, heuristic = Bot("broken", CANNOT_START), Bot("heuristic", "heuristic")
    seats = ((heuristic, 0), (broken, 0), (heuristic, 1), (broken, 1))
    job = ray_cluster.Job(
        config,
        Planned(1, 0, 0, 0, config.seed, (1, 2, 1, 2), "records/ladder-000001.jsonl"),
        DEAL_KEY,
        seats,
        ray_cluster.Launch(10_000, 1, config.sandbox.confinement(())),
    )
    worker = ray_cluster.MatchWorker.remote()
    try:
        played = ray.get(worker.play.remote(job), timeout=120)
    finally:
        ray.kill(worker)
    faults = played.outcome.faults
    assert faults and {f.kind for f in faults} == {"STARTUP"}
    assert {f.seat for f in faults} <= {1, 3} and played.outcome.faulty
    for fault in faults:
        assert fault.code == "exited_at_startup"
        assert fault.detail.startswith(f"on Ray worker {played.worker}: ")
        assert " (node " in played.worker and os.uname().nodename in played.worker
    assert played.outcome.reason != planned_match.ABORTED
    assert b'"STARTUP"' in played.record  # the record the head writes holds the fault too


@pytest.mark.slow
def test_a_bot_that_cannot_start_on_the_cluster_is_suspended_naming_the_worker(cluster, tmp_path):
    path = make(tmp_path / "suspended", {**BOTS, "broken": CANNOT_START})
    state = play(path, cluster, matches=4)
    (reason,) = rows(path, "SELECT reason FROM bots WHERE name = 'broken'")[0]
    assert reason.startswith("did not start: on Ray worker ") and "exited with status 3" in reason
    assert any(note.startswith("broken suspended") for note in state.suspensions)
    assert rated(path) == 4  # the others played on
    check_invariants(path / "ladder.sqlite")


@pytest.mark.slow
def test_workers_keep_their_bots_warm_never_across_a_deals_rooms_and_leave_none_behind(
    cluster, reference, tmp_path, monkeypatch
):
    path = make(tmp_path / "warm", BOTS)
    played: list[tuple[ray_cluster.Job, ray_cluster.TaskResult]] = []
    bots_seen: set[int] = set()  # every process below a worker, identity starts included
    call = ray_cluster.Workers.call

    async def watched(self, what, keys, method, *args):
        reply = await call(self, what, keys, method, *args)
        if method == "play":
            played.append((args[0], reply))
            bots_seen.update(process_tree.descendants(worker_pid(reply.worker)))
        return reply

    monkeypatch.setattr(ray_cluster.Workers, "call", watched)
    state = play(path, cluster)
    assert state.finished is not None and state.finished.reason == "target"
    assert_same_ladder(path, reference)  # warm processes play the matches the local ladder's play
    process: dict[tuple[str, tuple[Bot, int]], int | None] = {}  # by worker and key
    positions: dict[tuple[str, int | None], set[int]] = {}  # by process: the seatings it played
    for job, result in played:
        for key, pid in zip(job.seats, result.pids, strict=True):
            assert pid is not None and result.restarted == ()
            assert process.setdefault((result.worker, key), pid) == pid  # one process a key on a worker
            positions.setdefault((result.worker, pid), set()).add(job.planned.position)
    assert len(played) == MATCHES and len({w for _, r in played for w in [r.worker]}) == 2
    # Reused: 48 seats in 16 processes at most (2 workers, 2 bots, 2 seats each, 2 rooms).
    assert len(positions) == len(process) <= 16 < 4 * MATCHES
    # A process plays one seating of the deals, so never two rooms of one deal.
    assert all(len(seatings) == 1 for seatings in positions.values())
    # Nothing outlives the run: no bot process, and no worker.
    assert bots_seen >= {pid for _, pid in positions} and gone_soon(bots_seen)
    assert gone_soon({worker_pid(r.worker) for _, r in played})


@pytest.mark.slow
def test_a_bot_that_dies_mid_match_on_a_worker_faults_there_and_is_started_again_for_the_next(cluster, tmp_path):
    path = make(tmp_path / "exits", {"heuristic": "heuristic", "exits": EXITS})
    with folder.open_ladder(path) as ladder:
        config = ladder.config
    exits, heuristic = Bot("exits", EXITS), Bot("heuristic", "heuristic")
    seats = ((heuristic, 0), (exits, 0), (heuristic, 1), (exits, 1))
    how = ray_cluster.Launch(10_000, 1, config.sandbox.confinement(()))
    worker = ray_cluster.MatchWorker.remote()
    try:
        results = [
            ray.get(worker.play.remote(ray_cluster.Job(config, planned, DEAL_KEY, seats, how)), timeout=120)
            for planned in (
                Planned(match, 0, match, 0, config.seed * 1_000_000 + match, (1, 2, 1, 2), f"records/{match}.jsonl")
                for match in (1, 2)
            )
        ]
    finally:
        ray.kill(worker)
    first, second = results
    crashed = {f.seat for f in first.outcome.faults if f.kind == "CRASH"}
    assert crashed and crashed <= {1, 3}  # the exits bot's seats: it died in the match
    assert set(second.restarted) == crashed  # found dead at the next match, and started again
    assert all(second.pids[seat] not in (None, first.pids[seat]) for seat in crashed)
    assert (second.pids[0], second.pids[2]) == (first.pids[0], first.pids[2])  # heuristic's kept
    assert any(f.kind == "CRASH" for f in second.outcome.faults)  # the new process dies as the old did
    assert not any(f.kind == "STARTUP" for r in results for f in r.outcome.faults)


# --- waraq versus ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_versus_on_the_cluster_plays_the_boards_of_the_same_command_run_here(cluster, tmp_path, capsys, monkeypatch):
    """`waraq versus --ray` decides on the same boards as without it: its matches are the same matches."""
    monkeypatch.setattr(secret_deals, "new_key", lambda: DEAL_KEY)  # both folders' decks under one key
    options = ["heuristic", "random", "--rules", "two", "--seed", "4", "--boards", "3", "--quiet"]
    assert main(["versus", *options, "--dir", str(tmp_path / "here")]) == 2  # the cap of 3 boards comes first
    assert main(["versus", *options, "--ray", cluster, "--dir", str(tmp_path / "ray")]) == 2
    summaries = capsys.readouterr().out.split("versus ")[1:]
    assert len(summaries) == 2 and summaries[0].replace("here", "ray") == summaries[1]
    assert rows(tmp_path / "ray", MATCH_ROWS[: MATCH_ROWS.index(", record")] + " FROM matches") == rows(
        tmp_path / "here", MATCH_ROWS[: MATCH_ROWS.index(", record")] + " FROM matches"
    )


# --- without Ray ---------------------------------------------------------------------------------------------

NO_RAY = "import sys; sys.modules['ray'] = None; from waraq.referee.cli.main import main; sys.exit(main())"


@pytest.mark.parametrize(
    "command",
    [
        ["ladder", "run", "--ray", "auto", "-C", "{dir}"],
        ["versus", "random", "heuristic", "--ray", "auto", "--dir", "{dir}"],
    ],
)
def test_ray_asked_for_without_ray_installed_is_one_line_naming_the_extra(command, tmp_path):
    where = tmp_path / "ladder"
    if command[0] == "ladder":
        make(where, BOTS)
    before = sorted(p.name for p in where.iterdir()) if where.exists() else None
    args = [a.replace("{dir}", str(where)) for a in command]
    result = subprocess.run([PYTHON, "-c", NO_RAY, *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"error: {cluster_option.MISSING}"]
    assert "pip install 'waraq[ray]'" in cluster_option.MISSING
    after = sorted(p.name for p in where.iterdir()) if where.exists() else None
    assert after == before  # nothing was started, planned or made


@pytest.mark.slow
def test_without_ray_asked_for_nothing_of_ray_is_imported(tmp_path):
    path = make(tmp_path / "local", BOTS)
    code = (
        "import sys; sys.modules['ray'] = None; from waraq.referee.cli.main import main; "
        "code = main(); import json; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'ray'"
        " or m.endswith('ray_cluster')))); "
        " sys.exit(code)"
    )
    result = subprocess.run(
        [PYTHON, "-c", code, "ladder", "run", "--matches", "2", "--quiet", "-C", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == ["ray"]  # only the None we put there
