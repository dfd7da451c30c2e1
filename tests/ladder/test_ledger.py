"""The ledger: results rated in planned order whatever order they arrive in, one transaction each,
suspensions counted in that order, and planning that depends only on the database and the seed.

These tests feed the ledger made-up results (a deterministic stand-in for a match, below), so
thousands of arrival orders can be tried in a second; tests/ladder/test_run.py plays real ones.
"""

from __future__ import annotations

import random
import sqlite3
from collections import deque
from dataclasses import replace

import pytest

from tests.support.ladders import check_invariants
from waraq.ladder.play import evidence, folder, ledger
from waraq.ladder.stats import ratings as rt
from waraq.ladder.stats.ratings import environment
from waraq.ladder.stats.sequential import Verdict
from waraq.ladder.stats.strength import win_probability
from waraq.ladder.storage.config import Faults, LadderConfig, Matchmaking
from waraq.ladder.storage.store import (
    CANCELLED,
    PLANNED,
    RATED,
    SUSPENDED,
    DuplicateResult,
    FaultRow,
    Outcome,
    Planned,
    Store,
)
from waraq.referee.games.hokm.rules import PRESETS

RULES = PRESETS["classic"].replace(target_score=1)
CRASHER = 5  # entry id of the bot that crashes, in the ladders that have one


def make_ladder(path, bots: int = 4, **matchmaking) -> folder.Ladder:
    folder.init(path, RULES, seed=9)
    ladder = folder.open_ladder(path)
    ladder.config = LadderConfig(
        seed=9, rules=RULES, matchmaking=Matchmaking(batch=6, **matchmaking), faults=Faults(suspend_after=3)
    )
    with ladder.store.transaction():
        for number in range(1, bots + 1):
            ladder.store.add_entry(f"b{number}", f"b{number}", "random", (None, None, None))
    return ladder


def fake_outcome(match: Planned) -> Outcome:
    """A stand-in for playing ``match``: the side with the higher bot ids wins, give or take luck of the seed;
    the crasher crashes in every other match it plays."""
    luck = random.Random(f"{match.seed}/{match.id}")
    strength = [sum(match.seats[s::2]) + luck.gauss(0, 3) for s in range(2)]
    side = 0 if strength[0] > strength[1] else 1
    if CRASHER in match.seats and match.id % 2:
        seat = match.seats.index(CRASHER)
        fault = FaultRow(seat, "CRASH", "the stream broke", 1)
        other_side = tuple(s for s in range(4) if s % 2 != seat % 2)
        return Outcome(match.id, "forfeit", other_side, (0, 0), (seat,), (fault,), 9, 0.1)
    return Outcome(match.id, "score", (side, side + 2), (1, 0) if side == 0 else (0, 1), (), (), 50, 0.1)


def simulate(
    ladder: folder.Ladder,
    target: ledger.Target,
    concurrency: int,
    order: random.Random,
    kill_at: int = 0,
    outcome=fake_outcome,
):
    """Run the ledger as the scheduler does, results arriving in ``order``'s random order; at ``kill_at``
    results, forget everything in flight (a SIGKILL) and start again from the database."""
    store, config, env = ladder.store, ladder.config, environment(ladder.config.trueskill)
    queue, flight, stored = deque(store.pending()), [], 0
    ledger.advance(store, config, env)
    while True:
        finished = None
        while len(flight) < concurrency:
            if not queue:
                planned = ledger.plan_next(store, config, env, target)
                if isinstance(planned, ledger.Finished):
                    finished = planned
                    break
                if planned == ledger.WAIT:
                    break
                queue.extend(planned)
                continue
            match = queue.popleft()
            if store.status_of(match.id) == PLANNED:
                flight.append(match)
        if not flight:
            assert finished is not None, "planning waits on nothing"
            return finished
        match = flight.pop(order.randrange(len(flight)))
        ledger.record(store, config, env, outcome(match), match.seats)
        stored += 1
        if stored == kill_at:
            queue, flight = deque(store.pending()), []  # what was in flight is played again


def dump(store: Store) -> tuple:
    """The database's content; a cancelled match's result (if it was played before it was cancelled) left out."""
    db = store.db
    return (
        db.execute(
            "SELECT id, batch, deal, position, seed, status, IIF(status = 'cancelled', NULL, reason),"
            " IIF(status = 'cancelled', NULL, winners) FROM matches ORDER BY id"
        ).fetchall(),
        db.execute(
            "SELECT s.match_id, s.seat, s.bot_id, IIF(m.status = 'cancelled', NULL, s.won) FROM seats s"
            " JOIN matches m ON m.id = s.match_id ORDER BY s.match_id, s.seat"
        ).fetchall(),
        db.execute("SELECT * FROM ratings ORDER BY match_id, bot_id").fetchall(),
        db.execute("SELECT id, status, suspended_at FROM bots ORDER BY id").fetchall(),
    )


