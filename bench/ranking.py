"""A ladder of bots of known order, played in process: how many matches until its table is right.

    python bench/ranking.py [--seeds 2] [--matches 160] [--keep DIR]
    python bench/ranking.py figures [--seeds 10] [--parts 1 2 3 4 5 6] [--epsilons ...] [--jobs 2] [...]
    python bench/ranking.py boards-alone [--seeds 8] [--first-seed 1] [--base greedy|heuristic]
                                         [--epsilons 0 .2 .4 .6 .8] [--cap 2000] [--keep DIR]

The ladder is the ladder's own code: ``folder.init`` and ``folder.add`` make
it, ``ledger.plan_next`` plans each batch, ``ledger.record`` stores and rates
each result in the SQLite store. Only the transport is replaced: instead of
``waraq ladder run``'s bot processes over gRPC, each planned match is played
by :func:`waraq.referee.match.inprocess.play_match` with the players of its
seats' bots (bench/known_order.py's ε bots). The players are the ones the
served bots would make: dealt under the ladder's key from the match's seed and
seeded by the match id the scheduler sends, so the in-process ladder plays the
very matches ``waraq ladder run`` plays on the same folder (its bots' specs
are the ``serve`` commands). Each batch is played whole before the next is
planned, so ``plan_next`` never waits on a match in flight: there is none.

``main`` plays the five ε bots (ε = 0, 0.25, 0.5, 0.75, 1; mixed partners,
4-player classic) for ``--matches`` matches on each of ``--seeds`` seeds, with
duplicate deals and, on the same seeds and deal key (so the same deals),
without; after every batch it reads the table's order
(:func:`waraq.ladder.present.table.standings`, rank order) and prints, per seed, the
matches until that order first equals the true order and the count from
which it stays so to the end, then the medians.

``figures`` measures issue 14's figures side by side, each part a pool of
ladders on ``--jobs`` worker processes (its ``--help`` lists the parts). Its
part 1 compares two whole designs: duplicate boards ranked by the batch
rating, against single matches ranked by TrueSkill per match.

``boards-alone`` separates what the boards themselves save (issue 32). On
each seed it plays two ladders of the same bots, both ranked by the batch
rating and both stopped by ``--until-stable``'s rule at its defaults (0.95,
50 Elo, the cap ``--cap``), one on duplicate boards and one on single
matches, on the same seed and deal key; one ladder at a time, in this
process. Its bots default to a family the earlier figures never used:
``greedy`` with a share ε of random moves, ε = 0, 0.2, 0.4, 0.6, 0.8
(``--base heuristic`` for the heuristic's). It prints, per seed, the
matches until each ladder stopped, the count from which its table was in
the true order to the stop, the ratio of each (paired over unpaired) and ρ
between the rooms of the paired ladder's boards; then the verdicts at the
stop, and the medians and ranges over the seeds.
"""

from __future__ import annotations

import argparse
import itertools
import math
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from known_order import EPSILONS, EpsilonPlayer  # this file's folder leads sys.path: bench/known_order.py

from waraq.ladder.play import folder, head_to_head, ledger
from waraq.ladder.play.matchmaking import group_size
from waraq.ladder.present import table
from waraq.ladder.stats import boards
from waraq.ladder.stats import ratings as rt
from waraq.ladder.storage import config as cfg
from waraq.ladder.storage import key_file
from waraq.ladder.storage.store import PLANNED, RATED, UNRATED, Outcome, Planned, Store
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.match import secret_deals
from waraq.referee.match.inprocess import play_match

KNOWN_ORDER = Path(__file__).resolve().parent / "known_order.py"


@dataclass(frozen=True)
class BenchBot:
    name: str
    epsilon: float  # its true strength order: lower ε is stronger
    base: str = "heuristic"  # the bot it plays as when not random (bench/known_order.py's BASES)

    @property
    def spec(self) -> str:
        """Its command spec in ladder.toml: the served bot, so ``waraq ladder run`` can play the same ladder."""
        command = f"{shlex.quote(sys.executable)} {shlex.quote(str(KNOWN_ORDER))} serve"
        base = "" if self.base == "heuristic" else f" --base {self.base}"
        return f"{command} --epsilon {self.epsilon!r}{base} --port {{port}}"


FIVE = tuple(BenchBot(f"eps-{e:g}", e) for e in EPSILONS)


def true_order(bots: Sequence[BenchBot]) -> list[str]:
    return [b.name for b in sorted(bots, key=lambda b: b.epsilon)]


@dataclass(frozen=True)
class Stats:
    matches: int  # played by this call
    seconds: float
    finished: ledger.Finished | None  # why the ledger stopped; None when on_batch stopped it


def make_ladder(
    path: str | Path,
    seed: int,
    bots: Sequence[BenchBot],
    *,
    duplicate: bool,
    partners: str = "mixed",
    rules: Any = PRESETS["classic"],
    batch: int = 16,
) -> Path:
    """A new ladder folder of ``bots``. Its deal key is the seed's own, so two ladders of one seed
    (with and without duplicates) deal alike: deal ``d`` is the same decks in both."""
    path = Path(path)
    folder.init(path, rules, seed=seed, duplicate=duplicate, partners=partners, deal_key=f"bench-{seed}")
    config = cfg.load(path)
    cfg.save(path, replace(config, matchmaking=replace(config.matchmaking, batch=batch)))
    with folder.open_ladder(path) as ladder:
        for bot in bots:
            folder.add(ladder, bot.name, bot.spec, check=False)
    return path


def play_ladder(
    path: str | Path,
    bots: Sequence[BenchBot],
    target: ledger.Target,
    *,
    on_batch: Callable[[Store, int], bool] | None = None,
    on_match: Callable[[Planned, Outcome], None] | None = None,
) -> Stats:
    """Play the ladder at ``path`` until the ledger says it is finished, or ``on_batch`` returns False.

    ``on_batch`` is called after each batch is rated, with the store and the number of matches
    rated in the ladder so far; ``on_match`` with each match played and its outcome. Matches a
    killed call left planned are played first.
    """
    began = time.perf_counter()
    played = 0
    with folder.open_ladder(path) as ladder:
        store, config = ladder.store, ladder.config
        env = rt.environment(config.trueskill)
        key = key_file.read(ladder.folder)
        by_name = {b.name: b for b in bots}
        by_entry = {e.id: by_name[e.base] for e in store.entries() if e.base in by_name}
        ledger.advance(store, config, env)  # results a killed call stored but could not rate yet
        while True:
            batch = store.pending()
            if not batch:
                planned = ledger.plan_next(store, config, env, target)
                if isinstance(planned, ledger.Finished):
                    return Stats(played, time.perf_counter() - began, planned)
                if isinstance(planned, str):  # ledger.WAIT; nothing is in flight here, so it waits on nothing
                    raise RuntimeError("planning waits, but every planned match is played and rated")
                batch = planned
            for match in batch:
                if store.status_of(match.id) == PLANNED:  # not cancelled since it was planned
                    outcome = play(match, by_entry, key, config)
                    ledger.record(store, config, env, outcome, match.seats)
                    if on_match is not None:
                        on_match(match, outcome)
                    played += 1
            if on_batch is not None and not on_batch(store, store.count_by_status()[RATED]):
                return Stats(played, time.perf_counter() - began, None)


def play(planned: Planned, bots: dict[int, BenchBot], key: str, config: cfg.LadderConfig) -> Outcome:
    """One planned match, played as the scheduler plays it over gRPC: the same decks, the same players."""
    rules = config.rules
    rooms = group_size(config.layout, config.matchmaking.duplicate)
    unknown = [e for e in planned.seats if e not in bots]
    if unknown:
        raise ValueError(f"match {planned.id} seats entries {unknown}, which are none of the bench's bots")
    match_id = secret_deals.match_id(key, f"ladder/{planned.id}")  # what the scheduler sends the bots
    players = [
        EpsilonPlayer(bots[e].epsilon, f"{match_id}/{seat}", bots[e].base) for seat, e in enumerate(planned.seats)
    ]
    began = time.perf_counter()
    seed = secret_deals.dealing_seed(planned.seed, key)
    state = play_match(rules, seed, players, boards.dealer(config.game, rooms, seed))
    result = state.result
    decisions = sum(1 for e in state.events if e["type"] == "decision")
    return Outcome(
        planned.id,
        result.reason,
        tuple(result.winners),
        tuple(result.score),
        (),
        (),
        decisions,
        time.perf_counter() - began,
    )


def table_order(store: Store, config: cfg.LadderConfig) -> list[str]:
    """The bots' names in the table's rank order, as ``waraq ladder show`` ranks them."""
    return [s.bot for s in table.standings(store, config)]


def matches_until_ordered(
    trajectory: Sequence[tuple[int, Sequence[str]]], true_order: Sequence[str]
) -> tuple[int | None, int | None]:
    """(the first match count at which the order equals ``true_order``, the count from which it
    equals it to the end); None if never. ``trajectory``: (matches rated, the table's order) after
    each batch, in order."""
    wanted = list(true_order)
    first = next((count for count, order in trajectory if list(order) == wanted), None)
    stays = None
    for count, order in reversed(trajectory):
        if list(order) != wanted:
            break
        stays = count
    return first, stays


def median(values: Sequence[int | None]) -> float | None:
    """The median, a None (never ordered) counting as more than any count; None if it lands on one."""
    ordered = sorted(values, key=lambda v: math.inf if v is None else v)
    low, high = ordered[(len(ordered) - 1) // 2], ordered[len(ordered) // 2]
    return None if low is None or high is None else (low + high) / 2


def ordering_run(path: Path, seed: int, duplicate: bool, matches: int) -> tuple[tuple[int | None, int | None], Stats]:
    """One ladder of the five ε bots: its matches until ordered, and its stats."""
    return ordered_ladder(path, seed, FIVE, duplicate, ledger.Target(matches))


def ordered_ladder(
    path: Path, seed: int, bots: Sequence[BenchBot], duplicate: bool, target: ledger.Target
) -> tuple[tuple[int | None, int | None], Stats]:
    """A ladder of ``bots`` made and played to ``target``, its table's order read after every batch:
    the matches until that order first was the true one and from when it stayed so; and its stats."""
    make_ladder(path, seed, bots, duplicate=duplicate)
    config = cfg.load(path)
    trajectory: list[tuple[int, list[str]]] = []

    def after_batch(store: Store, rated: int) -> bool:
        trajectory.append((rated, table_order(store, config)))
        return True

    stats = play_ladder(path, bots, target, on_batch=after_batch)
    return matches_until_ordered(trajectory, true_order(bots)), stats


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=2, help="ladder seeds 1 .. N")
    parser.add_argument("--matches", type=int, default=160, help="matches a ladder")
    parser.add_argument("--keep", type=Path, help="make the ladders here and keep them")
    args = parser.parse_args(argv)
    print(
        f"five bots of known order ({', '.join(b.name for b in FIVE)}: the heuristic with a share ε of random "
        f"moves), 4-player classic, mixed partners, {args.matches} matches a ladder; matches until the table's "
        "order is the true order (first, and from when it stays so), with and without duplicate deals, "
        "the same deals on each seed",
        flush=True,
    )
    header = f"  {'seed':>4}  {'duplicates: first':>17}  {'stays':>5}  {'no duplicates: first':>20}  {'stays':>5}"
    print(f"{header}  seconds", flush=True)
    found: dict[bool, list[tuple[int | None, int | None]]] = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="waraq-ranking-bench-") as scratch:
        work = args.keep or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        for seed in range(1, args.seeds + 1):
            cells, seconds = [], []
            for duplicate in (True, False):
                path = work / f"seed-{seed}-{'duplicates' if duplicate else 'single'}"
                counts, stats = ordering_run(path, seed, duplicate, args.matches)
                found[duplicate].append(counts)
                cells += [_count(c, args.matches) for c in counts]
                seconds.append(f"{stats.seconds:.1f}")
            print(
                f"  {seed:>4}  {cells[0]:>17}  {cells[1]:>5}  {cells[2]:>20}  {cells[3]:>5}  {' '.join(seconds)}",
                flush=True,
            )
    for duplicate in (True, False):
        firsts, stays = zip(*found[duplicate], strict=True)
        print(
            f"  {'with' if duplicate else 'without'} duplicates: median first {_count(median(firsts), args.matches)}, "
            f"median stays from {_count(median(stays), args.matches)}"
        )
    return 0


