"""``waraq serve`` against ``waraq ladder run``: matches per second, page latency under 50 readers, upload to play.

    .venv/bin/python bench/serve.py                      # every figure, 3 rounds: some five minutes
    .venv/bin/python bench/serve.py --only rate --repeats 5 --matches 80

Figures:

1. rate: the same ladder (4-player classic Hokm to ``--target`` points, bots
   ``random``, ``heuristic`` and ``greedy``, one seed and one deal key, so the
   same matches) played to ``--matches`` matches by ``waraq ladder run`` and by
   ``waraq serve --matches`` (its web server up, nobody reading), a fresh folder
   each time, the two ways alternating within each round. Matches per second
   are read from the database the same way for both: the matches stored, over
   the time from the first match's end to the last's (``finished_at``), so
   neither pays for its bots' start-up or its own. The ratio serve / ladder run
   is taken within each round; medians over the rounds. Goal: >= 0.9.
2. readers: ``waraq serve --keep-playing`` with 50 readers at once (aiohttp's
   client, one connection each, gzip accepted as browsers do), each fetching
   the standings page, its JSON, a bot's page and the latest match's replay
   in turn for ``--seconds``; every request's latency, p50 and p95 by page;
   the server's CPU per request; and the matches per second meanwhile
   against the same server's own rate with no reader, ``--seconds`` before
   and after (the cost of readers to the games, in one run). Fifty readers
   that never pause are far more than fifty people: the figure is a bound. aiohttp, not httpx: httpx's client
   took a whole core here for 150 requests a second, so the figure was the
   client's; aiohttp's C parser leaves the cores to the server and its games.
3. upload: the Python starter kit zipped with a waraq-bot.toml, uploaded to a
   fresh server through the API (an author's token), from the upload to the
   first rated match that seats it: the unpack, the sandboxed build (none for
   Python), ``check-bot``, its first start and its first board.

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from datetime import datetime
from pathlib import Path

import aiohttp
import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(1, str(ROOT))  # the repository, for the tests' helpers
from tests.support import ladders  # noqa: E402
from tests.support.web import PASSWORD, serve, sign_in  # noqa: E402
from waraq.ladder.play import folder as ladder_folder  # noqa: E402
from waraq.ladder.web import credentials, people  # noqa: E402
from waraq.ladder.web.people import Role  # noqa: E402
from waraq.referee.games.hokm.rules import PRESETS  # noqa: E402

BOTS = {"rnd": "random", "heur": "heuristic", "grd": "greedy"}
WARAQ = [sys.executable, "-m", "waraq.referee.cli.main"]
PAGES = ("/", "/api/standings", "/bots/heur", "replay")
WARM_MATCHES = 200  # readers: matches stored before anything is measured


def make_ladder(where: Path, target: int) -> Path:
    return ladders.make(where, BOTS, rules=PRESETS["classic"].replace(target_score=target), seed=11)


def rate_of(folder: Path) -> tuple[int, float]:
    """Matches stored, and matches a second from the first one's end to the last's."""
    db = sqlite3.connect(folder / "ladder.sqlite")
    rows = [row[0] for row in db.execute("SELECT finished_at FROM matches WHERE finished_at IS NOT NULL ORDER BY 1")]
    db.close()
    if len(rows) < 2:
        return len(rows), 0.0
    first, last = (datetime.fromisoformat(t.replace("Z", "+00:00")) for t in (rows[0], rows[-1]))
    return len(rows), (len(rows) - 1) / max((last - first).total_seconds(), 1e-9)


def ladder_run(folder: Path, matches: int) -> float:
    subprocess.run([*WARAQ, "ladder", "run", "-C", str(folder), "--matches", str(matches), "--quiet"], check=True)
    return rate_of(folder)[1]


def serve_run(folder: Path, matches: int) -> float:
    served = serve(folder, "--matches", str(matches), "--per-hour", "1000000")
    try:
        deadline = time.monotonic() + 600
        while rate_of(folder)[0] < matches and time.monotonic() < deadline:
            time.sleep(0.25)  # a bench's wait, not a test's: it reads the database the server writes
    finally:
        served.stop()
    return rate_of(folder)[1]


def figure_rate(args: argparse.Namespace) -> None:
    ratios, local, served = [], [], []
    for round_ in range(args.repeats):
        with tempfile.TemporaryDirectory() as scratch:
            order = ("ladder", "serve") if round_ % 2 == 0 else ("serve", "ladder")
            found = {}
            for way in order:
                folder = make_ladder(Path(scratch) / way, args.target)
                found[way] = (ladder_run if way == "ladder" else serve_run)(folder, args.matches)
        local.append(found["ladder"])
        served.append(found["serve"])
        ratios.append(found["serve"] / found["ladder"])
        print(f"round {round_ + 1}: ladder run {found['ladder']:.2f}/s, serve {found['serve']:.2f}/s, "
              f"ratio {ratios[-1]:.2f}", flush=True)  # fmt: skip
    print(
        f"rate: ladder run {statistics.median(local):.2f} matches/s, serve {statistics.median(served):.2f} matches/s;"
        f" serve / ladder run, median of {args.repeats}: {statistics.median(ratios):.2f} "
        f"(rounds: {', '.join(f'{r:.2f}' for r in ratios)})"
    )


async def reader(
    session: aiohttp.ClientSession, url: str, replay: str, until: float, latencies: dict, pace: float
) -> None:
    while time.monotonic() < until:
        for page in PAGES:
            path = replay if page == "replay" else page
            began = time.perf_counter()
            async with session.get(url + path) as answer:  # gzip accepted, as a browser does
                await answer.read()
                assert answer.status == 200, (path, answer.status)
            latencies[page].append(time.perf_counter() - began)
            if pace:
                await asyncio.sleep(pace)  # a person reading the page before the next


async def read_hard(url: str, replay: str, seconds: float, readers: int, pace: float = 0) -> dict[str, list[float]]:
    """``readers`` at once, each on a connection of its own, for ``seconds``: every request's latency by page."""
    latencies: dict[str, list[float]] = {page: [] for page in PAGES}
    until = time.monotonic() + seconds
    jar = aiohttp.CookieJar(unsafe=True)  # keep the visitor cookie of 127.0.0.1, as a browser keeps it
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=readers), cookie_jar=jar) as session:
        await asyncio.gather(*(reader(session, url, replay, until, latencies, pace) for _ in range(readers)))
    return latencies