@pytest.mark.slow
@pytest.mark.parametrize("bots", [4, 5])  # 5: with the crasher, suspended on the way
def test_any_arrival_order_and_any_kill_end_in_the_same_database(tmp_path, bots):
    target = ledger.Target(60)
    reference = make_ladder(tmp_path / "one-at-a-time", bots)
    assert simulate(reference, target, concurrency=1, order=random.Random(0)).reason == "target"
    want = dump(reference.store)
    for trial in range(6):
        ladder = make_ladder(tmp_path / f"trial-{trial}", bots)
        simulate(ladder, target, concurrency=1 + trial, order=random.Random(trial), kill_at=7 * trial)
        assert dump(ladder.store) == want, f"trial {trial}"
    matches, _, ratings, entries = want
    live = [m for m in matches if m[5] != CANCELLED]
    # Deals are whole (both seatings of a duplicate): topping up after a cancelled match may pass 60 by one.
    assert 60 <= len(live) <= 61 and all(m[5] == RATED for m in live)
    if bots == 5:
        assert (CRASHER, SUSPENDED) == entries[CRASHER - 1][:2]


def test_a_result_that_arrives_early_waits_for_the_earlier_matches(tmp_path):
    ladder = make_ladder(tmp_path)
    store, config, env = ladder.store, ladder.config, environment(ladder.config.trueskill)
    first, second, *_ = ledger.plan_next(store, config, env, ledger.Target(6))
    assert first.deal == second.deal  # one board: the deal with the teams swapped
    ledger.record(store, config, env, fake_outcome(second), second.seats)
    assert store.status_of(second.id) == "done" and not store.rating_history()
    ledger.record(store, config, env, fake_outcome(first), first.seats)
    assert store.status_of(first.id) == store.status_of(second.id) == RATED
    # Rated as one board: the team that won both rooms ranks first, a split is a tie.
    team_won = [{m.seats[w] for w in fake_outcome(m).winners} for m in (first, second)]
    team = sorted(team_won[0])
    others = sorted(set(first.seats) - team_won[0])
    ranks = [0, 1] if team_won[0] == team_won[1] else [0, 0]
    board_env = rt.environment(config.trueskill, rooms=2)
    (new_team, new_others) = board_env.rate(
        [tuple(board_env.create_rating() for _ in team), tuple(board_env.create_rating() for _ in others)], ranks=ranks
    )
    want = {
        **{b: rt.Rating(r.mu, r.sigma) for b, r in zip(team, new_team, strict=True)},
        **{b: rt.Rating(r.mu, r.sigma) for b, r in zip(others, new_others, strict=True)},
    }
    assert {b: rt.Rating(*v) for b, v in store.latest_ratings().items()} == want
    assert {m for m, *_ in store.rating_history()} == {second.id}


def test_a_failure_inside_the_transaction_leaves_no_trace(tmp_path, monkeypatch):
    ladder = make_ladder(tmp_path)
    store, config, env = ladder.store, ladder.config, environment(ladder.config.trueskill)
    first, match, *_ = ledger.plan_next(store, config, env, ledger.Target(6))
    ledger.record(store, config, env, fake_outcome(first), first.seats)  # its board waits for the second room
    before = dump(store)

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(rt, "rate_sides", broken)  # fails after the result and faults were written
    with pytest.raises(RuntimeError, match="disk on fire"):
        ledger.record(store, config, env, fake_outcome(match), match.seats)
    assert dump(store) == before
    assert store.db.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 0
    monkeypatch.undo()
    ledger.record(store, config, env, fake_outcome(match), match.seats)
    assert store.status_of(match.id) == store.status_of(first.id) == RATED


def test_a_result_is_never_counted_twice(tmp_path):
    """A match played again (a Ray retry, a second worker) brings a second result: refused, ratings unchanged."""
    ladder = make_ladder(tmp_path)
    store, config, env = ladder.store, ladder.config, environment(ladder.config.trueskill)
    first, second, *_ = ledger.plan_next(store, config, env, ledger.Target(6))
    for match in (first, second):  # the whole board, so its ratings are written
        ledger.record(store, config, env, fake_outcome(match), match.seats)
    assert store.db.execute("SELECT COUNT(*) FROM ratings").fetchone()[0] > 0
    rows = dump(store)
    faults = store.db.execute("SELECT * FROM faults").fetchall()
    other_result = replace(fake_outcome(second), winners=(1, 3), score=(0, 1), reason="score")
    for again in (fake_outcome(second), other_result):
        with pytest.raises(DuplicateResult, match=f"match {second.id} .deal {second.deal}, seating 1. has a result"):
            ledger.record(store, config, env, again, second.seats)
    assert dump(store) == rows
    assert store.db.execute("SELECT * FROM faults").fetchall() == faults


