"""Launched bots in their sandbox: hostile bots stopped, honest bots unchanged, limits typed.

The hostile bot (``tests/bots/hostile.py``) is a real process launched by the
real referee inside bubblewrap; at its first decision it tries each attack a
tester made on an unconfined referee (issue 11) and reports every result in
its note. A test asserts that no attack worked, and checks from outside what
it can: the record and the secret file unchanged, the opponent never stopped
and never faulted, no process left behind.

Hand-worked expectations: 4-player Hokm to 1 point, the hostile bot at seat 1
(team 1 + 3), an honest random bot at the other seats. A bot killed by a limit
at its first decision forfeits round 1 at 0-0, seats 0 and 2 winning.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.support.sandboxed import HOSTILE, ON, first_note, hostile, play, processes_with, wait_until
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.play import TimeControl
from waraq.referee.records.record_file import read_record

# bubblewrap's sandbox; the JavaScript bot is among the honest ones
pytestmark = pytest.mark.system("sandbox", "node")
BAD = 1
AS_ROOT = os.geteuid() == 0


@pytest.fixture
def victim(tmp_path):
    """An honest random bot in a process of its own on a loopback port: the attacks' target."""
    port_file = tmp_path / "victim.port"
    process = subprocess.Popen(
        [sys.executable, "-c", VICTIM, str(port_file)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        wait_until(lambda: port_file.exists() and port_file.read_text().strip(), what="the victim bot")
        yield process.pid, int(port_file.read_text())
    finally:
        process.kill()
        process.wait(10)


VICTIM = """
import asyncio, sys
from waraq.bots.server import PlayerBot, builtin_players, start_server
async def main():
    server, port = await start_server(PlayerBot("random", builtin_players()["random"]), "127.0.0.1:0")
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(port))
    import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    await server.wait_for_termination()
asyncio.run(main())
"""


def test_the_machine_can_sandbox():
    """CI installs bubblewrap and socat: confinement is tested for real, never skipped."""
    support = sandbox.probe()
    assert support.usable, support.problem
    assert support.socat is not None


def test_a_hostile_bot_reaches_nothing_it_attacks(tmp_path, victim, monkeypatch):
    victim_pid, victim_port = victim
    monkeypatch.setenv("WARAQ_DEAL_KEY", "the-secret")
    # The bot's folder (the referee's, here) holds the records and a secret file: both must be hidden.
    folder = tmp_path / "arena"
    records = folder / "records"
    secret_dir = folder / "ladder"
    secret_dir.mkdir(parents=True)
    secret = secret_dir / "ladder.sqlite"
    secret.write_bytes(b"SQLite format 3\0 the ratings")
    token = f"waraq-orphan-{os.getpid()}-{time.monotonic_ns()}"
    live_record = records / "hokm-1.jsonl"
    bad = hostile(
        "--read", str(live_record), "--write", str(live_record),
        "--read", str(secret), "--write", str(secret),
        "--write", str(HOSTILE),
        "--stop", str(victim_pid),
        "--connect", str(victim_port), "--steal-port", str(victim_port),
        "--env", "WARAQ_DEAL_KEY",
        "--spawn", token,
    )  # fmt: skip
    address = BotSpec.parse(f"127.0.0.1:{victim_port}")
    confinement = sandbox.Config(mode=sandbox.Isolation.ON, hidden=(secret_dir,))
    report = play([address, bad, address, address], records, confinement, cwd=folder)

    outcome = report.outcomes[0]
    assert (outcome.reason, outcome.faults) == ("score", []), outcome  # nobody faulted: the victim never stalled
    found = first_note(outcome.record, BAD)
    worked = {attack: result for attack, result in found.items() if result.startswith("done")}
    assert worked == {}
    assert found[f"read:{live_record}"].startswith("blocked")
    assert found[f"write:{HOSTILE}"] in ("blocked: EROFS", "blocked: EACCES")  # read-only; not even its own
    assert found[f"stop:{victim_pid}"] == "blocked: ESRCH"  # another PID namespace: no such process
    assert found[f"connect:{victim_port}"] == "blocked: ECONNREFUSED"  # a loopback of its own
    assert found["env:WARAQ_DEAL_KEY"] == "blocked: absent"
    assert int(found["processes seen"]) < 40  # its own, not the machine's
    # From outside: the secret and the record are as they were, the victim runs, no child is left.
    assert secret.read_bytes() == b"SQLite format 3\0 the ratings"
    assert read_record(outcome.record).complete
    assert Path(f"/proc/{victim_pid}/stat").read_text().split(")")[1].split()[0] != "T"
    wait_until(lambda: not processes_with(token), 10, "the end of the bot's setsid child")


def test_a_hostile_bot_on_a_port_is_reached_and_still_contained(tmp_path, victim):
    """A ``{port}`` bot listens on its own loopback; socat carries the referee's socket to it."""
    victim_pid, victim_port = victim
    bad = hostile("--stop", str(victim_pid), "--steal-port", str(victim_port), listen="--port {port}")
    address = BotSpec.parse(f"127.0.0.1:{victim_port}")
    report = play([address, bad, address, address], tmp_path / "records", cwd=tmp_path)
    outcome = report.outcomes[0]
    assert (outcome.reason, outcome.faults) == ("score", []), outcome
    found = first_note(outcome.record, BAD)
    assert found[f"stop:{victim_pid}"] == "blocked: ESRCH"
    assert found[f"steal:{victim_port}"] == "bound"  # its own loopback's port: the victim's stays whole


def test_a_fork_bomb_hits_the_process_limit_and_harms_only_its_bot(tmp_path):
    """Its gRPC threads count too, so the bomber may break itself: that is its own fault, charged to it."""
    random_ = BotSpec.parse("random")
    bots = [random_, hostile("--fork", "1000"), random_, random_]
    limits = sandbox.Limits(processes=48)
    confinement = sandbox.Config(mode=sandbox.Isolation.ON, limits=limits)
    # A bomber that wedges itself times out: a short clock keeps the test short.
    quick = TimeControl(decision_ms=2_000, bank_ms=1_000, startup_ms=30_000)
    report = play(bots, tmp_path / "records", confinement, cwd=tmp_path, games=2, time_control=quick)
    for outcome in report.outcomes:
        assert all(f.seat == BAD for f in outcome.faults), outcome.faults
        if outcome.faults:
            assert (outcome.reason, outcome.faulty) == ("forfeit", (BAD,))
        else:
            assert first_note(outcome.record, BAD)["fork"].startswith("blocked after")


LIMITS = {
    "memory": (("--memory-mb", "1024"), sandbox.Limits(memory_mb=256), "memory limit 256 MiB exceeded"),
    "cpu": (("--spin",), sandbox.Limits(cpu_seconds=1), "CPU time limit 1 s exceeded"),
    "file size": (("--big-file-mb", "8"), sandbox.Limits(file_mb=1), "file size limit 1 MiB exceeded"),
}


@pytest.mark.parametrize("name", LIMITS)
def test_a_bot_killed_by_a_limit_forfeits_with_a_fault_naming_it(name, tmp_path):
    flags, limits, detail = LIMITS[name]
    if name == "memory" and not sandbox.probe().controls(sandbox.Controller.MEMORY):
        pytest.fail("no cgroup to limit memory in: the memory limit falls back to RLIMIT_DATA, untyped")
    random_ = BotSpec.parse("random")
    bots = [random_, hostile(*flags), random_, random_]
    report = play(bots, tmp_path / "records", sandbox.Config(mode=sandbox.Isolation.ON, limits=limits), cwd=tmp_path)
    outcome = report.outcomes[0]
    assert (outcome.reason, outcome.faulty, outcome.winners, outcome.score) == ("forfeit", (BAD,), (0, 2), (0, 0))
    [fault] = outcome.faults
    assert fault.kind == "CRASH" and detail in fault.detail, fault


def test_nothing_a_bot_starts_outlives_a_referee_killed_with_sigkill(tmp_path):
    token = f"waraq-orphan-{os.getpid()}-{time.monotonic_ns()}"
    bad = shlex.join([sys.executable, str(HOSTILE), "--spawn", token]) + " --unix {socket}"
    referee = subprocess.Popen(
        [sys.executable, "-m", "waraq.referee.cli.main", "match", "--bots", "random", bad, "--games", "500",
         "--rules", "short", "--record", str(tmp_path / "records"), "--sandbox", "on"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp_path,
    )  # fmt: skip
    try:
        # The child's own command line: a word of its own is the token (the referee's and bwrap's
        # hold it inside the bot's command).
        wait_until(lambda: processes_with(token, "-c") or referee.poll() is not None, what="the bot's setsid child")
        assert referee.poll() is None, referee.stderr.read().decode()
        referee.send_signal(signal.SIGKILL)
        referee.wait(10)
    finally:
        referee.kill()
    wait_until(lambda: not processes_with(token), 10, "the end of every process the bot started")


@pytest.mark.parametrize("spec", ["random", "node sample_bots/starters/js/bot.js --port {port}"])
def test_honest_bots_play_unchanged_inside_the_sandbox(spec, tmp_path):
    """The same matches, confined or not: the records agree decision for decision."""
    repo = ROOT
    bots = [BotSpec.parse(spec), BotSpec.parse("heuristic")] * 2
    records = {}
    for mode in (sandbox.Isolation.ON, sandbox.Isolation.OFF):
        report = play(bots, tmp_path / mode.value, sandbox.Config(mode=mode), cwd=repo, games=2)
        assert all(o.reason == "score" and not o.faults for o in report.outcomes), report.outcomes
        records[mode] = [
            [(e["seat"], e["action"]) for e in read_record(o.record).events if e["type"] == "decision"]
            for o in report.outcomes
        ]
    assert records[sandbox.Isolation.ON] == records[sandbox.Isolation.OFF]


def test_without_bubblewrap_auto_warns_once_and_on_refuses(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on this PATH
    sandbox.probe.cache_clear()
    monkeypatch.setattr(sandbox, "_warned", False)
    try:
        assert not sandbox.probe().usable and "bubblewrap is not installed" in sandbox.probe().problem
        bot = BotSpec.parse(shlex.join([sys.executable, "-m", "waraq.bots.server", "random"]) + " --unix {socket}")
        repo = ROOT
        refused = play([bot] * 4, tmp_path / "on", ON, cwd=repo)
        assert refused.outcomes[0].reason == "forfeit"
        assert {f.kind for f in refused.outcomes[0].faults} == {"STARTUP"}
        assert "bots cannot be sandboxed: bubblewrap is not installed" in refused.outcomes[0].faults[0].detail
        auto = play([bot] * 4, tmp_path / "auto", sandbox.Config(), cwd=repo, games=2)
        assert [o.reason for o in auto.outcomes] == ["score", "score"]
        warnings = [line for line in capsys.readouterr().err.splitlines() if "unconfined" in line]
        assert warnings == ["warning: launched bots run unconfined: bubblewrap is not installed "
                            "(Debian: apt-get install bubblewrap) (see `waraq doctor`)"]  # fmt: skip
    finally:
        sandbox.probe.cache_clear()


def test_a_hostile_ladder_bot_cannot_touch_the_ladder(tmp_path):
    """The ladder's folder (database, records, key, logs) is hidden from its bots, whatever they know of it."""
    from waraq.ladder.play import folder

    path = tmp_path / "ladder"
    folder.init(path, HokmRules(target_score=1), seed=3)
    database, key, config = path / "ladder.sqlite", path / "ladder.key", path / "ladder.toml"
    first = path / "records" / "ladder-000001.jsonl"
    bad = hostile(
        "--read", str(key), "--write", str(database), "--write", str(config), "--read", str(first),
        "--write", str(first), "--read", str(path / "logs"),
    )  # fmt: skip
    with folder.open_ladder(path) as ladder:
        folder.add(ladder, "hostile", str(bad), check=False)
        folder.add(ladder, "random", "random", check=False)
    toml_before = config.read_bytes()
    ran = subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "ladder", "run", "--matches", "4", "-C", str(path)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    notes = []
    for record in sorted((path / "records").glob("*.jsonl")):
        events = read_record(record).events
        hostile_seats = {s["seat"] for s in events[0]["seats"] if s["bot"] == "hostile"}
        notes += [
            json.loads(e["note"])
            for e in events
            if e["type"] == "decision" and e["seat"] in hostile_seats and "note" in e
        ]
    assert notes, "the hostile bot played and reported"
    for found in notes:
        assert not [a for a, result in found.items() if result.startswith("done")], found
    assert config.read_bytes() == toml_before
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT COUNT(*) FROM matches WHERE status = 'rated'").fetchone() == (4,)


def test_doctor_says_what_confines_the_bots(monkeypatch, tmp_path):
    shown = subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "doctor"], capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0, shown.stdout + shown.stderr
    text = " ".join(shown.stdout.split())
    assert "sandbox: works" in text and "network interfaces: lo" in text
    assert ("a fresh unprivileged uid per bot" if AS_ROOT else "user namespace") in text
    bare = subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "doctor"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "PATH": str(tmp_path)},
    )  # fmt: skip
    assert bare.returncode == 1
    assert "bubblewrap is not installed" in bare.stdout and "UNCONFINED" in bare.stdout


def test_an_unconfined_bot_keeps_the_environment_but_not_the_deal_key(tmp_path, monkeypatch):
    monkeypatch.setenv("WARAQ_DEAL_KEY", "the-secret")
    monkeypatch.setenv("SOME_TOOLCHAIN_HOME", "/opt/tool")
    random_ = BotSpec.parse("random")
    bad = hostile("--env", "WARAQ_DEAL_KEY", "--env", "SOME_TOOLCHAIN_HOME")
    off = sandbox.Config(mode=sandbox.Isolation.OFF)
    report = play([random_, bad, random_, random_], tmp_path / "records", off, cwd=tmp_path)
    found = first_note(report.outcomes[0].record, BAD)
    assert (found["env:WARAQ_DEAL_KEY"], found["env:SOME_TOOLCHAIN_HOME"]) == ("blocked: absent", "done")


def test_a_home_folder_is_never_shown_whole(tmp_path, monkeypatch):
    """Run from a home folder, a bot sees only the files its command names there, not the keys beside them."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (home / "mybot.py").write_text(HOSTILE.read_text())
    monkeypatch.setenv("HOME", str(home))
    random_ = BotSpec.parse("random")
    key = home / ".ssh" / "id_ed25519"
    command = shlex.join([sys.executable, "mybot.py", "--read-hex", str(key).encode().hex()])
    bad = BotSpec.parse(command + " --unix {socket}")
    report = play([random_, bad, random_, random_], home / "records", cwd=home)
    outcome = report.outcomes[0]
    assert (outcome.reason, outcome.faults) == ("score", []), outcome
    assert first_note(outcome.record, BAD)["read-hex:0"] == "blocked: ENOENT"


def test_a_path_the_command_names_cannot_undo_a_hidden_folder(tmp_path):
    """A bot command naming a folder inside the hidden records (as a stranger's README might ask)
    still finds it covered."""
    arena = tmp_path / "arena"
    records = arena / "records"
    (records / "old").mkdir(parents=True)
    (records / "old" / "hokm-9.jsonl").write_text('{"type":"match"}\n')
    random_ = BotSpec.parse("random")
    bad = hostile("--read", str(records / "old" / "hokm-9.jsonl"))
    report = play([random_, bad, random_, random_], records, ON, cwd=arena)
    found = first_note(report.outcomes[0].record, BAD)
    assert found[f"read:{records / 'old' / 'hokm-9.jsonl'}"].startswith("blocked")


def test_a_ladder_bot_added_from_inside_the_ladder_folder_sees_its_own_folder_only(tmp_path):
    """The bot's own folder inside a hidden one (a ladder's bots/ folder) is shown again; the ladder's
    key, database and records beside it stay hidden."""
    from waraq.ladder.play import folder

    path = tmp_path / "ladder"
    folder.init(path, HokmRules(target_score=1), seed=5)
    own = path / "bots" / "mine"
    own.mkdir(parents=True)
    (own / "weights.txt").write_text("the bot's own data")
    key = path / "ladder.key"
    bad = hostile(
        "--read-hex", str(own / "weights.txt").encode().hex(), "--read-hex", str(key).encode().hex(),
        listen="--port {port}",
    )  # fmt: skip
    here = os.getcwd()
    os.chdir(own)  # a {port} command runs in the folder it was added from
    try:
        with folder.open_ladder(path) as ladder:
            folder.add(ladder, "hostile", str(bad), check=False)
            folder.add(ladder, "random", "random", check=False)
    finally:
        os.chdir(here)
    found = hostile_note_after_a_ladder_run(path, tmp_path)
    assert found["read-hex:0"] == "done"  # its weights
    assert found["read-hex:1"].startswith("blocked")  # the ladder's key


def hostile_note_after_a_ladder_run(path: Path, cwd: Path) -> dict:
    """``waraq ladder run --matches 2`` on the ladder at ``path``: the hostile bot's first note."""
    ran = subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "ladder", "run", "--matches", "2", "-C", str(path)],
        capture_output=True, text=True, timeout=300, cwd=cwd,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    [record, *_] = sorted((path / "records").glob("*.jsonl"))
    seats = read_record(record).events[0]["seats"]
    return first_note(str(record), next(s["seat"] for s in seats if s["bot"] == "hostile"))


