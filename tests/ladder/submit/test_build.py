"""An uploaded bot's build runs in the real sandbox: what it makes comes back, and nothing else gets out.

Each build is a real shell command under the real bubblewrap: one that
builds, and the hostile ones an uploader could send (one that never ends,
forks without end, fills its disk, reaches for the network or for the
ladder's files). Each ends the way it should, saying so in one line, having
written nothing on the host but what came back through its stream.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import stat
import time
from pathlib import Path

import pytest

from tests.support.uploads import listing
from waraq.ladder.submit.build import BuildLimits, Built, Ending, build
from waraq.referee.launch import sandbox

pytestmark = pytest.mark.system("sandbox")  # bubblewrap runs every build
QUICK = BuildLimits(wall_s=20, disk_mb=16, scratch_mb=8, processes=32, memory_mb=256)


@pytest.fixture
def upload(tmp_path: Path) -> Path:
    """An upload inside a ladder's folder, as the pipeline lays one out, beside the ladder's key."""
    ladder = tmp_path / "ladder"
    folder = ladder / "bots" / "alice" / "mybot" / "v1" / "upload"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("print('a bot')\n")
    (folder / "build.sh").write_text("#!/bin/sh\nmkdir -p gen && echo built > gen/out.txt\n")
    (folder / "build.sh").chmod(0o755)
    (ladder / "ladder.key").write_text("0123456789abcdef" * 4)
    return folder


def run(command: str, upload: Path, limits: BuildLimits = QUICK) -> tuple[Built, Path]:
    out = upload.parent / "bot"
    out.mkdir()
    return asyncio.run(build(command, upload, out, limits)), out


def test_what_a_build_makes_comes_back_and_the_upload_is_untouched(upload):
    before = listing(upload)
    built, out = run("./build.sh && chmod 4755 gen/out.txt && ln -s gen/out.txt link && mkfifo pipe", upload)
    assert built.ending is Ending.BUILT, built.log
    sizes = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert built.message.startswith("built in ") and built.message.endswith(f" s: 3 files, {sizes} bytes")
    assert listing(out) == ["bot.py", "build.sh", "gen", "gen/out.txt"]  # the link and the fifo stayed behind
    assert (out / "gen" / "out.txt").read_text() == "built\n"
    assert stat.S_IMODE((out / "gen" / "out.txt").stat().st_mode) == 0o755  # executable, never setuid
    assert "waraq: not kept (a link or a special file): link" in built.log
    assert "waraq: not kept (a link or a special file): pipe" in built.log
    assert listing(upload) == before


def test_a_build_that_never_ends_is_stopped_at_its_wall_clock(upload):
    begun = time.monotonic()
    built, out = run("sleep 1000", upload, BuildLimits(wall_s=1))
    assert (built.ending, built.message) == (
        Ending.TIMED_OUT,
        "the build was stopped after 1 s, its time limit: it was still running",
    )
    assert time.monotonic() - begun < 10
    assert list(out.iterdir()) == []


def test_a_build_that_forks_without_end_meets_its_process_limit(upload):
    built, out = run("while :; do sleep 100 & done", upload, BuildLimits(wall_s=5, processes=32))
    if sandbox.probe().controls(sandbox.Controller.PIDS):
        assert built.ending is Ending.PROCESSES
        assert "it tried to run more than 32 processes at once, its limit" in built.message
    else:  # RLIMIT_NPROC refuses the forks, and no cgroup counts them
        assert built.ending in (Ending.FAILED, Ending.TIMED_OUT)
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("where", ["big", "/tmp/big"])
def test_a_build_that_writes_without_end_fills_its_own_disk_only(upload, where):
    host = upload.parents[4]
    before = _bytes_under(host)
    built, out = run(f"cat /dev/zero > {where}", upload)
    assert built.ending is Ending.DISK
    assert built.message.startswith("the build ran out of disk: /build holds 16 MiB")
    assert "No space left on device" in built.log
    assert list(out.iterdir()) == []
    assert _bytes_under(host) - before < 1 << 20  # the host wrote nothing of it


def test_a_build_has_no_network(upload):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        command = f"bash -c 'echo hello > /dev/tcp/127.0.0.1/{port}'; bash -c 'echo > /dev/tcp/1.1.1.1/53'"
        built, _ = run(command, upload)
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()  # the host's loopback is not the build's: nobody came
    assert built.ending is Ending.FAILED
    assert "Connection refused" in built.log and "Network is unreachable" in built.log


def test_a_build_sees_only_the_system_its_upload_and_its_scratch(upload):
    ladder = upload.parents[4]
    key = ladder / "ladder.key"
    here = Path.cwd() / "pyproject.toml"
    probes = [key, ladder, upload, Path.home(), here]
    command = "; ".join(f"test -e '{path}' && echo 'visible: {path}'" for path in probes)
    built, _ = run(f"{command}; cat '{key}'; ls /; exit 0", upload)
    assert built.ending is Ending.BUILT, built.log
    assert "visible" not in built.log
    assert key.read_text() not in built.log
    tops = set(built.log.split("cat:")[1].splitlines()[1:])
    assert tops <= {"bin", "build", "dev", "etc", "lib", "lib32", "lib64", "libx32", "opt", "proc", "sbin", "tmp",
                    "upload", "usr"}  # fmt: skip


def test_what_comes_back_is_bounded_as_an_upload_is(upload):
    built, out = run("for i in $(seq 20); do echo $i > f$i; done", upload, BuildLimits(wall_s=20, members=10))
    assert built.ending is Ending.OUTPUT
    assert re.fullmatch(r"what the build made is refused: member 'f\d+': more than 10 members", built.message)
    assert list(out.iterdir()) == []


def test_a_build_killed_at_its_memory_limit_says_so(upload):
    if not sandbox.probe().controls(sandbox.Controller.MEMORY):
        pytest.skip("no memory cgroup here: RLIMIT_DATA fails the allocation inside the build instead")
    built, _ = run("python3 -c 'x = bytearray(600 << 20)'", upload)
    assert built.ending is Ending.MEMORY
    assert built.message.startswith("the build was stopped: memory limit 256 MiB exceeded")


def test_the_log_keeps_the_end_of_what_the_build_said(upload):
    built, _ = run("seq 1 200000; echo the end; exit 4", upload, BuildLimits(wall_s=20, log_bytes=1000))
    assert built.ending is Ending.FAILED
    assert built.message == 'the build failed: "seq 1 200000; echo the end; exit 4" ended with status 4; see its log'
    assert built.log.startswith("[… ") and "bytes of earlier output left out]\n" in built.log
    assert built.log.endswith("200000\nthe end\n")
    assert len(built.log) < 1100


def _bytes_under(folder: Path) -> int:
    return sum(os.lstat(os.path.join(here, name)).st_size for here, _, names in os.walk(folder) for name in names)