def test_a_match_cancelled_after_its_result_refuses_a_second_one_too(tmp_path):
    ladder = make_ladder(tmp_path)
    store, config, env = ladder.store, ladder.config, environment(ladder.config.trueskill)
    match, *_ = ledger.plan_next(store, config, env, ledger.Target(6))
    with store.transaction():
        store.cancel_planned(match.seats[0], "its bot was suspended")
    ledger.record(store, config, env, fake_outcome(match), match.seats)  # played before it was cancelled
    rows = dump(store)
    with pytest.raises(DuplicateResult):
        ledger.record(store, config, env, fake_outcome(match), match.seats)
    assert dump(store) == rows


def test_a_match_is_planned_once_per_deal_and_seating(tmp_path):
    """A match's identity is its deal and seating: the database refuses a second row of the same."""
    ladder = make_ladder(tmp_path)
    store, config, env = ladder.store, ladder.config, environment(ladder.config.trueskill)
    match, *_ = ledger.plan_next(store, config, env, ledger.Target(6))
    again = replace(match, id=store.next_ids()[0], record="records/again.jsonl")
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"), store.transaction():
        store.plan([again])


def test_crashes_counted_in_rated_order_suspend_a_bot_and_cancel_its_later_matches(tmp_path):
    ladder = make_ladder(tmp_path, bots=5)
    finished = simulate(ladder, ledger.Target(40), concurrency=3, order=random.Random(5))
    store = ladder.store
    entry = store.entry(CRASHER)
    assert entry.status == SUSPENDED and entry.reason.startswith("3 matches with a crash")
    crashes = store.db.execute(
        "SELECT DISTINCT match_id FROM faults WHERE bot_id = ? AND kind = 'CRASH' ORDER BY match_id", (CRASHER,)
    ).fetchall()
    assert entry.suspended_at == crashes[2][0]  # the third match with a crash, in planned order
    later = store.db.execute(
        "SELECT DISTINCT m.status FROM matches m JOIN seats s ON s.match_id = m.id WHERE s.bot_id = ? AND m.id > ?",
        (CRASHER, entry.suspended_at),
    ).fetchall()
    assert later in ([], [(CANCELLED,)])
    assert finished.reason == "target" and store.count_live_before(1 << 40) in (40, 41)  # whole deals


def test_until_stable_stops_when_the_neighbours_are_ordered(tmp_path):
    ladder = make_ladder(tmp_path, bots=2)  # bot 2 beats bot 1 nearly always: quickly ordered
    finished = simulate(ladder, ledger.Target(400, until_stable=True, confidence=0.95), 2, random.Random(1))
    assert finished.reason == "stable"
    ratings = {b: rt.Rating(*v) for b, v in ladder.store.latest_ratings().items()}
    assert rt.p_above(ratings[2], ratings[1]) >= 0.95
    assert ladder.store.count_live_before(1 << 40) < 400


def coin_with_card_luck(match: Planned) -> Outcome:
    """Two equal bots: the deal (the seed, shared by a board's two rooms) favours seat 0's team four
    to one or seat 1's; who holds those cards wins that often. Only the cards decide."""
    favoured = 0 if random.Random(match.seed).random() < 0.5 else 1
    side = favoured if random.Random(f"{match.seed}/{match.id}").random() < 0.8 else 1 - favoured
    return Outcome(match.id, "score", (side, side + 2), (1, 0) if side == 0 else (0, 1), (), (), 50, 0.1)


def test_until_stable_shows_two_equal_bots_indistinguishable_long_before_the_cap(tmp_path):
    ladder = make_ladder(tmp_path, bots=2)  # each partners itself: (1, 2, 1, 2) and the teams swapped
    target = ledger.Target(4000, until_stable=True, confidence=0.95, margin=50)
    finished = simulate(ladder, target, 2, random.Random(4), outcome=coin_with_card_luck)
    assert finished.reason == "stable" and "1 indistinguishable (within 50 Elo)" in finished.detail
    assert "95 % that every verdict is right, over all 1 pair of 2 bots and at every look" in finished.detail
    played = ladder.store.count_live_before(1 << 40)
    assert played < 1000, played


# Bots of known Elo, as bench/ranking.py's copies: 4 and 3 are one bot twice, 2 is 100 Elo below them,
# 1 is 400 below. A team's strength is its two seats' sum; the deal gives seat 0's team or seat 1's 150 Elo.
KNOWN_ELO = {1: -400.0, 2: -100.0, 3: 0.0, 4: 0.0}


