"""One planned match played, given its seats: the one code path of the local run and of a Ray worker.

Whoever holds the seats (the local scheduler's long-lived endpoints, or a Ray
worker's, which it keeps warm across its matches: ladder/play/ray_cluster.py)
calls :func:`play`. It makes the match's :class:`MatchConfig` from the
ladder's config, the planned row and the deal key, so a match is the same
match wherever it is played: the same decks, the same match id sent to the
bots (from which the sample bots seed themselves), the same record. A
referee bug aborts the match, typed, and the ladder goes on; a record that
cannot be written is raised (a full disk stops the run).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from waraq.ladder.play.matchmaking import group_size
from waraq.ladder.stats import boards
from waraq.ladder.storage.config import LadderConfig
from waraq.ladder.storage.store import FaultRow, Outcome, Planned
from waraq.referee.match import secret_deals
from waraq.referee.match.play import FaultPolicy, MatchConfig, abort_on_referee_error, run_match
from waraq.referee.match.seats import Seat
from waraq.referee.records.record_file import RecordError, RecordWriter

ABORTED = "aborted"  # the reason stored for a match a referee error (or its worker's deaths) ended


def match_config(config: LadderConfig, planned: Planned, deal_key: str) -> MatchConfig:
    """The match ``planned`` names, exactly: its seed, its decks under the key, its bots' match id."""
    rooms = group_size(config.layout, config.matchmaking.duplicate)
    return MatchConfig(
        config.rules,
        planned.seed,
        secret_deals.match_id(deal_key, f"ladder/{planned.id}"),
        config.time_control,
        FaultPolicy.of(config.faults.policy),
        config.faults.max_faults,
        deal_key,
        boards.dealer(config.game, rooms, secret_deals.dealing_seed(planned.seed, deal_key)),
    )


async def play(config: LadderConfig, planned: Planned, deal_key: str, seats: Sequence[Seat], path: Path) -> Outcome:
    """Play ``planned`` between ``seats`` (by seat), its record written to ``path`` from its start."""
    match = match_config(config, planned, deal_key)
    began = time.perf_counter()
    with RecordWriter(path) as record:  # a record left by a killed run is written again from its start
        try:
            result = await run_match(match, seats, record)
        except RecordError:
            raise  # a full disk: the run stops, and this match stays planned for the next one
        except Exception as error:  # a referee bug: this match is aborted, the ladder goes on
            abort_on_referee_error(error, record)
            return aborted(planned, time.perf_counter() - began)
    return Outcome(
        planned.id,
        result.reason,
        tuple(result.winners),
        tuple(result.score),
        tuple(result.faulty),
        tuple(FaultRow(f.seat, f.kind, f.detail, f.round, f.code) for f in result.faults),
        result.decisions,
        time.perf_counter() - began,
    )


def aborted(planned: Planned, seconds: float) -> Outcome:
    """The outcome of a match that ended without a result: no side won, no bot is charged."""
    return Outcome(planned.id, ABORTED, (), (), (), (), 0, seconds)
