"""The first step of a sandboxed bot's launch: tie it to the referee, join its cgroups, become bwrap.

    python -I -S referee/launch/sandbox_entry.py REFEREE_PID CGROUP_DIR[:CGROUP_DIR...]|- -- BWRAP_ARGV...

Run by :mod:`waraq.referee.launch.sandbox` as the launched process itself, before
bubblewrap. It asks the kernel for SIGKILL when its parent dies and then
checks that the parent is still the referee: a referee killed between the
launch and that request would otherwise leave a sandbox no signal ever ends
(bwrap's own ``--die-with-parent`` has the same gap). It then writes itself
into the bot's cgroups (one per controller under cgroup v1), so that every
process of the bot is born inside them, and execs bwrap, which keeps the
death signal. Standard library only, no site packages: it starts in a few
milliseconds.
"""

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def main() -> None:
    referee, cgroups, separator, *argv = sys.argv[1:]
    if separator != "--" or not argv:
        sys.exit("usage: sandbox_entry.py REFEREE_PID CGROUP_DIR[:CGROUP_DIR...]|- -- ARGV...")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        sys.exit(f"prctl(PR_SET_PDEATHSIG): {os.strerror(ctypes.get_errno())}")
    if os.getppid() != int(referee):
        os._exit(1)  # the referee died before the request took hold: nobody is left to play for
    for folder in cgroups.split(os.pathsep) if cgroups != "-" else ():
        with open(os.path.join(folder, "cgroup.procs"), "w") as procs:
            procs.write(str(os.getpid()))
    try:
        os.execvp(argv[0], argv)
    except OSError as error:  # as a shell says it, and with its statuses: 127 not found, 126 not runnable
        sys.stderr.write(f"{argv[0]}: {error.strerror}\n")
        os._exit(127 if isinstance(error, FileNotFoundError) else 126)


if __name__ == "__main__":
    main()
