"""``waraq doctor``: what this machine offers for confining bots, and what a run will use.

It says what :mod:`waraq.referee.launch.sandbox` can do here from a real trial: a shell started in a
full sandbox reports its uid, the processes it sees and the network it has. The options that choose
the confinement of a run are :mod:`waraq.referee.launch.sandbox_options`.
"""

from __future__ import annotations

import argparse
import subprocess

from rich.console import Console

from waraq.referee.launch import sandbox

TRIAL = "id -u; ls /proc | grep -c '^[0-9]'; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ' | tr '\\n' ' '"


def register(commands: argparse._SubParsersAction) -> None:
    commands.add_parser("doctor", help="say how this machine confines launched bots (exit 1: it cannot)")


def doctor(console: Console) -> int:
    support = sandbox.probe()
    if support.root:
        user = "a fresh unprivileged uid per bot (the referee runs as root)"
    else:
        user = "the referee's uid inside a user namespace"
    cgroups = support.cgroups
    where = {c: cgroups.describe(c) if cgroups else None for c in sandbox.Controller}
    memory = where[sandbox.Controller.MEMORY]
    if memory:
        memory += ": a bot over it is killed, and its fault says so"
    else:
        memory = "RLIMIT_DATA: allocations past it fail inside the bot (no cgroup this process may write)"
    cpu = where[sandbox.Controller.CPU]
    cpu = f"{cpu}: a bot's processes together" if cpu else "NONE: a bot may take every core (no cpu cgroup)"
    processes = where[sandbox.Controller.PIDS]
    processes = f"{processes}: a bot's together" if processes else "RLIMIT_NPROC: counted per uid"
    if support.socat:
        by_port = f"reached through socat ({support.socat})"
    else:
        by_port = "need socat (apt-get install socat); {socket} bots do not"
    rows = [
        ("bubblewrap", f"{support.bwrap} {support.bwrap_version}" if support.bwrap else "not installed"),
        ("sandbox", "works" if support.usable else f"cannot run: {support.problem}"),
        *([("trial bot", _trial())] if support.usable else []),
        ("bot user", user),
        ("memory limit", memory),
        ("CPU share", cpu),
        ("processes limit", processes),
        ("CPU seconds, file size", "rlimits set inside the sandbox"),
        ("covert channels", "closed: seccomp filter (locks, inotify, sysinfo), /proc's counters frozen"),
        ("{port} bots", by_port),
        (
            "--sandbox auto",
            "launched bots run sandboxed" if support.usable else "launched bots run UNCONFINED, with a warning",
        ),
    ]
    console.print("Confining launched bots (referee/launch/sandbox.py, docs/security.md)", highlight=False)
    for what, found in rows:
        console.print(f"  {what + ':':27} {found}", markup=False, highlight=False, soft_wrap=True)
    return 0 if support.usable else 1


def _trial() -> str:
    """What a shell in a real sandbox sees: its uid, the processes, the network interfaces."""
    launch = sandbox.confine(["/bin/sh", "-c", TRIAL], cwd="/", config=sandbox.Config(mode=sandbox.Isolation.ON))
    try:
        seen = subprocess.run(
            launch.argv, env=launch.env, capture_output=True, text=True, timeout=30, pass_fds=launch.pass_fds
        )
    finally:
        launch.cleanup()
    lines = seen.stdout.split("\n")
    if seen.returncode != 0 or len(lines) < 3:
        return f"failed (exit {seen.returncode}): {seen.stderr.strip()[-200:]}"
    uid, processes, interfaces = lines[0], lines[1], lines[2].split()
    return f"ran as uid {uid}, saw {processes} processes, network interfaces: {', '.join(interfaces) or 'none'}"