def test_a_bot_whose_command_names_its_script_in_its_folder_inside_the_ladder_sees_that_folder(tmp_path):
    """An uploaded bot lives under the ladder's folder and is run as ``python hostile.py`` from its own
    folder (waraq.ladder.submit): the paths its command names inside that folder are shown again; the
    ladder's key beside it stays hidden."""
    from waraq.ladder.play import folder

    path = tmp_path / "ladder"
    folder.init(path, HokmRules(target_score=1), seed=5)
    own = path / "bots" / "alice" / "hostile" / "v1"
    own.mkdir(parents=True)
    shutil.copy(HOSTILE, own / "hostile.py")
    (own / "weights.txt").write_text("the bot's own data")
    key = path / "ladder.key"
    reads = ["--read-hex", str(own / "weights.txt").encode().hex(), "--read-hex", str(key).encode().hex()]
    command = shlex.join([sys.executable, "hostile.py", *reads]) + " --port {port}"
    here = os.getcwd()
    os.chdir(own)  # a {port} command runs in the folder it was added from
    try:
        with folder.open_ladder(path) as ladder:
            folder.add(ladder, "hostile", command, check=False)
            folder.add(ladder, "random", "random", check=False)
    finally:
        os.chdir(here)
    found = hostile_note_after_a_ladder_run(path, tmp_path)
    assert found["read-hex:0"] == "done"  # its weights
    assert found["read-hex:1"].startswith("blocked")  # the ladder's key


