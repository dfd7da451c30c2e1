"""A bot that floods its log with short lines and exits before it is ever ready.

    python tests/bots/log_bomb.py [--mib N] [--spare-kib K] [--line-bytes B] [--status S] (--port N | --unix PATH)

It writes N MiB less K KiB (64 MiB by default, the sandbox's file size limit:
a confined bot cannot write more into one file; less 64 KiB, room for what
``socat`` writes to the same log in the sandbox) of B-byte lines to stdout,
then its last words, ``LAST_WORDS`` lines of its own, and exits with status S
without ever listening. Issue 30, item 6: the referee read such a log whole into memory
inside its event loop to quote the last five lines in the ``STARTUP`` fault,
63 MB of output growing it to 1.7 GB and blocking every other match for 21 s.
"""

from __future__ import annotations

import argparse
import sys

MIB = 1 << 20
LAST_WORDS = tuple(f"log bomb: last words {n} of 5" for n in range(1, 6))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=64, help="how much to write in all, last words included")
    parser.add_argument("--spare-kib", type=int, default=64, help="... less this")
    # 4: "xxx\n", 16 M lines of 3 characters, each line a str of its own (a list of one-character lines would
    # hold one cached str 32 M times: a quarter of the memory), so reading it whole costs the most.
    parser.add_argument("--line-bytes", type=int, default=4, help="each line's length, its newline included")
    parser.add_argument("--status", type=int, default=3, help="the status to exit with")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", type=int, help="ignored: it never listens")
    where.add_argument("--unix", help="ignored: it never listens")
    args = parser.parse_args()
    last = "".join(line + "\n" for line in LAST_WORDS).encode()
    line = b"x" * (args.line_bytes - 1) + b"\n"
    chunk = line * (MIB // len(line))
    out = sys.stdout.buffer
    lines, short = divmod(args.mib * MIB - args.spare_kib * 1024 - len(last), len(line))
    for _ in range(lines // (len(chunk) // len(line))):
        out.write(chunk)
    out.write(line * (lines % (len(chunk) // len(line))))
    out.write(b"x" * (short - 1) + b"\n" if short else b"")  # to the exact size, whole lines only
    out.write(last)
    out.flush()
    sys.exit(args.status)


if __name__ == "__main__":
    main()
