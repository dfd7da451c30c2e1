"""A ladder's dial-in bots: a token shown once and kept as a hash, a lobby, play while connected.

Every command is the real ``waraq ladder`` in a process of its own, and the
dial-in bot is the Python starter kit dialling the run's lobby on loopback
(tests/support/dial_in.py). The two other bots are built-in ones, launched.
"""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.dial_in import Kit, free_port, python_kit
from tests.support.ladders import check_invariants, make
from waraq.ladder.play import folder
from waraq.ladder.play.dial_ins import LadderKeys
from waraq.referee.lobby.tokens import digest
from waraq.referee.records.record_file import read_record
from waraq.referee.replay.verify import verify_record

__all__ = ["python_kit"]  # a fixture, used by name
pytestmark = pytest.mark.slow  # every test runs real waraq commands, most a whole ladder run

WARAQ = str(Path(sys.executable).with_name("waraq"))
TOKEN = re.compile(r"token (wq_[A-Za-z0-9_-]+)")


def waraq(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([WARAQ, *args], capture_output=True, text=True, timeout=300)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def token_of(output: str) -> str:
    found = TOKEN.findall(output)
    assert len(found) == 1, output  # printed once
    return found[0]


@pytest.fixture
def ladder(tmp_path: Path) -> Path:
    return make(tmp_path / "ladder", {"random": "random", "greedy": "greedy"})


def test_a_dial_in_bot_is_given_a_token_once_and_the_ladder_keeps_only_its_hash(ladder: Path) -> None:
    added = waraq("ladder", "add", "kit", "--dial-in", "-C", str(ladder))
    token = token_of(added.stdout)
    assert "only time it is shown" in added.stdout
    # Nothing in the folder holds the token: the database has its sha256 only.
    for path in ladder.rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path
    with folder.open_ladder(ladder, readonly=True) as opened:
        keys = LadderKeys(opened.store, {"kit"})
        assert keys.bot_of(token) == "kit"
        assert keys.bot_of(token + "x") is None
        assert opened.store.bot_of_digest(digest(token)) == "kit"
    again = waraq("ladder", "add", "kit", "--dial-in", "-C", str(ladder))
    assert not TOKEN.search(again.stdout)  # adding it again gives no second token
    assert "--rotate" in again.stdout
    rotated = token_of(waraq("ladder", "token", "kit", "--rotate", "-C", str(ladder)).stdout)
    assert rotated != token
    with folder.open_ladder(ladder, readonly=True) as opened:
        keys = LadderKeys(opened.store, {"kit"})
        assert (keys.bot_of(token), keys.bot_of(rotated)) == (None, "kit")
    waraq("ladder", "remove", "kit", "-C", str(ladder))
    with folder.open_ladder(ladder, readonly=True) as opened:
        assert LadderKeys(opened.store, {"kit"}).bot_of(rotated) is None  # a bot removed is refused


@pytest.mark.parametrize(
    "args, said",
    [
        (("add", "kit", "random", "--dial-in"), "give a SPEC"),
        (("add", "kit"), "give a SPEC"),
        (("token", "random", "--rotate"), "no dial-in bot 'random'"),
        (("token", "nobody", "--rotate"), "no dial-in bot 'nobody'"),
        (("run", "--matches", "2", "--lobby", "0.0.0.0:7070"), "--insecure"),
        (("run", "--matches", "2", "--lobby", "nowhere"), "expected HOST:PORT"),
        (
            (
                "run",
                "--matches",
                "2",
                "--tls-cert",
                "/nonexistent.pem",
                "--tls-key",
                "/k.pem",
                "--lobby",
                "127.0.0.1:1",
            ),
            "--tls-key /k.pem",
        ),
    ],
)
def test_a_wrong_use_is_one_line_that_says_what_is_allowed(ladder: Path, args: tuple[str, ...], said: str) -> None:
    waraq("ladder", "add", "kit", "--dial-in", "-C", str(ladder))
    done = waraq("ladder", *args, "-C", str(ladder), check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


# -- runs ----------------------------------------------------------------------------------


@pytest.fixture
def dialled(tmp_path: Path, python_kit: Path) -> Iterator[tuple[Path, str, Kit]]:
    """A ladder of the random bot and the kit, a dial-in bot, dialling the port its runs will listen on.
    Two bots: no match can be planned while the kit is away, so a run waits for it, whenever it comes."""
    ladder = make(tmp_path / "ladder", {"random": "random"})
    token = token_of(waraq("ladder", "add", "kit", "--dial-in", "-C", str(ladder)).stdout)
    address = f"127.0.0.1:{free_port()}"
    kit = Kit(python_kit, address, token)
    yield ladder, address, kit
    kit.stop()


def matches_of(ladder: Path, bot: str) -> tuple[int, int]:
    """(matches played, faults) of ``bot``'s entries."""
    db = sqlite3.connect(ladder / "ladder.sqlite")
    try:
        played = db.execute(
            "SELECT COUNT(DISTINCT m.id) FROM matches m JOIN seats s ON s.match_id = m.id"
            " JOIN bots b ON b.id = s.bot_id WHERE b.base = ? AND m.status IN ('rated', 'unrated')",
            (bot,),
        ).fetchone()[0]
        faults = db.execute(
            "SELECT COUNT(*) FROM faults f JOIN bots b ON b.id = f.bot_id WHERE b.base = ?", (bot,)
        ).fetchone()[0]
    finally:
        db.close()
    return played, faults


def test_a_connected_dial_in_bot_plays_and_show_says_from_where(dialled: tuple[Path, str, Kit]) -> None:
    ladder, address, kit = dialled
    run = subprocess.Popen(
        [WARAQ, "ladder", "run", "--matches", "24", "--quiet", "--lobby", address, "-C", str(ladder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    seen = ""
    deadline = time.monotonic() + 60
    while run.poll() is None and time.monotonic() < deadline:  # show, while the run plays
        seen = waraq("ladder", "show", "-C", str(ladder)).stdout
        if "kit (dial-in): connected since" in seen:
            break
    output, _ = run.communicate(timeout=240)
    assert run.returncode == 0, output
    assert re.search(r"kit \(dial-in\): connected since \S+ from ipv4:127\.0\.0\.1:\d+", seen), seen
    played, faults = matches_of(ladder, "kit")
    assert played > 0 and faults == 0, (played, faults, output, kit.stop())
    for record in sorted((ladder / "records").glob("*.jsonl")):
        assert verify_record(record).ok, record
        seats = read_record(record).header["seats"]  # named by their Hellos
        assert {s["via"] for s in seats if s["bot"] == "python-starter"} <= {"dial-in"}
        assert {s["via"] for s in seats if s["bot"] != "python-starter"} == {"launched"}
    assert "kit (dial-in): not connected" in waraq("ladder", "show", "-C", str(ladder)).stdout
    check_invariants(ladder / "ladder.sqlite")


def test_a_dial_in_bot_that_is_not_connected_is_not_seated_nor_charged(ladder: Path) -> None:
    waraq("ladder", "add", "kit", "--dial-in", "-C", str(ladder))
    done = waraq("ladder", "run", "--matches", "8", "--quiet", "--lobby", f"127.0.0.1:{free_port()}", "-C", str(ladder))
    assert "done: 8 matches" in done.stdout
    assert matches_of(ladder, "kit") == (0, 0)
    assert matches_of(ladder, "random")[0] == 8
    assert "kit (dial-in): not connected" in waraq("ladder", "show", "-C", str(ladder)).stdout


def test_a_run_killed_mid_match_goes_on_with_the_bot_dialling_again(dialled: tuple[Path, str, Kit]) -> None:
    ladder, address, kit = dialled
    command = [WARAQ, "ladder", "run", "--matches", "40", "--quiet", "--lobby", address, "-C", str(ladder)]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while matches_of(ladder, "kit")[0] < 2 and time.monotonic() < deadline:  # killed once the kit has played
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    before = matches_of(ladder, "kit")[0]
    assert before >= 2
    check_invariants(ladder / "ladder.sqlite")
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "done: 40 matches" in done.stdout
    after, faults = matches_of(ladder, "kit")
    assert after > before, (before, after, kit.stop())  # it dialled the new run's lobby and played on
    # The kill cut the kit's streams mid-match; the match is played again whole, never charged to it.
    assert faults == 0
    check_invariants(ladder / "ladder.sqlite")


def test_the_lobby_speaks_tls_with_the_certificate_given(python_kit: Path, tmp_path: Path) -> None:
    ladder = make(tmp_path / "ladder", {"random": "random"})  # a run waits for the kit
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
    )
    token = token_of(waraq("ladder", "add", "kit", "--dial-in", "-C", str(ladder)).stdout)
    address = f"127.0.0.1:{free_port()}"
    kit = Kit(python_kit, address, token, "--tls-ca", str(cert))
    try:
        done = waraq(
            "ladder",
            "run",
            "--matches",
            "16",
            "--quiet",
            "--lobby",
            address,
            "--tls-cert",
            str(cert),
            "--tls-key",
            str(key),
            "-C",
            str(ladder),
        )
        assert "(TLS)" in done.stdout
        assert matches_of(ladder, "kit")[0] > 0, kit.stop()
    finally:
        kit.stop()


def test_versus_seats_a_dial_in_bot_with_a_token_of_its_own(python_kit: Path, tmp_path: Path) -> None:
    command = [WARAQ, "versus", "kit=dial-in", "random", "--boards", "2", "--quiet", "--dir", str(tmp_path / "vs")]
    versus = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert versus.stdout is not None
    told = next(
        (found for line in versus.stdout if (found := re.search(r"dial (\S+) with token (wq_\S+)", line))), None
    )
    assert told is not None, "no dial-in line"
    kit = Kit(python_kit, told.group(1), told.group(2))
    try:
        rest, _ = versus.communicate(timeout=240)
    finally:
        kit.stop()
    assert re.search(r"matches\s+4: kit \d won", rest), rest
    assert matches_of(tmp_path / "vs", "kit") == (4, 0)


def test_a_dial_in_bot_that_leaves_mid_run_is_charged_only_for_the_matches_it_left(
    tmp_path: Path, python_kit: Path
) -> None:
    """Killed mid-run: each match it was in loses its seat after the grace (connection_lost); the
    matches queued for it are held for the grace, then cancelled, uncharged; it is not suspended."""
    ladder = make(tmp_path / "ladder", {"random": "random", "greedy": "greedy"})
    token = token_of(waraq("ladder", "add", "kit", "--dial-in", "-C", str(ladder)).stdout)
    address = f"127.0.0.1:{free_port()}"
    kit = Kit(python_kit, address, token)
    command = [WARAQ, "ladder", "run", "--matches", "48", "--quiet", "--lobby", address, "--grace-s", "1"]
    run = subprocess.Popen([*command, "-C", str(ladder)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while matches_of(ladder, "kit")[0] < 1 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.05)
    kit.process.kill()
    output, _ = run.communicate(timeout=300)
    assert run.returncode == 0 and "done:" in output, output
    assert "kit suspended" not in output  # one drop is no crash, however many matches it was in
    db = sqlite3.connect(ladder / "ladder.sqlite")
    try:
        kit_faults = "FROM faults f JOIN bots b ON b.id = f.bot_id WHERE b.base = 'kit'"
        codes = {row[0] for row in db.execute(f"SELECT f.code {kit_faults}")}
        charged = db.execute(f"SELECT COUNT(DISTINCT f.match_id) {kit_faults}").fetchone()[0]
        others = db.execute("SELECT COUNT(*) FROM faults f JOIN bots b ON b.id = f.bot_id WHERE b.base != 'kit'")
        notes = {
            row[0]
            for row in db.execute(
                "SELECT DISTINCT m.note FROM matches m JOIN seats s ON s.match_id = m.id JOIN bots b"
                " ON b.id = s.bot_id WHERE b.base = 'kit' AND m.status = 'cancelled'"
            )
        }
        others_count = others.fetchone()[0]
    finally:
        db.close()
    assert codes <= {"connection_lost"}, codes
    assert charged <= 8  # only the matches in flight when it left (8 at once), each lost after the grace
    assert notes <= {"kit was not connected"}  # the rest queued for it: cancelled, uncharged (how many: timing)
    assert others_count == 0  # the other bots' results stand
    assert matches_of(ladder, "kit")[0] >= 1
    check_invariants(ladder / "ladder.sqlite")