def _count(value: float | None, matches: int) -> str:
    return f">{matches}" if value is None else f"{value:g}"


# -- figures: issue 14's figures, side by side in one run -------------------------------------------
#
# Every ladder below is one task (one seed, one variant) for a pool of at most ``--jobs`` worker
# processes; each task makes its ladder in its own scratch folder and returns plain numbers, which
# the parent prints as they come (progress) and as tables once a part's tasks are all in. Every
# ladder of seed s deals with the key ``bench-{s}``, so its deal d is the same decks in every part.

COPIES = (BenchBot("eps-0", 0.0), BenchBot("eps-0-copy", 0.0), BenchBot("eps-0.5", 0.5), BenchBot("eps-1", 1.0))
VERSUS = (BenchBot("heuristic", 0.0), BenchBot("eps-0.25", 0.25))  # A and B of `waraq versus`
VERSUS_TEST = (0.0, 50.0, 0.05, 0.05)  # elo0, elo1, alpha, beta
VERSUS_BOARDS = 2000  # versus.py's DEFAULT_BOARDS: the cap is this many boards
VERSUS_CONCURRENCY = 4  # versus.py's default --concurrency, which sets its batch


def trueskill_order(store: Store) -> list[str]:
    """The bots by TrueSkill's conservative μ − 3σ, as the ladder ranked before boards (latest ratings)."""
    known = store.latest_ratings()
    entries = store.entries()
    return [
        e.name
        for e in sorted(
            entries, key=lambda e: (-(known[e.id][0] - 3 * known[e.id][1]) if e.id in known else math.inf, e.id)
        )
    ]


def task_ordering(
    work: str, seed: int, duplicate: bool, matches: int, bots: Sequence[BenchBot] = FIVE
) -> dict[str, Any]:
    """Part 1 (and 5): a ladder of the five for ``matches``; the matches until ordered by the table and
    by TrueSkill per match, and for paired ladders ρ, the effective matches of a board and the fitted β."""
    from waraq.ladder.play import evidence

    path = Path(work) / f"order-{seed}-{'paired' if duplicate else 'single'}"
    make_ladder(path, seed, bots, duplicate=duplicate)
    config = cfg.load(path)
    by_table: list[tuple[int, list[str]]] = []
    by_trueskill: list[tuple[int, list[str]]] = []

    def after_batch(store: Store, rated: int) -> bool:
        by_table.append((rated, table_order(store, config)))
        by_trueskill.append((rated, trueskill_order(store)))
        return True

    stats = play_ladder(path, bots, ledger.Target(matches), on_batch=after_batch)
    wanted = true_order(bots)
    out: dict[str, Any] = {
        "seed": seed,
        "duplicate": duplicate,
        "seconds": stats.seconds,
        "matches": stats.matches,
        "table": matches_until_ordered(by_table, wanted),
        "trueskill": matches_until_ordered(by_trueskill, wanted),
    }
    with folder.open_ladder(path, readonly=True) as ladder:
        found = evidence.gather(ladder.store, ladder.config, [e.id for e in ladder.store.entries()])
        out["rho"], out["effective"] = found.rho(), found.effective_matches()
        out["beta"], out["beta_setting"] = evidence.fitted_beta(ladder.store, ladder.config), config.trueskill.beta
    return out


def task_stable(work: str, seed: int, part: str, bots: Sequence[BenchBot], partners: str, cap: int) -> dict[str, Any]:
    """Parts 2 and 3: a ladder ``--until-stable`` (the defaults) with this cap: when it stopped and its verdicts."""
    path = Path(work) / f"stable-{part}-{partners}-{seed}"
    make_ladder(path, seed, bots, duplicate=True, partners=partners)
    target = ledger.Target(cap, until_stable=True)
    stats = play_ladder(path, bots, target)
    with folder.open_ladder(path, readonly=True) as ladder:
        rows = table.standings(ladder.store, ladder.config, rule=target.rule)
        rated = ladder.store.count_by_status()[RATED]
    finished = stats.finished
    return {
        "seed": seed,
        "part": part,
        "partners": partners,
        "seconds": stats.seconds,
        "matches": rated,
        "reason": finished.reason if finished else None,
        "detail": finished.detail if finished else "",
        "rows": [(r.bot, r.vs_next) for r in rows],
    }


