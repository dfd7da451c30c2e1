"""A ``waraq`` process raises its own soft limit of open files; the bots it launches keep the sandbox's.

Started at the 1,024 many systems give a process, a run of many matches at once
or a busy arena runs out of descriptors (a channel, a log and pipes per bot; a
connection per visitor). The process here is a real ``waraq match`` waiting for
its person's page, started with that soft limit, and read from /proc.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time
from pathlib import Path

from waraq.referee.common.open_files import OPEN_FILES

WARAQ = str(Path(sys.executable).with_name("waraq"))


def soft_open_files(pid: int) -> int:
    line = next(ln for ln in Path(f"/proc/{pid}/limits").read_text().splitlines() if ln.startswith("Max open files"))
    return int(line.split()[3])


def test_a_waraq_process_started_at_1024_open_files_raises_its_soft_limit(tmp_path):
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    expected = OPEN_FILES if hard == resource.RLIM_INFINITY else min(OPEN_FILES, hard)

    command = [WARAQ, "match", "--bots", "human", "random", "--rules", "short", "--startup-ms", "30000"]
    run = subprocess.Popen(  # the shell sets the soft limit and becomes waraq (exec): run.pid is waraq's
        ["bash", "-c", f'ulimit -Sn {min(1024, hard)} && exec "$@"', "bash", *command],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert run.stdout is not None
        deadline = time.monotonic() + 30
        while not re.search(r"human: your seat's page is", run.stdout.readline()):  # it is set up and waiting
            assert time.monotonic() < deadline and run.poll() is None
        assert soft_open_files(run.pid) == expected > 1024
    finally:
        run.kill()
        run.wait()