def rate_alone(folder: Path, seconds: float) -> float:
    """Matches a second stored over ``seconds`` with no reader."""
    before, began = stored(folder), time.monotonic()
    time.sleep(seconds)
    return (stored(folder) - before) / (time.monotonic() - began)


def cpu_of(pid: int) -> float:
    """A process's CPU seconds so far (user and system, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stored(folder: Path) -> int:
    return rate_of(folder)[0]


def figure_readers(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = make_ladder(Path(scratch) / "arena", args.target)
        served = serve(folder, "--keep-playing", "--per-hour", "1000000")
        try:
            client = httpx.Client(base_url=served.url, timeout=60)
            while not client.get("/api/matches?limit=1").json()["matches"]:
                time.sleep(0.2)
            replay = client.get("/api/matches?limit=1").json()["matches"][0]["replay"]
            # Warm first: a bot's process for each seat and seating is started as matches first need it,
            # and the ladder stores no result while it starts them (some 20 s here).
            while stored(folder) < WARM_MATCHES:
                time.sleep(0.5)
            first = rate_alone(folder, args.seconds)
            before, began, cpu = stored(folder), time.monotonic(), cpu_of(served.process.pid)
            latencies = asyncio.run(read_hard(served.url, replay, args.seconds, args.readers, args.pace))
            loaded = (stored(folder) - before) / (time.monotonic() - began)
            spent = cpu_of(served.process.pid) - cpu
            last = rate_alone(folder, args.seconds)
            alone = (first + last) / 2  # before and after: the run's drift cancels
        finally:
            served.stop()
    every = sorted(t for times in latencies.values() for t in times)
    paced = f", each pausing {args.pace:g} s between pages" if args.pace else ", none pausing"
    print(f"readers: {args.readers} at once for {args.seconds:g} s{paced}, {len(every)} requests")
    for page in (*PAGES, "all"):
        times = sorted(latencies[page]) if page != "all" else every
        p50, p95 = times[len(times) // 2], times[int(len(times) * 0.95)]
        print(f"  {page:16} n={len(times):5}  p50 {1000 * p50:7.1f} ms  p95 {1000 * p95:7.1f} ms")
    print(f"  the server's CPU (pages and games): {1000 * spent / len(every):.2f} ms a request")
    print(
        f"  matches/s meanwhile {loaded:.2f}; with no reader {first:.2f} before, {last:.2f} after: "
        f"ratio {loaded / alone:.2f} to their mean"
    )


def starter_zip() -> bytes:
    kit = ROOT / "sample_bots" / "starters" / "python"
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(kit.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                archive.write(path, Path("starter") / path.relative_to(kit))
        archive.writestr(
            "starter/waraq-bot.toml",
            'name = "starter"\ngames = ["hokm"]\nrun = "python3 bot.py --unix {socket}"\n',
        )
    return data.getvalue()


def figure_upload(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = make_ladder(Path(scratch) / "arena", args.target)
        with ladder_folder.open_ladder(folder) as ladder:
            people.prepare(ladder.store)
            people.accept(ladder.store, people.invite(ladder.store, Role.AUTHOR, None), "ann",
                          credentials.hash_password(PASSWORD))  # fmt: skip
        served = serve(folder, "--keep-playing", "--per-hour", "1000000")
        try:
            author = sign_in(served, "ann")
            page = author.get("/me").text
            csrf = re.search(r'name="csrf" value="([^"]*)"', page).group(1)
            began = time.monotonic()
            sent = author.post("/me/uploads", data={"csrf": csrf}, files={"archive": ("starter.zip", starter_zip())})
            assert sent.status_code == 303, sent.text
            while True:
                db = sqlite3.connect(folder / "ladder.sqlite")
                rated = db.execute(
                    "SELECT COUNT(*) FROM matches m JOIN seats s ON s.match_id = m.id JOIN bots b ON b.id = s.bot_id "
                    "WHERE b.base = 'starter' AND m.status = 'rated'"
                ).fetchone()[0]
                stage = db.execute("SELECT stage, message FROM uploads ORDER BY id DESC LIMIT 1").fetchone()
                db.close()
                if rated or (stage and stage[0] not in ("received", "building", "ready")):
                    break
                time.sleep(0.1)
            took = time.monotonic() - began
        finally:
            served.stop()
    if not rated:
        print(f"upload: it did not play: {stage}")
        return
    print(f"upload: the Python starter, from its upload to its first rated match: {took:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("rate", "readers", "upload"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--target", type=int, default=3, help="points a match is played to")
    parser.add_argument("--seconds", type=float, default=20.0, help="readers: how long they read")
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--pace", type=float, default=0.0, help="readers: seconds each waits between pages")
    args = parser.parse_args()
    for name, figure in (("rate", figure_rate), ("readers", figure_readers), ("upload", figure_upload)):
        if args.only in (None, name):
            figure(args)


if __name__ == "__main__":
    main()
