"""A launched bot's processes as /proc shows them: who descends from whom, and who is a namespace's init.

:meth:`waraq.referee.launch.sandbox.Launch.terminate` asks a sandboxed bot to
stop by signalling the processes inside its sandbox, which it finds here. It
reads every process's ``stat`` once (its parent) and ``status`` for the few it
finds (``NSpid``: its pid in each PID namespace it lives in, innermost last),
both readable by any user whatever the process's owner. The kernels this runs on
need not offer ``/proc/PID/task/TID/children`` (it needs
``CONFIG_PROC_CHILDREN``), so the tree is built from every process's parent.
"""

from __future__ import annotations

import os


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children, theirs, ...), parents before their children.

    A snapshot: a process forked while /proc is read may be missing.
    """
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            parent = _parent(entry)
            if parent is not None:
                children.setdefault(parent, []).append(int(entry))
    found, frontier = [], [pid]
    while frontier:
        below = [child for parent in frontier for child in children.get(parent, ())]
        found += below
        frontier = below
    return found


def _parent(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except OSError:  # it ended while the folder was listed
        return None
    # "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so read after the last ')'.
    return int(text[text.rindex(b")") + 2 :].split(maxsplit=2)[1])


def innermost_pid(pid: int) -> int | None:
    """``pid``'s number in its own PID namespace (1: that namespace's init), None once it has ended."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except OSError:
        return None
    return pid  # a kernel before 4.1 says nothing of namespaces: take it as the host's own
