"""The ladder's book: which matches to plan next, and results rated in planned order.

Everything here reads and writes the store inside transactions and depends
only on what the database holds and the ladder's seed, never on timing. That
is what makes a run that was killed and started again end exactly where an
uninterrupted run ends:

* Results are rated in planned order. A result that arrives before an
  earlier match's is stored (``done``) and rated as soon as every earlier
  match is; storing a result and every rating it unblocks is one transaction.
* Batch ``k`` is planned from the ratings and suspensions as they stood after
  batch ``k - 2`` (its *boundary*), and from the seatings of every match planned
  before it, so it is the same batch whenever it happens to be planned; batch
  ``k - 1`` meanwhile keeps the bots busy. When the goal looks met counting
  batch ``k - 1`` in full (target reached, or the table stable), batch ``k``
  waits for ``k - 1`` to be rated and looks again from after it: a match of
  ``k - 1`` may yet be cancelled, or the table unsettled.
* A bot is suspended when its CRASH or STARTUP faults, counted in rated
  order, reach ``suspend_after``: as of that match, and every later match
  seating it is cancelled, played or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import trueskill

from waraq.ladder import ratings as rt
from waraq.ladder.config import LadderConfig
from waraq.ladder.matchmaking import History, Planner, group_size
from waraq.ladder.store import ACTIVE, CRASHES, DONE, RATED, SUSPENDED, UNRATED, Entry, Outcome, Planned, Store

# A deal's seed is ladder seed × this + deal number: public, so its decks come from it and the
# ladder's secret key together (ladder/key_file.py).
DEALS_PER_SEED = 1_000_000


@dataclass(frozen=True)
class Target:
    """When a run stops planning: at ``matches`` matches in all, or earlier once ordered."""

    matches: int
    until_stable: bool = False
    confidence: float = 0.95

    def to_text(self) -> str:
        return f"{'stable' if self.until_stable else 'matches'} {self.matches} {self.confidence}"

    @classmethod
    def from_text(cls, text: str) -> Target:
        mode, matches, confidence = text.split()
        return cls(int(matches), mode == "stable", float(confidence))


@dataclass
class Finished:
    """Nothing more to plan: why."""

    reason: str  # "target", "stable", "cap", "bots"
    detail: str


WAIT = "wait"


@dataclass
class Events:
    """What a change did, for the live view: suspensions and cancellations."""

    rated: list[int] = field(default_factory=list)
    suspended: list[tuple[str, str]] = field(default_factory=list)
    cancelled: list[int] = field(default_factory=list)


# --- results -----------------------------------------------------------------------------------


def record(
    store: Store, config: LadderConfig, env: trueskill.TrueSkill, outcome: Outcome, seats: Sequence[int]
) -> Events:
    """Store a played match's result and rate every match it unblocks: one transaction."""
    with store.transaction():
        store.save_outcome(outcome, seats)
        return advance(store, config, env)


def advance(store: Store, config: LadderConfig, env: trueskill.TrueSkill) -> Events:
    """Rate done matches in planned order, up to the first one not played yet."""
    events = Events()
    with store.transaction():
        while (first := store.first_unprocessed()) is not None and first[1] == DONE:
            _process(store, config, env, first[0], events)
    return events


def _process(store: Store, config: LadderConfig, env: trueskill.TrueSkill, match_id: int, events: Events) -> None:
    played = store.played(match_id)
    players = config.layout
    side_ranks = rt.ranks(players, played.winners, played.score, played.faulty)
    if side_ranks is None:
        store.mark(match_id, UNRATED, f"no side won ({played.reason})")
    else:
        before = {}
        for bot in set(played.seats):
            value = store.rating_of(bot)
            if value is not None:
                before[bot] = rt.Rating(*value)
        after = rt.rate(env, before, played.seats, players, side_ranks)
        store.add_ratings(match_id, sorted((bot, r.mu, r.sigma) for bot, r in after.items()))
        store.mark(match_id, RATED)
    events.rated.append(match_id)
    crashed = sorted({played.seats[f.seat] for f in played.faults if f.kind in CRASHES})
    for bot in crashed:
        entry = store.entry(bot)
        count = store.crash_matches(bot, match_id)
        if entry.status == ACTIVE and count >= config.faults.suspend_after:
            last = next(f for f in played.faults if f.kind in CRASHES and played.seats[f.seat] == bot)
            reason = (
                f"{count} matches with a crash or start-up fault; "
                f"the last, match {match_id}: {last.kind}: {last.detail}"
            )
            suspend(store, entry, reason, at=match_id, events=events)


def suspend(store: Store, entry: Entry, reason: str, *, at: int | None, events: Events | None = None) -> list[int]:
    """Suspend a bot: as of match ``at`` (cancelling every later match seating it, played or not),
    or with ``at`` None at start-up (cancelling the matches not played yet)."""
    with store.transaction():
        store.set_status(entry.id, SUSPENDED, reason, at)
        store.log(entry.id, f"suspended: {reason}")
        note = f"{entry.name} suspended"
        cancelled = store.cancel_planned(entry.id, note) if at is None else store.cancel_after(entry.id, at, note)
    if events is not None:
        events.suspended.append((entry.name, reason))
        events.cancelled += cancelled
    return cancelled