def known_strengths(match: Planned) -> Outcome:
    """The side of the higher summed Elo wins as often as the Elo model says, the deal's cards counted."""
    cards = 150.0 if random.Random(match.seed).random() < 0.5 else -150.0
    difference = sum(KNOWN_ELO[b] for b in match.seats[0::2]) - sum(KNOWN_ELO[b] for b in match.seats[1::2]) + cards
    side = 0 if random.Random(f"{match.seed}/{match.id}").random() < win_probability(difference) else 1
    return Outcome(match.id, "score", (side, side + 2), (1, 0) if side == 0 else (0, 1), (), (), 50, 0.1)


@pytest.mark.slow
def test_until_stable_plans_for_the_open_pairs_and_stops_far_below_the_cap_with_the_copies_tied(tmp_path):
    # Each bot partners itself, so a match is one pair. Matchmaking without the rule's verdicts put the
    # copies against each other in 1,940 of the cap's 2,000 matches (1,956 on a second seed): equal bots are
    # TrueSkill's closest match for ever, while 3 and 4 against 2 stayed open.
    ladder = make_ladder(tmp_path / "whole", bots=4, partners="self")
    target = ledger.Target(2000, until_stable=True, confidence=0.95, margin=50)
    finished = simulate(ladder, target, 2, random.Random(4), outcome=known_strengths)
    assert finished.reason == "stable", finished.detail
    played = ladder.store.count_live_before(1 << 40)
    assert played < 1000, played
    # The stop read every match planned: the final evidence is what it judged.
    verdicts = target.rule.judge(evidence.gather(ladder.store, ladder.config, [1, 2, 3, 4]).fit)
    order = [v.upper for v in verdicts] + [verdicts[-1].lower]
    assert set(order[:2]) == {3, 4} and order[2:] == [2, 1]
    assert [v.verdict for v in verdicts] == [Verdict.TIED, Verdict.ABOVE, Verdict.ABOVE]
    # Planning from the verdicts reads the database at the boundary only: killed at 250 results (once some
    # pairs are decided), with other arrival orders, the run ends in the same database.
    again = make_ladder(tmp_path / "killed", bots=4, partners="self")
    simulate(again, target, 3, random.Random(7), kill_at=250, outcome=known_strengths)
    assert dump(again.store) == dump(ladder.store)


def test_until_stable_stops_at_the_cap_and_says_so(tmp_path):
    ladder = make_ladder(tmp_path, bots=4)
    finished = simulate(ladder, ledger.Target(12, until_stable=True, confidence=0.999), 3, random.Random(1))
    assert finished.reason == "cap" and "cap of 12" in finished.detail


def test_rerating_from_the_history_gives_the_stored_ratings(tmp_path):
    ladder = make_ladder(tmp_path)
    simulate(ladder, ledger.Target(30), 4, random.Random(3))
    stored = ladder.store.rating_history()
    assert ledger.rerate(ladder.store, ladder.config, environment(ladder.config.trueskill)) == 15  # boards
    assert ladder.store.rating_history() == stored


def test_the_database_holds_to_its_invariants_after_a_run(tmp_path):
    ladder = make_ladder(tmp_path, bots=5)
    simulate(ladder, ledger.Target(30), 4, random.Random(2), kill_at=11)
    check_invariants(ladder.store.path)


def test_rho_and_the_effective_matches_of_a_board_measure_the_card_luck(tmp_path):
    # coin_with_card_luck: the cards' side wins 4 times in 5 in each room, so the two rooms of a board
    # agree on it with correlation (0.8 − 0.2)² = 0.36, and a board is worth 2 / (1 − 0.36) ≈ 3.1 matches.
    ladder = make_ladder(tmp_path, bots=2)
    simulate(ladder, ledger.Target(400), 2, random.Random(1), outcome=coin_with_card_luck)
    found = evidence.gather(ladder.store, ladder.config, [1, 2])
    assert found.rho() == pytest.approx(0.36, abs=0.12)
    assert found.effective_matches() == pytest.approx(3.1, abs=0.8)


@pytest.mark.slow
def test_the_fitted_beta_is_small_when_the_ratings_predict_the_results_and_large_when_only_luck_does(tmp_path):
    predictable = make_ladder(tmp_path / "strength", bots=4)  # fake_outcome: the higher ids' side, mostly
    simulate(predictable, ledger.Target(200), 2, random.Random(2))
    luck = make_ladder(tmp_path / "luck", bots=4)
    simulate(luck, ledger.Target(200), 2, random.Random(2), outcome=coin_with_card_luck)
    strong, lucky = (evidence.fitted_beta(x.store, x.config) for x in (predictable, luck))
    assert strong is not None and lucky is not None and 2 * strong < lucky
