"""Dial-in bots through the referee's lobby: decisions per second, memory per bot, time to resync.

    .venv/bin/python bench/lobby.py --repeats 5     # all three (5 rounds is the default): some four minutes
    .venv/bin/python bench/lobby.py --seconds 2 --repeats 2 --idle 50 --cuts 10   # a quick look, one minute
    .venv/bin/python bench/lobby.py --only rate --port --profile   # the rates with TCP launched bots too,
                                                                   # then where the referee's CPU goes

Three figures:

1. rate: 4-player classic Hokm, four seats, each a bot process of its own, the
   same bot both ways: the built-in ``random`` launched as the referee launches
   every built-in (``python -m waraq.bots.server random --unix {socket}``,
   unconfined: ``sandbox.Isolation.OFF``, so neither side pays a sandbox), and
   the same player dialling the lobby (bench/dial_bot.py, one process and one
   token a seat). Matches are played as ``waraq match``'s runner plays them
   (``run_match`` with each endpoint's ``seat()``, ``concurrency`` at once
   under one semaphore), with 1 and with 8 at once, the same seeds both ways:
   the same matches, decision for decision. The bots are started once, not per
   figure, so no figure pays for start-up. The two ways alternate within each
   round (in order, then the other way round, on other seeds), and the ratio
   lobby / socket is taken within each round; medians over the rounds.
   Records are off unless ``--record``: both ways would write the same lines,
   which would only dilute the difference. The referee's and the bots' CPU per
   decision is printed too, which with both cores busy sets the rate. With
   ``--port``, a third way: the same launched bots over TCP on loopback
   (``--port {port}``), as the lobby is reached, to tell TCP's share from the
   lobby's. With ``--profile``, a cProfile of the referee's CPU each way.
2. memory: a fresh process (the referee) opens a Lobby holding ``--idle``
   tokens; a second process dials it as that many idle bots, each over a
   channel, so a connection, of its own with one Dial stream waiting, as real
   bots would. The referee's VmRSS with 10 bots connected (a warm baseline: the
   lobby's server has served connections) and with all of them; their
   difference over the bots between is the cost of one connected bot. Every bot
   must then be present (``lobby.presence``, from as many peers as bots), and a
   match seating four of them must play to its end.
3. resync: a dial-in bot (bench/dial_bot.py) at seat 0, in-process random
   players at the others, through tests/support/cutting_proxy.py, which resets
   the bot's connection as every 4th DecisionRequest is on its way
   (``mid_decision``). Measured: from the cut (the proxy's loop time, as it
   resets both sides) to the moment the request sent again reaches the bot
   (the first request on the stream it dialled after the cut, by its
   ``time.monotonic()``: on Linux the same CLOCK_MONOTONIC as the loop's).
   That covers the bot seeing the reset, its back-off, gRPC's new connection
   (through the proxy: a Python hop each way, in the referee's own event
   loop), the Dial message, the lobby taking the seat back and sending
   MatchStart and the request again. Twice: with the Python kit's back-off
   (0.5 s ±20 %, slept before dialling back; shown also with each cut's own
   sleep subtracted), and with a bot that dials back at once: the referee's
   and the network's share. Also the referee's own view, ``away_ms`` of the
   records' ``connection`` lines: from the lobby seeing the loss to the bot
   back. A match whose seat is lost ``no_reply`` though the bot came back is
   counted (the bug fixed in 1d41e5c), not fatal: the cut matches play under a short
   clock (2 s a decision, 3 s of bank) so that it costs seconds.

Found on the way, and fixed since (1d41e5c): a seat taken back by a newer
connection while the old stream still stood was never read on the new one,
and faulted ``no_reply`` (one match in 8 with the Python kit cut at its first
request). tests/lobby/test_refusals.py holds the case now.

Why bench/dial_bot.py rather than the Python starter kit both ways: the kit's
two modes are two different programs (a thread-pool server, and threads
blocking on a synchronous Dial stream), so their difference would mix the
lobby's cost with the kit's threading; and ``waraq.bots.server`` only listens.
dial_bot.py wraps the very ``PlayerBot`` servicer the launched built-in
serves, and feeds its ``Play`` coroutine from a Dial stream, over grpc.aio in
both: the two ways differ only in how the bytes travel and in the lobby.

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import pstats
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from waraq.bots.server import builtin_players
from waraq.referee.common import built_in
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec, Endpoint, SpecKind
from waraq.referee.lobby.lobby import Lobby
from waraq.referee.lobby.seat import DialInSeat
from waraq.referee.lobby.tokens import TokenTable
from waraq.referee.match.play import MatchConfig, TimeControl, run_match
from waraq.referee.match.seats import InProcessSeat
from waraq.referee.records.record_file import RecordWriter, read_record
from waraq.referee.run.runner import match_id

HERE = Path(__file__).resolve().parent
sys.path.insert(1, str(HERE.parent))  # the repository, for the tests' cutting proxy
from tests.support.cutting_proxy import CuttingProxy, mid_decision  # noqa: E402

RULES = PRESETS["classic"]
SEATS = RULES.players
TIME = TimeControl()
DIAL_BOT = HERE / "dial_bot.py"
BOT = "random"
TICK = os.sysconf("SC_CLK_TCK")
PYTHON = shlex.quote(sys.executable)
KIT_BACK_OFF_S = 0.5  # sample_bots/starters/python/bot.py's FIRST_WAIT_S, slept ±20 %
WARM_BOTS = 10  # bots connected before the memory baseline


# --- bots, started once ------------------------------------------------------------------------


def write_tokens(folder: Path, name: str, tokens: Sequence[str]) -> Path:
    path = folder / name
    path.write_text("\n".join(tokens) + "\n")
    path.chmod(0o600)
    return path


async def dial_bots(
    address: str, tokens_file: Path, *, back_off_s: float = KIT_BACK_OFF_S, times: bool = False
) -> asyncio.subprocess.Process:
    """A bench/dial_bot.py process dialling ``address`` as one bot a token of ``tokens_file``; with
    ``times``, its stdout is piped: a line as each stream's first request arrives."""
    argv = [str(DIAL_BOT), BOT, "--connect", address, "--tokens", str(tokens_file), "--back-off", str(back_off_s)]
    return await asyncio.create_subprocess_exec(
        sys.executable,
        *argv,
        *(["--times"] if times else []),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE if times else asyncio.subprocess.DEVNULL,
    )