def enforce_suspensions(store: Store) -> list[int]:
    """Cancel matches planned after a bot's suspension (planned by a batch whose boundary came first)."""
    cancelled = []
    with store.transaction():
        for entry in store.entries([SUSPENDED]):
            if entry.suspended_at is not None:
                cancelled += store.cancel_after(entry.id, entry.suspended_at, f"{entry.name} suspended")
    return cancelled


def rerate(store: Store, config: LadderConfig, env: trueskill.TrueSkill) -> int:
    """Rate every played match again from the prior, in order (after changing [trueskill]); matches rated."""
    players = config.layout
    count = 0
    with store.transaction():
        store.delete_ratings()
        current: dict[int, rt.Rating] = {}
        for played in store.results((RATED, UNRATED)):
            side_ranks = rt.ranks(players, played.winners, played.score, played.faulty)
            if side_ranks is None:
                continue
            after = rt.rate(env, current, played.seats, players, side_ranks)
            current.update(after)
            store.add_ratings(played.id, sorted((b, r.mu, r.sigma) for b, r in after.items()))
            count += 1
    return count


# --- planning ----------------------------------------------------------------------------------


def bots_at(store: Store, boundary: int) -> list[int]:
    """The entries matchmaking may seat for a batch with this boundary: active then."""
    out = []
    for entry in store.entries([ACTIVE, SUSPENDED]):
        if entry.status == ACTIVE or (entry.suspended_at is not None and entry.suspended_at >= boundary):
            out.append(entry.id)
    return out


def ratings_at(store: Store, env: trueskill.TrueSkill, bots: Sequence[int], boundary: int) -> dict[int, rt.Rating]:
    known = store.latest_ratings(before=boundary)
    return {bot: rt.Rating(*known[bot]) if bot in known else rt.prior(env) for bot in bots}


def plan_next(
    store: Store, config: LadderConfig, env: trueskill.TrueSkill, target: Target
) -> list[Planned] | str | Finished:
    """The next batch, planned and stored (one transaction); or WAIT; or Finished and why."""
    next_id, batch, deal = store.next_ids()
    previous = store.batch_bounds(batch - 1) if batch else None
    boundary = previous[0] if previous else next_id
    if store.unprocessed_before(boundary):
        return WAIT
    count = store.count_live_before(boundary) + (previous[1] if previous else 0)
    stop = _stop(store, env, target, boundary, count)
    if stop is not None:
        # Batch k - 1 alone may end it: wait for it, and look again from after it.
        if store.unprocessed_before(next_id):
            return WAIT
        boundary, count = next_id, store.count_live_before(next_id)
        stop = _stop(store, env, target, boundary, count)
        if stop is not None:
            return stop
    return _plan(store, config, env, target, batch, deal, next_id, boundary, count)


def _stop(store: Store, env: trueskill.TrueSkill, target: Target, boundary: int, count: int) -> Finished | None:
    bots = bots_at(store, boundary)
    if (
        target.until_stable
        and len(bots) >= 2
        and rt.is_ordered(ratings_at(store, env, bots, boundary), target.confidence)
    ):
        return Finished(
            "stable", f"every two neighbours of the table are ordered at >= {target.confidence:.0%} confidence"
        )
    if count >= target.matches:
        if target.until_stable:
            return Finished("cap", f"the cap of {target.matches} matches came first")
        return Finished("target", f"{count} matches, as asked")
    return None


def _plan(
    store: Store,
    config: LadderConfig,
    env: trueskill.TrueSkill,
    target: Target,
    batch: int,
    deal: int,
    next_id: int,
    boundary: int,
    count: int,
) -> list[Planned] | Finished:
    settings, players = config.matchmaking, config.layout
    bots = bots_at(store, boundary)
    size = group_size(players, settings.duplicate)
    wanted = min(-(-settings.batch // size) * size, target.matches - count)
    planner = Planner(
        env, players, settings, ratings_at(store, env, bots, boundary), History.of(store.seatings(next_id), players)
    )
    try:
        deals = planner.plan(bots, config.seed, batch, wanted)
    except ValueError as error:  # too few bots
        return Finished("bots", str(error))
    suffix = ".jsonl.gz" if config.run.gzip else ".jsonl"
    planned: list[Planned] = []
    for number, seatings in enumerate(deals, start=deal):
        for position, seats in enumerate(seatings):
            match_id = next_id + len(planned)
            planned.append(
                Planned(
                    match_id,
                    batch,
                    number,
                    position,
                    config.seed * DEALS_PER_SEED + number,
                    tuple(seats),
                    f"records/ladder-{match_id:06d}{suffix}",
                )
            )
    with store.transaction():
        store.plan(planned)
        cancelled = set(enforce_suspensions(store))
    return [p for p in planned if p.id not in cancelled]