def test_partners_of_one_bot_are_served_by_two_processes(tmp_path):
    """One process for both partner seats would be sent both hands: each seat gets a process of its own."""
    random_ = BotSpec.parse("random")
    bad = hostile()
    report = play([random_, bad, random_, bad], tmp_path / "records", cwd=tmp_path, games=2)
    for outcome in report.outcomes:
        events = read_record(outcome.record).events
        notes = [json.loads(e["note"]) for e in events if e["type"] == "decision" and e["seat"] in (1, 3)]
        assert notes and all(note["other seats"] == "none" for note in notes)


def test_an_unconfined_bot_dies_with_a_referee_killed_with_sigkill(tmp_path):
    """Without bubblewrap, the bot itself still dies with the referee (referee/launch/sandbox_entry.py),
    also when the kill comes while the bot is being launched."""
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("sh",):  # a PATH with no bwrap
        (bare / tool).symlink_to(shutil.which(tool))
    token = f"waraq-unconfined-{os.getpid()}-{time.monotonic_ns()}"
    bad = shlex.join([sys.executable, str(HOSTILE), "--env", token]) + " --unix {socket}"
    referee = subprocess.Popen(
        [sys.executable, "-m", "waraq.referee.cli.main", "match", "--bots", bad, "--games", "500", "--rules", "short",
         "--record", str(tmp_path / "records")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path, env={**os.environ, "PATH": str(bare)},
    )  # fmt: skip
    try:
        wait_until(lambda: processes_with(str(HOSTILE), token) or referee.poll() is not None, what="the bot")
        assert referee.poll() is None, referee.stdout.read().decode()
        referee.send_signal(signal.SIGKILL)
        referee.wait(10)
    finally:
        referee.kill()
    wait_until(lambda: not processes_with(str(HOSTILE), token), 10, "the end of the unconfined bot")


def test_a_ladder_bot_has_a_process_for_each_seat_and_each_seating_of_a_deal(tmp_path):
    """Partners served by one process would share their hands; the matches of a duplicate deal
    share their decks, so a process that played one would know the hands of the next."""
    from waraq.ladder.play import folder

    path = tmp_path / "ladder"
    folder.init(path, HokmRules(target_score=1), seed=4, partners="self")
    with folder.open_ladder(path) as ladder:
        folder.add(ladder, "hostile", str(hostile()), check=False)
        folder.add(ladder, "random", "random", check=False)
    ran = subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "ladder", "run", "--matches", "4", "-C", str(path)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    notes, processes_of_deal = [], {}
    for record in sorted((path / "records").glob("*.jsonl")):
        events = read_record(record).events
        mine = {s["seat"] for s in events[0]["seats"] if s["bot"] == "hostile"}
        assert len(mine) == 2  # partners
        seen = [json.loads(e["note"]) for e in events if e["type"] == "decision" and e["seat"] in mine]
        notes += seen
        processes_of_deal.setdefault(events[0]["seed"], []).append({note["process"] for note in seen})
    assert len(notes) > 8 and all(note["other seats"] == "none" for note in notes)
    assert sorted(len(matches) for matches in processes_of_deal.values()) == [2, 2]  # two duplicate deals
    for first, second in processes_of_deal.values():
        assert len(first) == len(second) == 2 and not first & second