def task_versus(work: str, seed: int, duplicate: bool, epsilon: float = 0.25) -> dict[str, Any]:
    """Parts 4 and 6: `waraq versus heuristic ε=0.25` as versus.py sets it up, in process, with or without
    duplicate boards; then each deal played once more by four ε = 0 bots (the baseline)."""
    from waraq.ladder.play.matchmaking import group_size
    from waraq.ladder.stats.sprt import Sprt

    pair = (VERSUS[0], BenchBot(f"eps-{epsilon:g}", epsilon))
    path = Path(work) / f"versus-{epsilon:g}-{seed}-{'paired' if duplicate else 'single'}"
    sides = PRESETS["classic"].teams
    size = group_size(4, duplicate)
    batch = max(size, -(-VERSUS_CONCURRENCY // size) * size)
    make_ladder(path, seed, pair, duplicate=duplicate, partners="self", batch=batch)
    seeds: dict[int, int] = {}  # match id: its dealing seed

    def seen(planned: Planned, outcome: Outcome) -> None:
        seeds[planned.id] = planned.seed

    target = ledger.Target(VERSUS_BOARDS * size, sprt=Sprt(*VERSUS_TEST))
    stats = play_ladder(path, pair, target, on_match=seen)
    with folder.open_ladder(path, readonly=True) as ladder:
        store, config = ladder.store, ladder.config
        key = key_file.read(ladder.folder)
        a = store.entry_named(pair[0].name).id
        found = head_to_head.summary(store, config)
        # deal seed: per room, (A's result, the baseline's result for A's side)
        deals: dict[int, list[tuple[float, float]]] = {}
        baseline: dict[int, float] = {}
        for played in store.results((RATED, UNRATED)):
            deal_seed = seeds[played.id]
            ranks = boards.room(played, config.layout).ranks
            mine = played.seats.index(a) % sides
            result = 0.5 if ranks is None else boards._score(ranks[mine], ranks[1 - mine])
            if deal_seed not in baseline:
                baseline[deal_seed] = reference_result(deal_seed, key)
            side0 = baseline[deal_seed]
            deals.setdefault(deal_seed, []).append((result, side0 if mine == 0 else 1 - side0))
    finished = stats.finished
    return {
        "seed": seed,
        "duplicate": duplicate,
        "seconds": stats.seconds,
        "matches": found.matches,
        "boards": found.boards,
        "reason": finished.reason if finished else None,
        "detail": finished.detail if finished else "",
        "size": size,
        "b": pair[1].name,
        "deals": [rooms for rooms in deals.values() if len(rooms) == size],
    }


def reference_result(deal_seed: int, key: str) -> float:
    """Side 0's result on this deal with four ε = 0 bots in its seats: 1 won, 0 lost, 0.5 no winner."""
    players = [EpsilonPlayer(0.0, f"baseline/{deal_seed}/{seat}") for seat in range(4)]
    seed = secret_deals.dealing_seed(deal_seed, key)
    state = play_match(PRESETS["classic"], seed, players, boards.dealer("hokm", 2, seed))
    winners = set(state.result.winners)
    return 0.5 if not winners else 1.0 if winners & {0, 2} else 0.0


def task_real_versus(work: str, seed: int) -> dict[str, Any]:
    """Part 4's one real run: `waraq versus` over gRPC, the ε bot served by known_order.py."""
    import subprocess

    where = Path(work) / f"real-versus-{seed}"
    spec = f"{shlex.quote(sys.executable)} {shlex.quote(str(KNOWN_ORDER))} serve --epsilon 0.25 --port {{port}}"
    command = [
        str(Path(sys.executable).parent / "waraq"),
        "versus",
        "heuristic",
        spec,
        "--dir",
        str(where),
        "--sprt",
        *(f"{v:g}" for v in VERSUS_TEST),
        "--seed",
        str(seed),
        "--quiet",
        "--concurrency",
        "2",
    ]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    return {
        "command": shlex.join(command),
        "status": done.returncode,
        "stdout": done.stdout,
        "stderr": done.stderr,
        "seconds": time.perf_counter() - began,
    }


def _run_task(job: tuple[str, tuple[Any, ...]]) -> tuple[str, tuple[Any, ...], dict[str, Any] | str]:
    name, args = job
    import traceback

    try:
        return name, args, TASKS[name](*args)
    except Exception:  # a task's failure is reported with its part, not lost in the pool
        return name, args, traceback.format_exc()


TASKS: dict[str, Callable[..., dict[str, Any]]] = {
    "ordering": task_ordering,
    "stable": task_stable,
    "versus": task_versus,
    "real": task_real_versus,
}


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    import statistics

    if len(values) < 2:
        return (values[0],) * 3 if values else (math.nan,) * 3
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[1], q[2]


def figures(argv: Sequence[str]) -> int:
    import multiprocessing

    parser = argparse.ArgumentParser(prog="bench/ranking.py figures", description="issue 14's figures, in one run")
    parser.add_argument("--seeds", type=int, default=10, help="seeds 1 .. N for parts 1, 2, 4, 6")
    parser.add_argument("--confidence-seeds", type=int, default=20, help="seeds for part 3")
    parser.add_argument("--matches", type=int, default=480, help="part 1: matches a ladder")
    parser.add_argument("--cap", type=int, default=2000, help="parts 2 and 3: the until-stable cap")
    parser.add_argument("--four", action="store_true", help="part 3 with four bots (ε = 1 dropped)")
    parser.add_argument(
        "--epsilons", type=float, nargs="+", default=list(EPSILONS), help="part 1's bots (default: 0 .25 .5 .75 1)"
    )
    parser.add_argument("--versus-epsilon", type=float, default=0.25, help="part 4's B: the heuristic with this ε")
    parser.add_argument(
        "--copies-partners", nargs="+", choices=("mixed", "self"), default=["mixed"], help="part 2's partners"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--parts", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6], help="1-6 (5 needs 1, 6 needs 4)")
    parser.add_argument("--no-real", action="store_true", help="part 4 without the real gRPC run")
    parser.add_argument("--keep", type=Path, help="make the ladders here and keep them")
    args = parser.parse_args(argv)
    parts = set(args.parts) | ({1} if 5 in args.parts else set()) | ({4} if 6 in args.parts else set())
    confidence_bots = FIVE[:4] if args.four else FIVE
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="waraq-figures-") as scratch:
        work = str(args.keep or scratch)
        Path(work).mkdir(parents=True, exist_ok=True)
        jobs: list[tuple[str, tuple[Any, ...]]] = []  # the long ones first, so the pool ends together
        if 3 in parts:
            jobs += [
                ("stable", (work, s, "3", confidence_bots, "mixed", args.cap))
                for s in range(1, args.confidence_seeds + 1)
            ]
        if 2 in parts:
            jobs += [
                ("stable", (work, s, "2", COPIES, partners, args.cap))
                for partners in args.copies_partners
                for s in range(1, args.seeds + 1)
            ]
        if 1 in parts:
            five = tuple(BenchBot(f"eps-{e:g}", e) for e in args.epsilons)
            jobs += [
                ("ordering", (work, s, d, args.matches, five)) for s in range(1, args.seeds + 1) for d in (True, False)
            ]
        if 4 in parts:
            jobs += [
                ("versus", (work, s, d, args.versus_epsilon)) for s in range(1, args.seeds + 1) for d in (True, False)
            ]
            if not args.no_real:
                jobs.append(("real", (work, 1)))
        print(f"{len(jobs)} ladders on {args.jobs} worker processes", flush=True)
        results: dict[str, list[dict[str, Any]]] = {name: [] for name in TASKS}
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            for count, (name, task_args, found) in enumerate(pool.imap_unordered(_run_task, jobs), start=1):
                elapsed = time.perf_counter() - began
                if isinstance(found, str):
                    print(f"  [{count}/{len(jobs)} {elapsed:.0f} s] {name} {task_args[1:]} FAILED:", found, flush=True)
                    continue
                results[name].append(found)
                print(f"  [{count}/{len(jobs)} {elapsed:.0f} s] {_progress(name, found)}", flush=True)
    print(f"\nall ladders played in {time.perf_counter() - began:.0f} s\n", flush=True)
    if 1 in parts:
        print_ordering(results["ordering"], args.matches)
    if 2 in parts:
        print_copies([r for r in results["stable"] if r["part"] == "2"], args.cap)
    if 3 in parts:
        print_confidence([r for r in results["stable"] if r["part"] == "3"], confidence_bots, args.cap)
    if 4 in parts:
        print_versus(results["versus"], results["real"])
    if 5 in parts:
        print_rho_beta(results["ordering"])
    if 6 in parts:
        print_baseline(results["versus"])
    return 0


def _progress(name: str, found: dict[str, Any]) -> str:
    if name == "ordering":
        return (
            f"part 1 seed {found['seed']} {'paired' if found['duplicate'] else 'unpaired'}: table "
            f"{found['table']}, TrueSkill {found['trueskill']} ({found['seconds']:.0f} s)"
        )
    if name == "stable":
        return (
            f"part {found['part']} seed {found['seed']} ({found['partners']}): {found['reason']} after "
            f"{found['matches']} matches, {found['rows']} ({found['seconds']:.0f} s)"
        )
    if name == "versus":
        return (
            f"part 4 seed {found['seed']} {'paired' if found['duplicate'] else 'unpaired'}: {found['reason']} "
            f"after {found['boards']} boards, {found['matches']} matches ({found['seconds']:.0f} s)"
        )
    return f"part 4 real versus: exit {found['status']} ({found['seconds']:.0f} s)"


def print_ordering(found: list[dict[str, Any]], matches: int) -> None:
    by = {(r["seed"], r["duplicate"]): r for r in found}
    seeds = sorted({s for s, _ in by})
    print(
        f"1. paired against unpaired: five ε bots, mixed partners, {matches} matches a ladder; matches until the "
        "order is the true order and stays so to the end (first time in brackets)"
    )
    print(
        "   (a) duplicate boards ranked by the table (batch Elo); (b) no duplicates ranked by TrueSkill μ − 3σ per "
        "match. Also shown: (a') duplicates by TrueSkill per board, (b') no duplicates by the table"
    )
    print(
        f"  {'seed':>4}  {'(a) stays':>10} {'(first)':>7}  {'(b) stays':>10} {'(first)':>7}  {'(a)/(b)':>7}  "
        f"{'(a`)':>6}  {'(b`)':>6}"
    )
    ratios: list[float] = []
    # The two parts of (a)/(b), per seed: boards alone, (a)/(b'), both ranked by the table; and the
    # rating alone, (b')/(b), single matches by the table against by TrueSkill per match.
    parts: dict[str, list[float]] = {"boards": [], "rating": []}
    cells: dict[str, list[int | None]] = {"a": [], "b": [], "a2": [], "b2": []}
    for seed in seeds:
        paired, single = by.get((seed, True)), by.get((seed, False))
        if paired is None or single is None:
            continue
        (af, a), (bf, b) = paired["table"], single["trueskill"]
        a2, b2 = paired["trueskill"][1], single["table"][1]
        for k, v in (("a", a), ("b", b), ("a2", a2), ("b2", b2)):
            cells[k].append(v)
        # Never ordered counts as the cap: a ratio with it is a bound, marked.
        ratio = (a or matches) / (b or matches)
        ratios.append(ratio)
        parts["boards"].append((a or matches) / (b2 or matches))
        parts["rating"].append((b2 or matches) / (b or matches))
        mark = "" if a and b else "*"
        print(
            f"  {seed:>4}  {_count(a, matches):>10} {_count(af, matches):>7}  {_count(b, matches):>10} "
            f"{_count(bf, matches):>7}  {ratio:>6.2f}{mark or ' '}  "
            f"{_count(a2, matches):>6}  {_count(b2, matches):>6}"
        )
    if ratios:
        q1, q2, q3 = quartiles(ratios)
        print(
            f"  medians: (a) {_count(median(cells['a']), matches)}, (b) {_count(median(cells['b']), matches)}, "
            f"(a') {_count(median(cells['a2']), matches)}, (b') {_count(median(cells['b2']), matches)}"
        )
        print(
            f"  ratio (a)/(b) per seed: median {q2:.2f}, quartiles {q1:.2f} – {q3:.2f}, range {min(ratios):.2f} – "
            f"{max(ratios):.2f} (goal ≤ 0.7: {'met' if q2 <= 0.7 else 'NOT met'}); "
            f"* = a side never ordered, counted as {matches}"
        )
        for name, label in (("boards", "boards alone, (a)/(b')"), ("rating", "the batch rating alone, (b')/(b)")):
            values = parts[name]
            print(
                f"  {label} per seed: median {statistics.median(values):.2f}, range {min(values):.2f} – "
                f"{max(values):.2f} (a side never ordered counted as {matches})"
            )
    print(flush=True)


def _verdicts(rows: Sequence[tuple[str, str | None]]) -> str:
    return (
        " ".join(f"{bot} {'>' if v == 'above' else '=' if v == 'tied' else '?'}" for bot, v in rows[:-1])
        + f" {rows[-1][0]}"
    )


def print_copies(found: list[dict[str, Any]], cap: int) -> None:
    names = {b.name for b in COPIES[:2]}
    for partners in sorted({r["partners"] for r in found}):
        runs = sorted((r for r in found if r["partners"] == partners), key=lambda r: r["seed"])
        print(
            f"2. two copies of one bot ({', '.join(b.name for b in COPIES)}), partners {partners}, until stable "
            f"(confidence 0.95, margin 50 Elo), cap {cap}"
        )
        print(f"  {'seed':>4}  {'matches':>7}  {'stop':>6}  table (> above, = tied, ? open)")
        tied, stops = 0, []
        for r in runs:
            rows = r["rows"]
            ok = any({rows[i][0], rows[i + 1][0]} == names and rows[i][1] == "tied" for i in range(len(rows) - 1))
            tied += ok and r["reason"] == "stable"
            stops.append(r["matches"])
            print(
                f"  {r['seed']:>4}  {r['matches']:>7}  {r['reason']:>6}  {_verdicts(rows)}"
                f"{'' if ok else '   (the copies not tied)'}"
            )
            print(f"        {r['detail']}")
        if runs:
            print(
                f"  copies tied and stopped: {tied} of {len(runs)}; matches to stop: median {median(stops):g}, "
                f"range {min(stops)} – {max(stops)} (cap {cap})"
            )
        print(flush=True)


def print_confidence(found: list[dict[str, Any]], bots: Sequence[BenchBot], cap: int) -> None:
    rank = {b.name: i for i, b in enumerate(sorted(bots, key=lambda b: b.epsilon))}
    runs = sorted(found, key=lambda r: r["seed"])
    print(
        f"3. the stopping rule's true confidence: {', '.join(b.name for b in bots)}, mixed partners, until stable "
        f"(0.95, 50 Elo), cap {cap}; wrong = an 'above' against the true order or a 'tied' (every two differ)"
    )
    print(f"  {'seed':>4}  {'matches':>7}  {'stop':>6}  table")
    wrong, stopped, stops = 0, 0, []
    for r in runs:
        rows = r["rows"]
        bad = []
        for (upper, verdict), (lower, _) in zip(rows, rows[1:], strict=False):
            if verdict == "tied" or (verdict == "above" and rank[upper] > rank[lower]):
                bad.append(f"{upper} {verdict} {lower}")
        stopped += r["reason"] == "stable"
        wrong += r["reason"] == "stable" and bool(bad)
        stops.append(r["matches"])
        print(
            f"  {r['seed']:>4}  {r['matches']:>7}  {r['reason']:>6}  {_verdicts(rows)}"
            f"{'   WRONG: ' + ', '.join(bad) if bad else ''}"
        )
    if runs:
        share = wrong / len(runs)
        print(
            f"  stopped {stopped} of {len(runs)}; stopped with a wrong verdict {wrong} of {len(runs)} = {share:.0%} "
            f"(goal ≤ 5 %); matches to stop: median {median(stops):g}, range {min(stops)} – {max(stops)}"
        )
    print(flush=True)


def print_versus(found: list[dict[str, Any]], real: list[dict[str, Any]]) -> None:
    by = {(r["seed"], r["duplicate"]): r for r in found}
    seeds = sorted({s for s, _ in by})
    a, b = VERSUS[0].name, found[0]["b"] if found else VERSUS[1].name
    print(
        f"4. waraq versus {a} {b} (partners self), SPRT elo0 0 elo1 50 α 0.05 β 0.05, as versus.py sets it up; "
        "paired = duplicate boards of 2 rooms, unpaired = boards of one room"
    )
    print(
        f"  {'seed':>4}  {'paired: boards':>14} {'matches':>7} {'decision':>8}  {'unpaired: matches':>17} "
        f"{'decision':>8}  {'ratio':>5}"
    )
    ratios: list[float] = []
    cells: dict[bool, list[int | None]] = {True: [], False: []}
    for seed in seeds:
        p, u = by.get((seed, True)), by.get((seed, False))
        if p is None or u is None:
            continue
        ratio = p["matches"] / u["matches"] if u["matches"] else math.nan
        ratios.append(ratio)
        cells[True].append(p["matches"])
        cells[False].append(u["matches"])
        print(
            f"  {seed:>4}  {p['boards']:>14} {p['matches']:>7} {p['reason']:>8}  {u['matches']:>17} "
            f"{u['reason']:>8}  {ratio:>5.2f}"
        )
    if ratios:
        q1, q2, q3 = quartiles(ratios)
        h = {d: sum(by[s, d]["reason"] == "h1" for s in seeds) for d in (True, False)}
        boards_median = (median(cells[True]) or 0) / 2
        print(
            f"  medians: paired {median(cells[True]):g} matches ({boards_median:g} boards), unpaired "
            f"{median(cells[False]):g} matches; ratio paired/unpaired median {q2:.2f} (quartiles {q1:.2f} – "
            f"{q3:.2f}); H1 accepted: paired {h[True]}/{len(seeds)}, unpaired {h[False]}/{len(seeds)}"
        )
    for r in real:
        print(f"\n  the real run over gRPC ({r['seconds']:.0f} s): {r['command']}")
        print("  " + (r["stdout"] + r["stderr"]).strip().replace("\n", "\n  "))
        print(f"  exit status {r['status']}")
    print(flush=True)


def print_rho_beta(found: list[dict[str, Any]]) -> None:
    paired = [r for r in found if r["duplicate"]]
    if not paired:
        return
    rhos = [r["rho"] for r in paired if r["rho"] is not None]
    effective = [r["effective"] for r in paired if r["effective"] is not None]
    betas = [r["beta"] for r in paired if r["beta"] is not None]
    singles = [r["beta"] for r in found if not r["duplicate"] and r["beta"] is not None]
    setting = paired[0]["beta_setting"]
    print("5. ρ and β, over the paired ladders of part 1")
    print(
        f"  ρ median {median(rhos):.3f} (range {min(rhos):.3f} – {max(rhos):.3f}): the correlation between a board's "
        "two rooms of the result on the same cards, after the fitted strengths; >0 means the cards decide part of a "
        "match and the pairing cancels that part"
    )
    print(
        f"  effective matches per board median {median(effective):.2f} (range {min(effective):.2f} – "
        f"{max(effective):.2f}): a board of 2 rooms is worth this many independent matches (2 / design effect)"
    )
    print(
        f"  β fitted median {median(betas):.2f} (range {min(betas):.2f} – {max(betas):.2f}; the unpaired ladders: "
        f"{median(singles):.2f}; ladder.toml's β {setting:g}): the spread of one match's performance, in μ units, "
        "that best predicts each board from the ratings before it; a larger β says a single match tells less"
    )
    print(flush=True)


def print_baseline(found: list[dict[str, Any]]) -> None:
    import statistics

    print(
        "6. a baseline on the same cards (each deal played once more by four ε = 0 bots, subtracted from A's "
        "result): the versus runs of part 4"
    )
    singles = [room[0] for r in found if not r["duplicate"] for rooms in r["deals"] for room in rooms]
    if len(singles) < 2:
        return
    unit = statistics.pvariance(singles)  # one independent match: what "effective matches" counts in
    print(f"  A's result per match, unpaired, variance {unit:.4f}: the unit of an effective match")
    print(
        f"  {'design':>18}  {'deals':>6}  {'variance per deal':>17}  {'matches per deal':>16}  "
        f"{'effective per match played':>26}"
    )
    largest_gap = 0.0
    for duplicate in (True, False):
        deals = [rooms for r in found if r["duplicate"] == duplicate for rooms in r["deals"]]
        if len(deals) < 2:
            continue
        rooms = len(deals[0])
        plain = [statistics.fmean(x for x, _ in d) for d in deals]
        based = [statistics.fmean(x - base for x, base in d) for d in deals]
        if duplicate:
            largest_gap = max(abs((p - q) - 0.5) for p, q in zip(plain, based, strict=True))
        name = "paired" if duplicate else "unpaired"
        for label, values, cost in ((name, plain, rooms), (f"{name}+baseline", based, rooms + 1)):
            var = statistics.pvariance(values)
            worth = unit / var / cost if var > 0 else math.inf
            print(f"  {label:>18}  {len(values):>6}  {var:>17.4f}  {cost:>16}  {worth:>26.2f}")
    print(
        f"  complete paired boards: the baseline's mean over a board's rooms from A's side is 1/2 on every deal: "
        f"largest |(without − with) − 0.5| = {largest_gap:.2e} (it cancels exactly, so it only costs a match)"
    )
    print(
        "  (the deals are those of sequential runs, which stop early on lucky streaks: the variances are of the "
        "boards played, not of a fixed design)"
    )
    print(flush=True)


# -- boards alone: what duplicate deals save, everything else the same (issue 32) -----------------------
#
# Part 1 of ``figures`` compares two whole designs: boards ranked by the batch rating against single
# matches ranked by TrueSkill per match. This separates the boards' own part: each seed plays two
# ladders of the same bots, both ranked by the batch rating and both stopped by ``--until-stable``'s
# rule at its defaults, one on duplicate boards and one on single matches (``--no-duplicates``), on
# the same seed and deal key. One process, one ladder at a time.

GREEDY_FIVE = tuple(BenchBot(f"greedy-eps-{e:g}", e, "greedy") for e in (0.0, 0.2, 0.4, 0.6, 0.8))


def task_boards_alone(work: str, seed: int, duplicate: bool, bots: Sequence[BenchBot], cap: int) -> dict[str, Any]:
    """One ladder ``--until-stable`` (the defaults, this cap): when it stopped, when its table's order became the
    true order for good, its verdicts, and for a paired ladder ρ and the matches a board is worth."""
    from waraq.ladder.play import evidence

    path = Path(work) / f"alone-{seed}-{'paired' if duplicate else 'single'}"
    target = ledger.Target(cap, until_stable=True)
    order, stats = ordered_ladder(path, seed, bots, duplicate, target)
    with folder.open_ladder(path, readonly=True) as ladder:
        store = ladder.store
        rows = table.standings(store, ladder.config, rule=target.rule)
        counts = store.count_by_status()
        found = evidence.gather(store, ladder.config, [e.id for e in store.entries()])
    finished = stats.finished
    return {
        "seed": seed,
        "duplicate": duplicate,
        "seconds": stats.seconds,
        "matches": counts[RATED] + counts[UNRATED],
        "reason": finished.reason if finished else None,
        "order": order,
        "rows": [(r.bot, r.vs_next) for r in rows],
        "rho": found.rho(),
        "effective": found.effective_matches(),
    }


def boards_alone(argv: Sequence[str]) -> int:
    """``python bench/ranking.py boards-alone``: duplicate boards against single matches, nothing else changed."""
    parser = argparse.ArgumentParser(
        prog="bench/ranking.py boards-alone",
        description="what duplicate boards alone save: the same bots, batch rating and stopping rule, "
        "with and without duplicate deals",
    )
    parser.add_argument("--seeds", type=int, default=8, help="ladder seeds FIRST .. FIRST + N - 1 (default 8)")
    parser.add_argument("--first-seed", type=int, default=1, metavar="FIRST")
    parser.add_argument(
        "--base", choices=("greedy", "heuristic"), default="greedy", help="the family's base bot (default greedy)"
    )
    parser.add_argument(
        "--epsilons", type=float, nargs="+", default=[b.epsilon for b in GREEDY_FIVE], help="default 0 .2 .4 .6 .8"
    )
    parser.add_argument("--cap", type=int, default=2000, help="the until-stable cap of each ladder (default 2000)")
    parser.add_argument("--keep", type=Path, help="make the ladders here and keep them")
    args = parser.parse_args(argv)
    prefix = "greedy-eps" if args.base == "greedy" else "eps"
    bots = tuple(BenchBot(f"{prefix}-{e:g}", e, args.base) for e in sorted(args.epsilons))
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    print(
        f"boards alone: {', '.join(b.name for b in bots)} ({args.base} with a share ε of random moves), 4-player "
        f"classic, mixed partners, until stable (confidence 0.95, margin 50 Elo), cap {args.cap}; each seed a ladder "
        "on duplicate boards (paired) and one on single matches (unpaired), the same seed and deal key, both ranked "
        "by the batch rating. Per ladder: the matches until it stopped, and from when its table was the true order "
        "to the end",
        flush=True,
    )
    print(
        f"  {'seed':>4}  {'paired: stop':>12} {'order':>6}  {'unpaired: stop':>14} {'order':>6}  "
        f"{'stop ratio':>10}  {'order ratio':>11}  {'ρ':>6}  seconds",
        flush=True,
    )
    began = time.perf_counter()
    runs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    with tempfile.TemporaryDirectory(prefix="waraq-boards-alone-") as scratch:
        work = str(args.keep or scratch)
        Path(work).mkdir(parents=True, exist_ok=True)
        for seed in seeds:
            paired, single = (task_boards_alone(work, seed, d, bots, args.cap) for d in (True, False))
            runs.append((paired, single))
            print(f"  {_alone_line(paired, single, args.cap)}", flush=True)
    print(f"\n{len(runs)} seeds in {time.perf_counter() - began:.0f} s", flush=True)
    print_boards_alone(runs, bots, args.cap)
    return 0


def _stop_cell(run: dict[str, Any]) -> str:
    return f"{run['matches']}" + ("" if run["reason"] == "stable" else f" ({run['reason']})")


def _alone_line(paired: dict[str, Any], single: dict[str, Any], cap: int) -> str:
    stays = [r["order"][1] for r in (paired, single)]
    order_ratio = f"{stays[0] / stays[1]:.2f}" if None not in stays else "-"
    rho = f"{paired['rho']:+.3f}" if paired["rho"] is not None else "-"
    bound = " " if paired["reason"] == single["reason"] == "stable" else "*"  # a ladder stopped by its cap
    return (
        f"{paired['seed']:>4}  {_stop_cell(paired):>12} {_count(stays[0], cap):>6}  "
        f"{_stop_cell(single):>14} {_count(stays[1], cap):>6}  "
        f"{paired['matches'] / single['matches']:>9.2f}{bound}  {order_ratio:>11}  {rho:>6}  "
        f"{paired['seconds']:.0f} {single['seconds']:.0f}"
    )


def print_boards_alone(
    runs: Sequence[tuple[dict[str, Any], dict[str, Any]]], bots: Sequence[BenchBot], cap: int
) -> None:
    if not runs:
        return
    stop = [p["matches"] / u["matches"] for p, u in runs]
    order = [p["order"][1] / u["order"][1] for p, u in runs if p["order"][1] and u["order"][1]]
    rhos = [p["rho"] for p, _ in runs if p["rho"] is not None]
    effective = [p["effective"] for p, _ in runs if p["effective"] is not None]
    capped = sum(r["reason"] != "stable" for pair in runs for r in pair)
    rank = {b.name: i for i, b in enumerate(sorted(bots, key=lambda b: b.epsilon))}
    print("\nverdicts at the stop (> above, = tied, ? open):")
    for paired, single in runs:
        for run in (paired, single):
            rows = run["rows"]
            wrong = [
                f"{upper} {verdict} {lower}"
                for (upper, verdict), (lower, _) in itertools.pairwise(rows)
                if verdict == "tied" or (verdict == "above" and rank[upper] > rank[lower])
            ]
            kind = "paired" if run["duplicate"] else "unpaired"
            print(
                f"  {run['seed']:>4} {kind:>8}  {_verdicts(rows)}"
                + (f"   not the truth: {', '.join(wrong)}" if wrong else "")
            )
    print(
        f"\nmatches to stop, paired: median {median([p['matches'] for p, _ in runs]):g}, unpaired: median "
        f"{median([u['matches'] for _, u in runs]):g}; "
        f"{capped} ladder{'s' * (capped != 1)} stopped at the cap of {cap} (a ratio with one is a bound, marked *)"
    )
    print(
        f"paired / unpaired, matches to stop, per seed: median {statistics.median(stop):.2f}, "
        f"range {min(stop):.2f} – {max(stop):.2f} ({len(stop)} seeds)"
    )
    if order:
        print(
            f"paired / unpaired, matches until the table's order is the true order to the stop, per seed: median "
            f"{statistics.median(order):.2f}, range {min(order):.2f} – {max(order):.2f} ({len(order)} seeds where "
            "both ended in the true order)"
        )
    if rhos:
        print(
            f"ρ between a board's two rooms (paired ladders): median {statistics.median(rhos):.3f}, range "
            f"{min(rhos):.3f} – {max(rhos):.3f}; a board worth a median {statistics.median(effective):.2f} "
            "independent matches"
        )
    print(flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["figures"]:
        sys.exit(figures(sys.argv[2:]))
    if sys.argv[1:2] == ["boards-alone"]:
        sys.exit(boards_alone(sys.argv[2:]))
    sys.exit(main())
