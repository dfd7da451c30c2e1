"""The gRPC referee's decisions per second, against the transport's ceiling.

    python bench/transport.py [--seconds S] [--rounds R] [--no-record] [--no-memory] [--no-profile]

Four 4-player classic Hokm seats, each a bot process of its own, reached
over one channel per process as ``waraq match`` reaches them:

* referee+random: ``waraq.referee.run.runner.run`` plays whole matches between four
  ``random`` sample bots (started once here and passed as four addresses, so
  the runner sees four distinct bots), recording them as ``waraq match`` does;
* referee+echo: the same referee against four ``bench/echo_bot.py`` processes,
  which answer every request at once with its first legal action: the
  referee's own cost, without the sample bot's;
* ceiling: the same four echo bots, and instead of the referee a bare grpc.aio
  loop that sends them the DecisionRequests of recorded matches (real sizes:
  rebuilt from the records of a warm-up run), each to the seat that was asked,
  in lockstep over one ``Play`` stream per seat, ``MatchStart`` first and
  ``MatchEnd`` last. The requests are serialized before the clock starts, so
  the loop pays for the transport and nothing else: building a request is the
  referee's work, not the wire's. It plays a number of matches in slots
  filled as the runner fills them, so both lose the same tail at the end.

Each with 1 and with 4 matches at once. The machine is shared and noisy, so
the three are interleaved round by round and each round's referee figures are
divided by that round's ceiling. The CPU each side used per decision is
printed too: it is steadier than the rates. Then, unless skipped: the
referee's memory with 1, 4 and 16 matches in flight (each in a fresh process,
so that one figure's high-water mark does not hide the next), and a cProfile
of the referee's side of one run.
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
import tracemalloc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import grpc

from waraq.referee.games.hokm.engine import GAME, HokmState, action_from_json, dealer_from_events
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec, Endpoint
from waraq.referee.match.play import TimeControl
from waraq.referee.match.seats import PLAY_METHOD
from waraq.referee.records.record_file import read_record
from waraq.referee.run.runner import RunConfig, run
from waraq.referee.wire import codec as wire
from waraq.v1 import bot_pb2 as pb

HERE = Path(__file__).resolve().parent

RULES = PRESETS["classic"]
SEATS = RULES.players
SEED = 1000  # every round plays the same matches: the random bots are seeded from the match id
TIME = TimeControl()
PYTHON = shlex.quote(sys.executable)
RANDOM_BOT = f"{PYTHON} -m waraq.bots.server random --port {{port}}"
ECHO_BOT = f"{PYTHON} {shlex.quote(str(HERE / 'echo_bot.py'))} --port {{port}}"
TICK = os.sysconf("SC_CLK_TCK")


# --- the bot processes ----------------------------------------------------------------------


class Bots:
    """Four bot processes of one command, started once for the whole benchmark."""

    def __init__(self, command: str, log_dir: Path) -> None:
        spec = BotSpec("command", command)
        # Unconfined: this measures the referee against the transport's ceiling, both over the
        # same loopback ports; a sandboxed {port} bot adds socat's hop (bench/sandbox.py), and
        # cpu_s reads each bot's own process.
        unconfined = sandbox.Config(mode=sandbox.Isolation.OFF)
        self.endpoints = [
            Endpoint(spec, startup_ms=TIME.startup_ms, log_dir=log_dir, confinement=unconfined) for _ in range(SEATS)
        ]

    async def start(self) -> None:
        await asyncio.gather(*(e.start() for e in self.endpoints))
        for endpoint in self.endpoints:
            if endpoint.failure is not None:
                raise SystemExit(f"bot did not start: {endpoint.failure.detail}")

    @property
    def addresses(self) -> list[str]:
        return [e.address for e in self.endpoints]

    def cpu_s(self) -> float:
        """CPU seconds used so far by the four processes (all their threads)."""
        total = 0
        for endpoint in self.endpoints:
            assert endpoint.process is not None
            with open(f"/proc/{endpoint.process.pid}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        return total / TICK

    async def stop(self) -> None:
        await asyncio.gather(*(e.stop() for e in self.endpoints))


# --- what is measured -------------------------------------------------------------------------


async def referee_run(addresses: list[str], games: int, concurrency: int, record: bool) -> int:
    """Decisions taken by the real referee in ``games`` matches; every match must end cleanly.

    With ``record``, every match is written to a record as ``waraq match`` does (into a
    temporary folder, removed after).
    """
    with tempfile.TemporaryDirectory(prefix="waraq-bench-") as folder:
        return await _referee_run(addresses, games, concurrency, Path(folder) if record else None)


async def _referee_run(addresses: list[str], games: int, concurrency: int, record_dir: Path | None) -> int:
    config = RunConfig(
        rules=RULES,
        bots=[BotSpec.parse(a) for a in addresses],
        games=games,
        seed=SEED,
        concurrency=concurrency,
        time_control=TIME,
        record_dir=record_dir,
    )
    report = await run(config)
    bad = [o for o in report.outcomes if o.reason not in ("score", "bam")]
    if bad:
        raise SystemExit(f"match {bad[0].match_id} ended by {bad[0].reason}: {bad[0].faults}")
    return sum(o.decisions for o in report.outcomes)


@dataclass(frozen=True)
class Recorded:
    """One recorded match as the referee sent it, serialized: starts, (seat, seq, decision) in order, end."""

    starts: list[bytes]
    decisions: list[tuple[int, int, bytes]]
    end: bytes


def recorded_match(path: Path) -> Recorded:
    """Rebuild the messages of a record: the same views, so the same bytes, as the referee's."""
    events = read_record(path).events
    header, result = events[0], events[-1]
    match_id = header["match_id"]
    state = HokmState(RULES, dealer_from_events(RULES, events))
    starts = []
    for seat in range(SEATS):
        team = state.team_seats(state.team_of(seat))
        start = pb.MatchStart(
            match_id=match_id,
            game=GAME,
            rules_json=RULES.canonical_json(),
            rules_hash=RULES.rules_hash,
            seat=seat,
            players=SEATS,
            partners=[s for s in team if s != seat],
            time_control=pb.TimeControl(decision_ms=TIME.decision_ms, bank_ms=TIME.bank_ms, startup_ms=TIME.startup_ms),
        )
        starts.append(pb.RefereeMessage(start=start).SerializeToString())
    seq = [0] * SEATS
    decisions = []
    for event in events:
        if event["type"] != "decision":
            continue
        seat = state.to_act
        seq[seat] += 1
        request = wire.decision_request(
            seq[seat], state.view(seat), match_id=match_id, deadline_ms=TIME.decision_ms, bank_ms=TIME.bank_ms
        )
        decisions.append((seat, seq[seat], pb.RefereeMessage(decision=request).SerializeToString()))
        state.apply(action_from_json(event["kind"], event["action"]))
    end = pb.MatchEnd(winners=result["winners"], reason=result["reason"], score=result["score"])
    return Recorded(starts, decisions, pb.RefereeMessage(end=end).SerializeToString())


async def echo_match(plays: list[grpc.aio.StreamStreamMultiCallable], match: Recorded) -> int:
    """Play ``match``'s messages to the echo bots as the referee would, with nothing else."""
    calls = [play() for play in plays]
    for call, start in zip(calls, match.starts, strict=True):  # one bot a seat
        await call.write(start)
    for seat, seq, message in match.decisions:
        call = calls[seat]
        await call.write(message)
        reply = await call.read()
        assert reply.reply.seq == seq, "the echo bot answered out of step"
    for call in calls:
        await call.write(match.end)
        await call.done_writing()
    return len(match.decisions)


async def echo_run(addresses: list[str], matches: list[Recorded], games: int, concurrency: int) -> int:
    """Decisions echoed in ``games`` lockstep matches, ``concurrency`` at once.

    The slots are filled as ``waraq.referee.run.runner.run`` fills them (every match waits
    on one semaphore), so both figures lose the same tail as their last matches end.
    """
    channels = [grpc.aio.insecure_channel(a) for a in addresses]
    try:
        await asyncio.gather(*(c.channel_ready() for c in channels))
        # The stub's Play, but sending bytes as they are (the referee's RemoteSeat does the same).
        plays = [c.stream_stream(PLAY_METHOD, response_deserializer=pb.BotMessage.FromString) for c in channels]
        gate = asyncio.Semaphore(concurrency)

        async def one(index: int) -> int:
            async with gate:
                return await echo_match(plays, matches[index % len(matches)])

        return sum(await asyncio.gather(*(one(i) for i in range(games))))
    finally:
        await asyncio.gather(*(c.close() for c in channels))


@dataclass
class Figure:
    decisions: int
    wall_s: float
    referee_cpu_s: float  # this process
    bots_cpu_s: float  # the four bot processes

    @property
    def rate(self) -> float:
        return self.decisions / self.wall_s

    def us(self, cpu_s: float) -> float:
        return cpu_s / self.decisions * 1e6


async def measure(bots: Bots, work: Callable[[], Awaitable[int]]) -> Figure:
    """Time ``work`` (which returns the decisions it took), and the CPU of both sides."""
    gc.collect()
    wall, cpu, bots_cpu = time.perf_counter(), time.process_time(), bots.cpu_s()
    decisions = await work()
    return Figure(decisions, time.perf_counter() - wall, time.process_time() - cpu, bots.cpu_s() - bots_cpu)


# --- memory, in a fresh process per figure -------------------------------------------------------


def rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


async def memory_child(concurrency: int, addresses: list[str], record: bool, trace: bool) -> dict[str, float]:
    """KB: a warm baseline and the peak while ``concurrency`` matches are in flight.

    RSS (sampled every 5 ms) or, with ``trace``, the Python heap as tracemalloc sees it.
    """
    await referee_run(addresses, 1, 1, record)  # warm: imports, caches, the channels' first use
    gc.collect()
    if trace:
        tracemalloc.start()
    baseline = tracemalloc.get_traced_memory()[0] / 1024 if trace else rss_kb()
    peak = baseline
    running = True

    async def sample() -> None:
        nonlocal peak
        while running:
            peak = max(peak, rss_kb())
            await asyncio.sleep(0.005)

    sampler = None if trace else asyncio.create_task(sample())
    # Twice as many matches as slots: the slots stay full while the first ones end.
    await referee_run(addresses, 2 * concurrency, concurrency, record)
    running = False
    if sampler is not None:
        await sampler
    else:
        peak = tracemalloc.get_traced_memory()[1] / 1024
    return {"baseline_kb": baseline, "peak_kb": peak}


async def memory_figure(concurrency: int, addresses: list[str], record: bool, trace: bool) -> dict[str, float]:
    """:func:`memory_child` in a fresh process, so no earlier figure's high-water mark hides this one."""
    argv = [sys.executable, __file__, "--memory-child", str(concurrency), "--addresses", ",".join(addresses)]
    argv += (["--no-record"] if not record else []) + (["--trace"] if trace else [])
    child = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE)
    out, _ = await child.communicate()
    if child.returncode != 0:
        raise SystemExit(f"memory child for {concurrency} matches failed ({child.returncode})")
    return json.loads(out.decode().strip().splitlines()[-1])


# --- the profile --------------------------------------------------------------------------------


WATCHED = (  # the referee's own steps per decision, by (file name, function); shown if called
    ("engine.py", "view"),
    ("hokm_bytes.py", "decision_message"),
    ("engine.py", "apply"),
    ("seats.py", "_answer"),
    ("play.py", "write_engine_events"),
    ("record_file.py", "write_now"),
    ("record_file.py", "drain"),
    ("_call.py", "_write"),
    ("_call.py", "_read"),
)


def print_profile(profile: cProfile.Profile, decisions: int, top: int) -> None:
    stats = pstats.Stats(profile)
    # typeshed's pstats.Stats declares neither attribute, though every Stats has both: ``stats`` is the
    # raw table, (file, line, function) -> (primitive calls, calls, tottime, cumtime, callers).
    table = stats.stats  # type: ignore[attr-defined]
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = sorted(table.items(), key=lambda item: item[1][2], reverse=True)
    print(f"  {'tottime %':>9}  {'µs/dec':>6}  {'calls/dec':>9}  function")
    for (file, line, name), (_, calls, tottime, _, _) in rows[:top]:
        where = f"{Path(file).name}:{line}" if line else file
        print(
            f"  {100 * tottime / total:>8.1f}%  {tottime / decisions * 1e6:>6.1f}  {calls / decisions:>9.2f}  "
            f"{name} ({where})"
        )
    print(f"  inclusive, of the same total ({total / decisions * 1e6:.0f} µs/dec under the profiler):")
    watched = [
        (key, value)
        for key, value in table.items()
        if (Path(key[0]).name, key[2]) in WATCHED and value[1] >= decisions / 2
    ]
    for (file, line, name), (_, calls, _, cumtime, _) in sorted(watched, key=lambda item: -item[1][3]):
        where = f"{Path(file).name}:{line}"
        print(
            f"  {100 * cumtime / total:>8.1f}%  {cumtime / decisions * 1e6:>6.1f}  {calls / decisions:>9.2f}  "
            f"{name} ({where})"
        )


# --- the run ------------------------------------------------------------------------------------


async def bench(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="waraq-bench-logs-") as logs:
        randoms, echoes = Bots(RANDOM_BOT, Path(logs)), Bots(ECHO_BOT, Path(logs))
        try:
            await asyncio.gather(randoms.start(), echoes.start())
            await _bench(args, randoms, echoes)
        finally:
            await asyncio.gather(randoms.stop(), echoes.stop())


@dataclass
class Row:
    """One round at one concurrency: the three figures, measured one after the other."""

    random: Figure  # the referee, four random bots
    echo: Figure  # the referee, four echo bots
    ceiling: Figure  # the bare loop, four echo bots


async def _bench(args: argparse.Namespace, randoms: Bots, echoes: Bots) -> None:
    record = not args.no_record
    # Warm-up and calibration: record a few matches; their requests feed the bare loop.
    with tempfile.TemporaryDirectory(prefix="waraq-bench-") as folder:
        began = time.perf_counter()
        warm = await _referee_run(randoms.addresses, args.recorded, 1, Path(folder))
        first_rate = warm / (time.perf_counter() - began)
        matches = [recorded_match(p) for p in sorted(Path(folder).glob("*.jsonl"))]
    per_match = warm / len(matches)
    sizes = [len(m) for r in matches for _, _, m in r.decisions]
    print(
        f"4-player classic Hokm, 4 bot processes a side, records {'on' if record else 'off'}; "
        f"{len(matches)} recorded matches: {per_match:.0f} decisions a match, "
        f"RefereeMessage(decision) {statistics.mean(sizes):.0f} B on average ({min(sizes)}-{max(sizes)})",
        flush=True,
    )
    # Games per figure from the rate last seen (a guess at first), a multiple of the slots.
    guess = {
        ("random", 1): 1,
        ("random", 4): 2,
        ("echo", 1): 1.2,
        ("echo", 4): 2.4,
        ("ceiling", 1): 1.4,
        ("ceiling", 4): 3,
    }
    rate = {key: first_rate * factor for key, factor in guess.items()}

    def games(bots: str, concurrency: int) -> int:
        per_slot = round(args.seconds * rate[bots, concurrency] / per_match / concurrency)
        return max(2, per_slot) * concurrency

    rows: dict[int, list[Row]] = {1: [], 4: []}
    for number in range(1, args.rounds + 1):
        for n in (1, 4):
            g_random, g_echo, g_ceiling = games("random", n), games("echo", n), games("ceiling", n)
            row = Row(
                await measure(randoms, partial(referee_run, randoms.addresses, g_random, n, record)),
                await measure(echoes, partial(referee_run, echoes.addresses, g_echo, n, record)),
                await measure(echoes, partial(echo_run, echoes.addresses, matches, g_ceiling, n)),
            )
            rate["random", n], rate["echo", n], rate["ceiling", n] = row.random.rate, row.echo.rate, row.ceiling.rate
            rows[n].append(row)
            print(
                f"  round {number}, {n} at once: referee+random {row.random.rate:5.0f}/s, "
                f"referee+echo {row.echo.rate:5.0f}/s, ceiling {row.ceiling.rate:5.0f}/s "
                f"({g_random}, {g_echo}, {g_ceiling} matches; {row.random.wall_s:.1f}, {row.echo.wall_s:.1f}, "
                f"{row.ceiling.wall_s:.1f} s)",
                flush=True,
            )
    print_rates(rows)
    if not args.no_memory:
        await print_memory(randoms.addresses, record)
    if not args.no_profile:
        n = round(args.profile_seconds * rate["random", 4] / per_match / 4) * 4
        profile = cProfile.Profile()
        profile.enable()
        decisions = await referee_run(randoms.addresses, max(4, n), 4, record)
        profile.disable()
        print()
        print(
            f"referee profile (cProfile, wall clock), {max(4, n)} matches 4 at once against random bots, "
            f"{decisions} decisions; top {args.top} by own time:"
        )
        print_profile(profile, decisions, args.top)


def print_rates(rows: dict[int, list[Row]]) -> None:
    med = statistics.median
    print()
    print("decisions/s, median of the rounds; ratio = median of each round's ratio to its ceiling")
    print(
        f"{'at once':>7}  {'referee+random':>14}  {'referee+echo':>12}  {'ceiling':>7}  "
        f"{'ratio random':>12}  {'(rounds)':>9}  {'ratio echo':>10}  {'(rounds)':>9}"
    )
    for n, group in rows.items():
        random = [r.random.rate / r.ceiling.rate for r in group]
        echo = [r.echo.rate / r.ceiling.rate for r in group]
        print(
            f"{n:>7}  {med(r.random.rate for r in group):>14.0f}  {med(r.echo.rate for r in group):>12.0f}  "
            f"{med(r.ceiling.rate for r in group):>7.0f}  "
            f"{med(random):>12.2f}  {min(random):>4.2f}-{max(random):.2f}  "
            f"{med(echo):>10.2f}  {min(echo):>4.2f}-{max(echo):.2f}"
        )
    print()
    print("CPU µs per decision, median of the rounds: this process (referee or bare loop), the four bots")
    print(
        f"{'at once':>7}  {'referee+random':>14}  {'referee+echo':>12}  {'bare loop':>9}  "
        f"{'random bots':>11}  {'echo bots':>9}"
    )
    for n, group in rows.items():
        print(
            f"{n:>7}  {med(r.random.us(r.random.referee_cpu_s) for r in group):>14.0f}  "
            f"{med(r.echo.us(r.echo.referee_cpu_s) for r in group):>12.0f}  "
            f"{med(r.ceiling.us(r.ceiling.referee_cpu_s) for r in group):>9.0f}  "
            f"{med(r.random.us(r.random.bots_cpu_s) for r in group):>11.0f}  "
            f"{med(r.echo.us(r.echo.bots_cpu_s) for r in group):>9.0f}"
        )


async def print_memory(addresses: list[str], record: bool) -> None:
    print()
    print("referee memory with N matches in flight against random bots (fresh process each, peak over a warm baseline)")
    print(f"{'N':>3}  {'RSS MB':>7}  {'RSS growth MB':>13}  {'Python heap growth MB':>21}")
    counts = (1, 4, 16)
    growth = {}
    for n in counts:
        rss = await memory_figure(n, addresses, record, trace=False)
        heap = await memory_figure(n, addresses, record, trace=True)
        growth[n] = (rss["peak_kb"] - rss["baseline_kb"], heap["peak_kb"] - heap["baseline_kb"])
        print(
            f"{n:>3}  {rss['peak_kb'] / 1024:>7.1f}  {growth[n][0] / 1024:>13.2f}  {growth[n][1] / 1024:>21.2f}",
            flush=True,
        )
    low, high = counts[0], counts[-1]
    print(
        f"slope {low} -> {high} matches: RSS {(growth[high][0] - growth[low][0]) / (high - low):.0f} KB a match, "
        f"Python heap {(growth[high][1] - growth[low][1]) / (high - low):.0f} KB a match"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="per figure and round (default 6)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--recorded", type=int, default=8, help="warm-up matches recorded for the bare loop")
    parser.add_argument("--no-record", action="store_true", help="the referee writes no records")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory figures")
    parser.add_argument("--no-profile", action="store_true", help="skip the profile")
    parser.add_argument("--profile-seconds", type=float, default=6.0)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--addresses", help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        addresses = args.addresses.split(",")
        figure = asyncio.run(memory_child(args.memory_child, addresses, not args.no_record, args.trace))
        print(json.dumps(figure))
        return
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