async def end(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
            await process.wait()


def cpu_s(pids: Sequence[int]) -> float:
    """CPU seconds used so far by these processes (all their threads)."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


class Side:
    """Four seats of one bot, one process a seat: launched over ``{socket}`` (or ``{port}``), or dialled in."""

    def __init__(self, way: str, folder: Path) -> None:
        self.way = way
        self.folder = folder
        self.endpoints: list[Endpoint] = []
        self.lobby: Lobby | None = None
        self.dialling: list[asyncio.subprocess.Process] = []

    async def start(self) -> None:
        if self.way in ("socket", "port"):
            # The built-in's own launch, python -m waraq.bots.server random --unix {socket}, unconfined;
            # or the same over TCP on loopback, as the lobby is reached.
            unconfined = sandbox.Config(mode=sandbox.Isolation.OFF)
            spec = BotSpec.parse(
                BOT if self.way == "socket" else f"{PYTHON} -m {built_in.SERVER} {BOT} --port {{port}}"
            )
            self.endpoints = [
                Endpoint(spec, startup_ms=TIME.startup_ms, log_dir=self.folder, confinement=unconfined)
                for _ in range(SEATS)
            ]
        else:
            tokens = TokenTable()
            names = [f"dial{seat}" for seat in range(SEATS)]
            issued = {name: tokens.issue(name) for name in names}
            self.lobby = Lobby(tokens)
            address = await self.lobby.listen("127.0.0.1:0")
            for name in names:
                path = write_tokens(self.folder, name, [issued[name]])
                self.dialling.append(await dial_bots(address, path))
            self.endpoints = [
                Endpoint(BotSpec(SpecKind.DIAL_IN, "dial-in", name), startup_ms=TIME.startup_ms, lobby=self.lobby)
                for name in names
            ]
        await asyncio.gather(*(e.start() for e in self.endpoints))
        for endpoint in self.endpoints:
            if endpoint.failure is not None:
                raise SystemExit(f"{self.way} bot did not start: {endpoint.failure.detail}")

    @property
    def pids(self) -> list[int]:
        if self.dialling:
            return [p.pid for p in self.dialling]
        return [e.process.pid for e in self.endpoints if e.process is not None]

    async def stop(self) -> None:
        await asyncio.gather(*(e.stop() for e in self.endpoints))
        await asyncio.gather(*(end(p) for p in self.dialling))
        if self.lobby is not None:
            await self.lobby.close()


# --- 1. decisions per second ----------------------------------------------------------------------


async def play(side: Side, seeds: range, concurrency: int, record_dir: Path | None) -> int:
    """Decisions in the matches of ``seeds``, ``concurrency`` at once, as the runner plays them."""
    gate = asyncio.Semaphore(concurrency)

    async def one(seed: int) -> int:
        async with gate:
            config = MatchConfig(RULES, seed, match_id(seed), TIME)
            record = RecordWriter(record_dir / f"{side.way}-{seed}.jsonl") if record_dir else None
            try:
                outcome = await run_match(config, [e.seat() for e in side.endpoints], record)
            finally:
                if record is not None:
                    record.close()
        if outcome.reason not in ("score", "bam") or outcome.faults:
            raise SystemExit(f"{side.way}: match {seed} ended by {outcome.reason}: {outcome.faults}")
        return outcome.decisions

    return sum(await asyncio.gather(*(one(seed) for seed in seeds)))


@dataclass
class Figure:
    decisions: int
    wall_s: float
    referee_cpu_s: float
    bots_cpu_s: float

    @property
    def rate(self) -> float:
        return self.decisions / self.wall_s

    def us(self, cpu: float) -> float:
        return cpu / self.decisions * 1e6

    @property
    def cpu_us(self) -> float:
        """CPU a decision, both sides."""
        return self.us(self.referee_cpu_s + self.bots_cpu_s)

    def __add__(self, other: Figure) -> Figure:
        return Figure(
            self.decisions + other.decisions,
            self.wall_s + other.wall_s,
            self.referee_cpu_s + other.referee_cpu_s,
            self.bots_cpu_s + other.bots_cpu_s,
        )


async def measure(side: Side, seeds: range, concurrency: int, record: bool) -> Figure:
    with tempfile.TemporaryDirectory(prefix="waraq-bench-") as folder:
        gc.collect()
        pids = side.pids
        wall, cpu, bots = time.perf_counter(), time.process_time(), cpu_s(pids)
        decisions = await play(side, seeds, concurrency, Path(folder) if record else None)
        return Figure(decisions, time.perf_counter() - wall, time.process_time() - cpu, cpu_s(pids) - bots)


async def rates(args: argparse.Namespace, folder: Path) -> None:
    ways = ("socket", "port", "lobby") if args.port else ("socket", "lobby")
    sides = {way: Side(way, folder) for way in ways}
    try:
        await asyncio.gather(*(side.start() for side in sides.values()))
        await _rates(args, sides)
    finally:
        await asyncio.gather(*(side.stop() for side in sides.values()))


async def _rates(args: argparse.Namespace, sides: dict[str, Side]) -> None:
    record = args.record
    ways = list(sides)
    began = time.perf_counter()
    for way in ways:  # warm: caches, the channels' first use
        warm = await measure(sides[way], range(1, 5), 1, record)
    per_match = warm.decisions / 4
    rate = {(way, n): warm.rate * (1 if n == 1 else 1.5) for way in ways for n in CONCURRENCY}
    print(
        f"1. decisions/s: 4-player classic Hokm, 4 {BOT} bot processes a way, records "
        f"{'on' if record else 'off'}, ~{per_match:.0f} decisions a match "
        f"(warm-up {time.perf_counter() - began:.1f} s)",
        flush=True,
    )
    rows: dict[int, list[dict[str, Figure]]] = {n: [] for n in CONCURRENCY}
    first_seed = 100
    for number in range(1, args.repeats + 1):
        for n in CONCURRENCY:
            # Two halves, the ways in order and then the other way round: a load that drifts within the
            # round weighs on every way alike. All play the same seeds, a multiple of the slots, as many
            # as ``--seconds`` takes at the slowest rate seen so far.
            per_slot = max(2, round(args.seconds / 2 * min(rate[way, n] for way in ways) / per_match / n))
            row: dict[str, Figure] = {}
            for order in (ways, ways[::-1]):
                seeds = range(first_seed, first_seed + per_slot * n)
                first_seed += len(seeds)
                for way in order:
                    half = await measure(sides[way], seeds, n, record)
                    row[way] = row[way] + half if way in row else half
            if len({figure.decisions for figure in row.values()}) != 1:  # the same matches, the same bot
                raise SystemExit(f"the ways took different decisions on the same seeds: {row}")
            for way, figure in row.items():
                rate[way, n] = figure.rate
            rows[n].append(row)
            each = ", ".join(f"{way} {row[way].rate:5.0f}/s" for way in ways)
            print(
                f"  round {number}, {n} at once: {each}; lobby / socket {row['lobby'].rate / row['socket'].rate:.2f} "
                f"({2 * per_slot * n} matches, {row['socket'].decisions} decisions; "
                + ", ".join(f"{row[way].wall_s:.1f}" for way in ways)
                + " s)",
                flush=True,
            )
    med = statistics.median
    print()
    print(
        "decisions/s, median of the rounds; ratio = median of each round's way / socket "
        "(lobby / socket: the target, >= 0.9)"
    )
    print(
        f"{'at once':>7}"
        + "".join(f"  {way:>7}" for way in ways)
        + "".join(f"  {f'{way} / socket':>20}" for way in ways[1:])
    )
    for n, group in rows.items():
        line = f"{n:>7}" + "".join(f"  {med(r[way].rate for r in group):>7.0f}" for way in ways)
        for way in ways[1:]:
            ratios = [r[way].rate / r["socket"].rate for r in group]
            line += f"  {med(ratios):>9.2f} ({min(ratios):.2f}-{max(ratios):.2f})"
        print(line)
    print()
    print(
        "CPU µs per decision, median of the rounds: the referee (this process) and the four bot processes;\n"
        "socket's CPU / the way's, all of it: steadier than the rates, and with both cores busy it sets the rate"
    )
    print(
        f"{'at once':>7}"
        + "".join(f"  {f'referee {way}':>14}" for way in ways)
        + "".join(f"  {f'bots {way}':>11}" for way in ways)
        + "".join(f"  {f'socket / {way}':>14}" for way in ways[1:])
    )
    for n, group in rows.items():
        print(
            f"{n:>7}"
            + "".join(f"  {med(r[way].us(r[way].referee_cpu_s) for r in group):>14.0f}" for way in ways)
            + "".join(f"  {med(r[way].us(r[way].bots_cpu_s) for r in group):>11.0f}" for way in ways)
            + "".join(f"  {med(r['socket'].cpu_us / r[way].cpu_us for r in group):>14.2f}" for way in ways[1:])
        )
    if args.profile:
        for way in ways:
            seeds = range(first_seed, first_seed + 4 * CONCURRENCY[-1])
            first_seed += len(seeds)
            # Timed by the process's CPU clock: own times are work, not waits on the bots.
            profile = cProfile.Profile(time.process_time)
            profile.enable()
            decisions = await play(sides[way], seeds, CONCURRENCY[-1], None)
            profile.disable()
            print()
            print(f"referee profile, {way}: {len(seeds)} matches {CONCURRENCY[-1]} at once, {decisions} decisions")
            print_profile(profile, decisions, args.top)


CONCURRENCY = (1, 8)


def print_profile(profile: cProfile.Profile, decisions: int, top: int) -> None:
    stats = pstats.Stats(profile)
    table = stats.stats  # type: ignore[attr-defined]  # (file, line, name) -> (cc, calls, tottime, cumtime, callers)
    total = stats.total_tt  # type: ignore[attr-defined]
    calls = sum(row[1] for row in table.values())
    print(
        f"  {total / decisions * 1e6:.0f} µs of CPU a decision under the profiler, {calls / decisions:.0f} Python "
        f"calls a decision; top {top} by own time:"
    )
    print(f"  {'tottime %':>9}  {'µs/dec':>6}  {'calls/dec':>9}  function")
    for (file, line, name), (_, calls, tottime, _, _) in sorted(table.items(), key=lambda i: -i[1][2])[:top]:
        where = f"{Path(file).name}:{line}" if line else file
        print(
            f"  {100 * tottime / total:>8.1f}%  {tottime / decisions * 1e6:>6.1f}  {calls / decisions:>9.2f}  "
            f"{name} ({where})"
        )


# --- 2. memory per connected bot ---------------------------------------------------------------


def rss_kb(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


async def connected(lobby: Lobby, count: int, within_s: float) -> float:
    """Seconds until ``count`` bots are connected, each with a stream waiting; SystemExit if they are not."""
    began = time.perf_counter()
    while len(lobby.connected()) < count or sum(p.streams for p in lobby.connected().values()) < count:
        if time.perf_counter() - began > within_s:
            raise SystemExit(f"only {len(lobby.connected())} of {count} bots connected within {within_s:g} s")
        await asyncio.sleep(0.05)
    return time.perf_counter() - began


async def settled_rss_kb() -> int:
    """VmRSS once the loop has had a moment and the collector has run."""
    await asyncio.sleep(1.0)
    gc.collect()
    await asyncio.sleep(0.2)
    return rss_kb()


async def memory_child(idle: int) -> dict[str, object]:
    """The referee's side of figure 2, in a process of its own (printed as one JSON line)."""
    tokens = TokenTable()
    names = [f"idle{i:03d}" for i in range(idle)]
    issued = [tokens.issue(name) for name in names]
    lobby = Lobby(tokens)
    address = await lobby.listen("127.0.0.1:0")
    figure: dict[str, object] = {"rss_empty_kb": await settled_rss_kb()}
    processes = []
    with tempfile.TemporaryDirectory(prefix="waraq-bench-") as folder:
        try:
            warm = write_tokens(Path(folder), "warm", issued[:WARM_BOTS])
            rest = write_tokens(Path(folder), "rest", issued[WARM_BOTS:])
            processes.append(await dial_bots(address, warm))
            await connected(lobby, WARM_BOTS, 60)
            figure["rss_warm_kb"] = await settled_rss_kb()
            processes.append(await dial_bots(address, rest))
            figure["connect_s"] = await connected(lobby, idle, 120)
            figure["rss_all_kb"] = await settled_rss_kb()
            figure["clients_rss_kb"] = sum(rss_kb(p.pid) for p in processes)
            present = [name for name in names if lobby.presence(name) is not None]
            figure["present"] = len(present)
            figure["peers"] = len({p.peer for p in lobby.connected().values()})
            figure["streams"] = sum(p.streams for p in lobby.connected().values())
            cpu, wall = time.process_time(), time.perf_counter()
            await asyncio.sleep(3.0)
            figure["idle_cpu_pct"] = 100 * (time.process_time() - cpu) / (time.perf_counter() - wall)
            # Four of them play a match: seats 0-3 to bots spread over the list.
            players = [names[0], names[idle // 3], names[2 * idle // 3], names[-1]]
            seats = [DialInSeat(lobby, name, name, "", wait_s=10) for name in players]
            began = time.perf_counter()
            outcome = await run_match(MatchConfig(RULES, 1, match_id(1), TIME), seats)
            figure["match"] = {
                "bots": players,
                "reason": str(outcome.reason),
                "faults": len(outcome.faults),
                "decisions": outcome.decisions,
                "s": time.perf_counter() - began,
            }
            await connected(lobby, idle, 10)  # each seated bot has offered a stream again
            figure["present_after"] = sum(lobby.presence(name) is not None for name in names)
        finally:
            await asyncio.gather(*(end(p) for p in processes))
            await lobby.close()
    return figure


async def memory(args: argparse.Namespace) -> None:
    argv = [sys.executable, __file__, "--memory-child", str(args.idle)]
    child = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE)
    out, _ = await child.communicate()
    if child.returncode != 0:
        raise SystemExit(f"the memory child failed ({child.returncode})")
    f = json.loads(out.decode().strip().splitlines()[-1])
    per_bot = (f["rss_all_kb"] - f["rss_warm_kb"]) / (args.idle - WARM_BOTS)
    match = f["match"]
    print()
    print(f"2. memory: {args.idle} idle dial-in bots, each a channel (a connection) of its own with one Dial stream")
    print(
        f"  referee VmRSS: {f['rss_empty_kb'] / 1024:.1f} MiB listening, {f['rss_warm_kb'] / 1024:.1f} MiB with "
        f"{WARM_BOTS} bots, {f['rss_all_kb'] / 1024:.1f} MiB with {args.idle} (all connected in {f['connect_s']:.1f} s)"
    )
    print(
        f"  per connected bot: {per_bot / 1024:.3f} MiB ({per_bot:.0f} KiB), "
        f"from {WARM_BOTS} to {args.idle} bots; the referee's CPU while they idle: {f['idle_cpu_pct']:.1f} %"
    )
    print(
        f"  present: {f['present']} of {args.idle} (lobby.presence), from {f['peers']} peers, {f['streams']} "
        f"streams waiting; the dialling process: {f['clients_rss_kb'] / 1024:.0f} MiB for all of them"
    )
    print(
        f"  a match seating {', '.join(match['bots'])}: ended by {match['reason']}, {match['faults']} faults, "
        f"{match['decisions']} decisions in {match['s']:.2f} s; present after it: {f['present_after']}"
    )


# --- 3. time to resync -------------------------------------------------------------------------


GAP = 4  # a cut at every GAP-th DecisionRequest through the proxy (the one sent again is the next)
# Short enough that a seat the referee no longer reads (see the docstring) costs seconds, not 70: long
# enough for the longest back-off, and for a loaded machine.
RESYNC_TIME = TimeControl(decision_ms=2_000, bank_ms=3_000)


@dataclass
class Resync:
    total_ms: list[float]  # from the cut to the request sent again reaching the bot
    slept_ms: list[float]  # of which the bot's back-off
    away_ms: list[float]  # the referee's: from the line lost to the bot back (the records' connection lines)
    unread: int  # matches the bot's seat lost with no_reply though it was back: the newest-wins bug
    matches: int


async def resync(cuts: int, back_off_s: float, folder: Path) -> Resync:
    tokens = TokenTable()
    token = tokens.issue("dialler")
    lobby = Lobby(tokens)
    port = int((await lobby.listen("127.0.0.1:0")).rpartition(":")[2])
    proxy = CuttingProxy(("127.0.0.1", port), [mid_decision(GAP * (i + 1)) for i in range(cuts)])
    path = write_tokens(folder, f"dialler-{back_off_s:g}", [token])
    bot = await dial_bots(await proxy.start(), path, back_off_s=back_off_s, times=True)
    firsts: list[dict[str, float]] = []  # each stream's first request: when it arrived, what the stream slept

    async def listen() -> None:
        assert bot.stdout is not None
        async for line in bot.stdout:
            firsts.append(json.loads(line))

    reader = asyncio.create_task(listen())
    away: list[float] = []
    unread = 0
    try:
        if not await lobby.wait_for("dialler", 30):
            raise SystemExit("the dial-in bot did not dial in")
        players = builtin_players()[BOT]
        seed = 1
        while not all(cut.done for cut in proxy.cuts):
            seats = [DialInSeat(lobby, "dialler", "dialler", "", wait_s=30)] + [
                InProcessSeat(lambda match, seat: players(match, seat), BOT) for _ in range(SEATS - 1)
            ]
            record_path = folder / f"resync-{back_off_s:g}-{seed}.jsonl"
            with RecordWriter(record_path) as record:
                outcome = await run_match(MatchConfig(RULES, seed, match_id(seed), RESYNC_TIME), seats, record)
            if [f.code for f in outcome.faults] == ["no_reply"]:
                unread += 1
            elif outcome.faults:
                raise SystemExit(f"a cut match ended with faults: {outcome.faults}")
            away += [
                e["away_ms"]
                for e in read_record(record_path).events
                if e["type"] == "connection" and e["change"] == "back" and "away_ms" in e
            ]
            seed += 1
        await asyncio.sleep(0.5)  # the last line on its way
    finally:
        await end(bot)
        await reader
        await proxy.close()
        await lobby.close()
    # The seat's next request after a cut is the one sent again, the first on the stream dialled after it
    # (the referee waits on it: it asks the seat nothing else meanwhile).
    resent = [next((f for f in firsts if f["first"] > cut), None) for cut in proxy.cut_times]
    if None in resent or len({id(f) for f in resent}) != len(resent):
        raise SystemExit(f"{len(proxy.cut_times)} cuts, and not a request sent again after each: {firsts}")
    total = [(f["first"] - cut) * 1000 for f, cut in zip(resent, proxy.cut_times, strict=True) if f is not None]
    return Resync(total, [f["slept"] * 1000 for f in resent if f is not None], away, unread, seed - 1)


def p95(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


async def resyncs(args: argparse.Namespace, folder: Path) -> None:
    print()
    print(
        f"3. resync: {args.cuts} cuts each way, mid-decision (the proxy resets the connection as the request is on "
        "its way);\nfrom the cut to the request sent again reaching the bot, and the referee's away_ms (lost -> back)"
    )
    print(
        f"{'the bot dials back':>31}  {'median ms':>9}  {'p95 ms':>7}  {'min-max ms':>13}  "
        f"{'away_ms median':>14}  {'p95':>6}  matches"
    )
    for label, back_off in ((f"after the kit's {KIT_BACK_OFF_S:g} s ±20 %", KIT_BACK_OFF_S), ("at once", 0.0)):
        r = await resync(args.cuts, back_off, folder)
        lines = [(label, r.total_ms)]
        if back_off:
            lines.append(("the same, less each back-off", [t - s for t, s in zip(r.total_ms, r.slept_ms, strict=True)]))
        for i, (name, values) in enumerate(lines):
            tail = ""
            if i == 0:
                lost = f", {r.unread} lost no_reply though back" if r.unread else ""
                away = f"{statistics.median(r.away_ms):>14.1f}  {p95(r.away_ms):>6.1f}" if r.away_ms else ""
                tail = f"  {away:>22}  {r.matches}{lost}"
            print(
                f"{name:>31}  {statistics.median(values):>9.1f}  {p95(values):>7.1f}  "
                f"{min(values):>6.1f}-{max(values):<6.1f}{tail}",
                flush=True,
            )


# --- the run -------------------------------------------------------------------------------------


async def bench(args: argparse.Namespace) -> None:
    only = set(args.only.split(","))
    with tempfile.TemporaryDirectory(prefix="waraq-bench-lobby-") as folder:
        if "rate" in only:
            await rates(args, Path(folder))
        if "memory" in only:
            await memory(args)
        if "resync" in only:
            await resyncs(args, Path(folder))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="interleaved rounds of the rates (default 5)")
    parser.add_argument("--seconds", type=float, default=5.0, help="a way, a round and a concurrency (default 5)")
    parser.add_argument("--record", action="store_true", help="the referee writes records, as waraq match does")
    parser.add_argument("--port", action="store_true", help="also the same bots launched over TCP ({port})")
    parser.add_argument("--profile", action="store_true", help="then cProfile the referee's CPU, each way, 8 at once")
    parser.add_argument("--top", type=int, default=15, help="functions shown by --profile (default 15)")
    parser.add_argument("--idle", type=int, default=200, help="idle dial-in bots for the memory (default 200)")
    parser.add_argument("--cuts", type=int, default=50, help="cuts a way for the resync (default 50)")
    parser.add_argument("--only", default="rate,memory,resync", help="which figures (default rate,memory,resync)")
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.idle <= WARM_BOTS + 1:
        parser.error(f"--idle must be above {WARM_BOTS + 1}")
    if args.memory_child:
        print(json.dumps(asyncio.run(memory_child(args.memory_child))))
        return
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
