"""The referee's own limit of open files, raised for what a run holds open.

Each launched bot is a channel, a log and a process's pipes; a served arena's
visitors are a connection each; and the database, the records. Many systems
start a process at a soft limit of 1,024, which a run of many matches at once
or a busy arena would reach (``EMFILE``: a bot that cannot be reached, a
record not written). The hard limit is the system's to give; the soft one is
raised towards it. A sandboxed bot keeps the sandbox's own limit
(``referee/launch/sandbox.py``).
"""

from __future__ import annotations

import resource

OPEN_FILES = 65536  # the soft limit asked for, as far as the hard one allows


def raise_soft_limit(wanted: int = OPEN_FILES) -> int:
    """Raise this process's soft limit of open files towards ``wanted``; the soft limit it has then."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft
