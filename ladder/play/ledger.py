"""The ladder's book: which matches to plan next, results rated in planned order, and when to stop.

Everything here reads and writes the store inside transactions and depends
only on what the database holds and the ladder's seed, never on timing. That
is what makes a run that was killed and started again end exactly where an
uninterrupted run ends:

* Results are rated in planned order, a board at a time (ladder/stats/boards.py: the
  matches of one deal, rated once from their paired outcome). A result that
  arrives before an earlier match's is stored (``done``) and rated as soon as
  every earlier match and the rest of its board are; storing a result and
  every rating it unblocks is one transaction.
* Whether to stop is read from the same state at the same boundary: the
  table's order at ``until_stable`` (ladder/play/evidence.py, ladder/stats/sequential.py),
  or a head to head's test (ladder/play/head_to_head.py), so a resumed run stops
  on the very boards an unbroken one would.
* Batch ``k`` is planned from the ratings and suspensions as they stood after
  batch ``k - 2`` (its *boundary*), with ``until_stable`` from the rule's
  verdicts there too (which links are still open: matchmaking seats the boards
  that tell most about them, ladder/stats/design.py), and from the seatings of every match planned
  before it, so it is the same batch whenever it happens to be planned; batch
  ``k - 1`` meanwhile keeps the bots busy. When the goal looks met counting
  batch ``k - 1`` in full (target reached, or the table stable), batch ``k``
  waits for ``k - 1`` to be rated and looks again from after it: a match of
  ``k - 1`` may yet be cancelled, or the table unsettled.
* A bot is suspended when its CRASH or STARTUP faults, counted in rated
  order, reach ``suspend_after``: as of that match, and every later match
  seating it is cancelled, played or not. A dial-in bot's dropped
  connections (``connection_lost``) lose their matches but count for no
  suspension: it plays again once it dials.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum

import trueskill

from waraq.ladder.play import evidence, head_to_head
from waraq.ladder.play.matchmaking import History, Planner, group_size
from waraq.ladder.stats import boards
from waraq.ladder.stats import ratings as rt
from waraq.ladder.stats.design import OpenLinks
from waraq.ladder.stats.sequential import DEFAULT_MARGIN, PairVerdict, StoppingRule, Verdict
from waraq.ladder.stats.sprt import Sprt
from waraq.ladder.storage.config import LadderConfig
from waraq.ladder.storage.store import (
    ABSENCES,
    ACTIVE,
    CRASHES,
    DONE,
    PLANNED,
    RATED,
    SUSPENDED,
    UNRATED,
    Entry,
    Outcome,
    Planned,
    Played,
    Store,
)

# A deal's seed is ladder seed × this + deal number: public, so its decks come from it and the
# ladder's secret key together (ladder/storage/key_file.py).
DEALS_PER_SEED = 1_000_000


@dataclass(frozen=True)
class Target:
    """When a run stops planning: at ``matches`` matches in all, or earlier once its rule is met.

    ``until_stable``: every two neighbours of the table ordered or shown equal within ``margin``
    Elo (ladder/stats/sequential.py), at ``confidence``. ``sprt`` (``waraq versus``): the sequential
    test decided. ``width``: the head-to-head Elo interval narrower than this.
    """

    matches: int
    until_stable: bool = False
    confidence: float = 0.95
    margin: float = DEFAULT_MARGIN
    sprt: Sprt | None = None
    width: float | None = None

    @property
    def rule(self) -> StoppingRule:
        return StoppingRule(self.confidence, self.margin)

    def to_text(self) -> str:
        if self.sprt is not None:
            test = self.sprt
            return f"sprt {self.matches} {test.elo0} {test.elo1} {test.alpha} {test.beta}"
        if self.width is not None:
            return f"width {self.matches} {self.width}"
        return f"{'stable' if self.until_stable else 'matches'} {self.matches} {self.confidence} {self.margin}"

    @classmethod
    def from_text(cls, text: str) -> Target:
        mode, matches, *values = text.split()
        if mode == "sprt":
            return cls(int(matches), sprt=Sprt(*map(float, values)))
        if mode == "width":
            return cls(int(matches), width=float(values[0]))
        margin = float(values[1]) if len(values) > 1 else DEFAULT_MARGIN  # stored before margins: the default
        return cls(int(matches), mode == "stable", float(values[0]), margin)


class Ending(StrEnum):
    """Why a run plans nothing more."""

    TARGET = "target"  # the matches asked for are planned
    STABLE = "stable"  # --until-stable: every two neighbours are ordered or tied
    CAP = "cap"  # the cap came first
    BOTS = "bots"  # too few bots can play
    H1 = head_to_head.Decided.H1.value  # a head to head's test or interval decided
    H0 = head_to_head.Decided.H0.value
    WIDTH = head_to_head.Decided.WIDTH.value


@dataclass
class Finished:
    """Nothing more to plan: why."""

    reason: Ending
    detail: str


class Wait(Enum):
    """Plan nothing yet: the batch before must be played first."""

    WAIT = "wait"


WAIT = Wait.WAIT


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
    """Rate played boards in planned order, up to the first board not played whole yet.

    ``env`` is the ladder's environment, which rates single matches; boards of several rooms
    are rated in one that expects ties (ratings.environment).
    """
    events = Events()
    size = group_size(config.layout, config.matchmaking.duplicate)
    board_env = env if size == 1 else rt.environment(config.trueskill, size)
    with store.transaction():
        while (first := store.first_unprocessed()) is not None and first[1] == DONE:
            rooms = store.board_of(first[0], size)
            if any(status == PLANNED for _, status in rooms):
                break  # the board's other rooms are still to play: it is rated when they are
            _process(store, config, board_env, [match_id for match_id, status in rooms if status == DONE], events)
    return events


def _process(store: Store, config: LadderConfig, env: trueskill.TrueSkill, rooms: list[int], events: Events) -> None:
    """Rate one board from its rooms played (in planned order), and suspend the bots that crashed too often.

    A crash counts as of its room: a bot suspended there has the board's later rooms
    cancelled, and the board is rated from the rooms before (ladder/stats/boards.py).
    """
    layout = config.layout
    played = []
    for match_id in rooms:
        if store.status_of(match_id) != DONE:
            continue  # cancelled by a suspension in an earlier room of this board
        each = store.played(match_id)
        if boards.room(each, layout).ranks is None:
            store.mark(match_id, UNRATED, f"no side won ({each.reason})")
        else:
            store.mark(match_id, RATED)
        events.rated.append(match_id)
        played.append(each)
        _suspend_crashers(store, config, each, events)  # counts this room, marked above
    board = boards.Board(played[0].deal, tuple(boards.room(p, layout) for p in played), len(played))
    found = boards.outcome(board, layout)
    if found is not None:
        store.add_ratings(board.rated[-1].match_id, _rated(store, env, *found))


def _rated(
    store: Store, env: trueskill.TrueSkill, sides: list[boards.Side], side_ranks: list[int]
) -> list[tuple[int, float, float]]:
    """The board's bots' new ratings, from their latest ones, as rows."""
    before = {}
    for side in sides:
        for bot in side:
            value = store.rating_of(bot)
            if value is not None:
                before[bot] = rt.Rating(*value)
    after = rt.rate_sides(env, before, sides, side_ranks)
    return sorted((bot, r.mu, r.sigma) for bot, r in after.items())


def _suspend_crashers(store: Store, config: LadderConfig, played: Played, events: Events) -> None:
    crashes = [f for f in played.faults if f.kind in CRASHES and f.code not in ABSENCES]
    crashed = sorted({played.seats[f.seat] for f in crashes})
    for bot in crashed:
        entry = store.entry(bot)
        count = store.crash_matches(bot, played.id)
        if entry.status == ACTIVE and count >= config.faults.suspend_after:
            last = next(f for f in crashes if played.seats[f.seat] == bot)
            reason = (
                f"{count} matches with a crash or start-up fault; "
                f"the last, match {played.id}: {last.kind}: {last.detail}"
            )
            suspend(store, entry, reason, at=played.id, events=events)


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
    """Rate every played board again from the prior, in order (after changing [trueskill]); boards rated."""
    layout = config.layout
    size = group_size(layout, config.matchmaking.duplicate)
    env = rt.environment(config.trueskill, size)
    count = 0
    with store.transaction():
        store.delete_ratings()
        current: dict[int, rt.Rating] = {}
        for board in boards.boards(store.results((RATED, UNRATED)), layout, size):
            found = boards.outcome(board, layout)
            if found is None:
                continue
            after = rt.rate_sides(env, current, *found)
            current.update(after)
            store.add_ratings(board.rated[-1].match_id, sorted((b, r.mu, r.sigma) for b, r in after.items()))
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
    store: Store,
    config: LadderConfig,
    env: trueskill.TrueSkill,
    target: Target,
    available: Callable[[int], bool] = lambda entry: True,
) -> list[Planned] | Wait | Finished:
    """The next batch, planned and stored (one transaction); or WAIT; or Finished and why.

    Only the ``available`` bots are seated (a dial-in bot while it is connected); a batch that
    too few of them can fill WAITs for the others rather than ending the run."""
    next_id, batch, deal = store.next_ids()
    previous = store.batch_bounds(batch - 1) if batch else None
    boundary = previous[0] if previous else next_id
    if store.unprocessed_before(boundary):
        return WAIT
    count = store.count_live_before(boundary) + (previous[1] if previous else 0)
    judged = _judge(store, config, target, boundary)
    stop = _stop(store, config, target, boundary, count, judged)
    if stop is not None:
        # Batch k - 1 alone may end it: wait for it, and look again from after it.
        if store.unprocessed_before(next_id):
            return WAIT
        boundary, count = next_id, store.count_live_before(next_id)
        judged = _judge(store, config, target, boundary)
        stop = _stop(store, config, target, boundary, count, judged)
        if stop is not None:
            return stop
    return _plan(store, config, env, target, batch, deal, next_id, boundary, count, judged, available)


@dataclass(frozen=True)
class Judged:
    """The stopping rule's reading at a boundary: its verdicts, and what the planner needs of the fit."""

    bots: int
    verdicts: list[PairVerdict]
    open_links: OpenLinks


def _judge(store: Store, config: LadderConfig, target: Target, boundary: int) -> Judged | None:
    """The rule's verdicts from the evidence at this boundary (None without ``until_stable``): read once, for the
    stop and for the plan both."""
    if not target.until_stable:
        return None
    bots = bots_at(store, boundary)
    fit = evidence.gather(store, config, bots, before=boundary).fit
    verdicts = target.rule.judge(fit)
    return Judged(len(bots), verdicts, OpenLinks.of(fit, verdicts))


def _stop(
    store: Store, config: LadderConfig, target: Target, boundary: int, count: int, judged: Judged | None
) -> Finished | None:
    if judged is not None and judged.bots >= 2:
        rule = target.rule
        if rule.settled(judged.verdicts):
            return Finished(Ending.STABLE, stable_detail(rule, judged.verdicts, judged.bots))
    if target.sprt is not None or target.width is not None:
        decided = head_to_head.verdict(head_to_head.summary(store, config, before=boundary), target.sprt, target.width)
        if decided is not None:
            return Finished(Ending(decided[0]), decided[1])
    if count >= target.matches:
        if target.until_stable or target.sprt is not None or target.width is not None:
            return Finished(Ending.CAP, f"the cap of {target.matches} matches came first")
        if count > target.matches:  # a deal is played in each of its seatings: boards are never cut
            return Finished(Ending.TARGET, f"{count} matches: {target.matches} asked, rounded up to whole boards")
        return Finished(Ending.TARGET, f"{count} matches, as asked")
    return None


def stable_detail(rule: StoppingRule, verdicts: Sequence[PairVerdict], bots: int) -> str:
    """``3 neighbours ordered, 1 indistinguishable (within 50 Elo)``, and what the confidence covers."""
    above = sum(1 for v in verdicts if v.verdict is Verdict.ABOVE)
    tied = len(verdicts) - above
    parts = []
    if above:
        parts.append(f"{above} neighbour pair{'s' * (above != 1)} ordered")
    if tied:
        parts.append(f"{tied} indistinguishable (within {rule.margin_elo:g} Elo)")
    return f"{', '.join(parts) or 'one bot'}; {rule.covers(bots)}"


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
    judged: Judged | None,
    available: Callable[[int], bool],
) -> list[Planned] | Wait | Finished:
    settings, players = config.matchmaking, config.layout
    everyone = bots_at(store, boundary)
    bots = [bot for bot in everyone if available(bot)]
    size = group_size(players, settings.duplicate)
    wanted = min(-(-settings.batch // size) * size, target.matches - count)
    planner = Planner(
        env,
        players,
        settings,
        ratings_at(store, env, bots, boundary),
        History.of(store.seatings(next_id), players),
        None if judged is None else judged.open_links,
    )
    try:
        deals = planner.plan(bots, config.seed, batch, wanted)
    except ValueError as error:  # too few bots
        return WAIT if len(bots) < len(everyone) else Finished(Ending.BOTS, str(error))
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
