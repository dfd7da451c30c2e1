"""Boards on hand-worked deals: their paired outcome, their comparisons, and a ladder that rates them whole."""

from __future__ import annotations

import pytest

from waraq.ladder.play import folder, ledger
from waraq.ladder.stats import boards
from waraq.ladder.stats import ratings as rt
from waraq.ladder.stats.ratings import environment
from waraq.ladder.storage.store import RATED, Outcome, Planned, Played
from waraq.referee.games.hokm.rules import PRESETS

TEAMS = rt.Layout(4, 2)
THREE = rt.Layout(3, 3)
A, B, C, D = 1, 2, 3, 4


def played(match_id: int, seats, winners, score=(), faulty=(), deal: int = 0) -> Played:
    return Played(match_id, tuple(seats), "rated", "score", tuple(winners), tuple(score), tuple(faulty), (), deal)


def board_of(*rooms: Played, size: int = 2) -> boards.Board:
    (found,) = boards.boards(rooms, TEAMS if len(rooms[0].seats) == 4 else THREE, size)
    return found


def test_a_team_that_wins_both_rooms_wins_the_board_and_a_split_board_is_a_tie():
    # Room 2 is room 1 moved on by one seat: the team A+C holds seats 1+3, B+D's cards of room 1.
    first, second = (A, B, C, D), (D, A, B, C)
    both = board_of(played(1, first, (0, 2), (7, 3)), played(2, second, (1, 3), (2, 7)))
    sides, ranks = boards.outcome(both, TEAMS)
    assert sides == [{A: 1, C: 1}, {B: 1, D: 1}] and ranks == [0, 1]
    split = board_of(played(1, first, (0, 2), (7, 3)), played(2, second, (0, 2), (7, 5)))
    assert boards.outcome(split, TEAMS)[1] == [0, 0]
    assert both.complete and split.complete


def test_comparisons_hold_each_bot_once_per_seat_and_score_each_room():
    self_partnered = board_of(played(1, (A, B, A, B), (0, 2), (7, 0)), played(2, (B, A, B, A), (0, 2), (7, 6)))
    first, second = boards.comparisons(self_partnered, TEAMS)
    assert (first.plus, first.minus, first.score) == ((A, A), (B, B), 1.0)
    assert (second.plus, second.minus, second.score) == ((B, B), (A, A), 1.0)  # B+B won room 2
    assert boards.head_to_head(self_partnered, TEAMS, A, B) == 0.5
    assert boards.head_to_head(self_partnered, TEAMS, B, A) == 0.5


def test_three_players_rank_the_board_by_their_places_summed_over_the_rooms():
    # Each bot sits each seat once. A wins twice and is second once; B wins once; C never.
    rooms = (
        played(1, (A, B, C), (0,), (7, 3, 1)),  # A, B, C
        played(2, (C, A, B), (1,), (2, 7, 5)),  # A, B, C
        played(3, (B, C, A), (0,), (7, 0, 4)),  # B, A, C
    )
    found = board_of(*rooms, size=3)
    sides, ranks = boards.outcome(found, THREE)
    places = {next(iter(side)): rank for side, rank in zip(sides, ranks, strict=True)}
    assert places == {A: 0, B: 1, C: 2}
    assert boards.head_to_head(found, THREE, A, B) == pytest.approx(2 / 3)
    assert len(boards.comparisons(found, THREE)) == 9  # three pairs a room


def test_a_board_with_a_room_cancelled_is_incomplete_and_ranked_from_the_rooms_played():
    (found,) = boards.boards([played(1, (A, B, C, D), (1, 3), (3, 7))], TEAMS, 2)
    assert not found.complete
    assert boards.outcome(found, TEAMS)[1] == [1, 0]


def test_a_room_with_no_winner_is_left_out_of_the_board():
    aborted = played(2, (D, A, B, C), (), (0, 0))
    found = board_of(played(1, (A, B, C, D), (0, 2), (7, 1)), aborted)
    assert found.complete and [r.match_id for r in found.rated] == [1]
    assert boards.outcome(found, TEAMS)[1] == [0, 1]


RULES = PRESETS["classic"].replace(target_score=1)


@pytest.fixture
def ladder(tmp_path):
    folder.init(tmp_path / "l", RULES, seed=3)
    opened = folder.open_ladder(tmp_path / "l")
    with opened.store.transaction():
        for name in "abcd":
            opened.store.add_entry(name, name, "random", (None, None, None))
    yield opened
    opened.close()


def store_result(ladder, match: Planned, winners) -> None:
    outcome = Outcome(match.id, "score", tuple(winners), (1, 0) if 0 in winners else (0, 1), (), (), 10, 0.1)
    ledger.record(ladder.store, ladder.config, environment(ladder.config.trueskill), outcome, match.seats)


def test_the_ledger_rates_a_board_once_both_rooms_are_in_from_its_paired_outcome(ladder):
    env = environment(ladder.config.trueskill)
    batch = ledger.plan_next(ladder.store, ladder.config, env, ledger.Target(4))
    first, second, third, fourth = batch
    assert (first.deal, second.deal, third.deal) == (0, 0, 1) and first.seed == second.seed
    team = {first.seats[0], first.seats[2]}
    # Board 1's second room arrives first: nothing is rated until its first room is in.
    store_result(ladder, second, (0, 2) if {second.seats[0], second.seats[2]} == team else (1, 3))
    assert ladder.store.rating_history() == []
    store_result(ladder, first, (0, 2))  # the same team wins both rooms: it wins the board
    rows = ladder.store.rating_history()
    assert {m for m, *_ in rows} == {second.id}  # one update, at the board's last room
    after = {bot: mu for _, bot, mu, _ in rows}
    assert all(after[b] > 25 for b in team) and all(after[b] < 25 for b in set(first.seats) - team)
    # Board 2 splits, one room each: a tie, which draws the two teams' ratings together.
    store_result(ladder, third, (0, 2))
    store_result(ladder, fourth, (0, 2))  # the other team, seated at 0+2 in room 2, wins it
    last = {bot: (mu, sigma) for m, bot, mu, sigma in ladder.store.rating_history() if m == fourth.id}
    one, other = {third.seats[0], third.seats[2]}, {third.seats[1], third.seats[3]}
    gap_before = sum(after[b] for b in one) - sum(after[b] for b in other)
    gap_after = sum(last[b][0] for b in one) - sum(last[b][0] for b in other)
    assert abs(gap_after) <= abs(gap_before) * 0.999 + 1e-9
    sigmas = {bot: sigma for _, bot, _, sigma in rows}
    assert all(last[b][1] < sigmas[b] for b in one | other)  # a tie is evidence too
    assert ladder.store.count_by_status()[RATED] == 4
    # Rating again from the start finds the same ratings: the ledger and rerate rate boards alike.
    before = ladder.store.rating_history()
    assert ledger.rerate(ladder.store, ladder.config, env) == 2
    again = ladder.store.rating_history()
    assert [row[:2] for row in again] == [row[:2] for row in before]
    assert [row[2:] for row in again] == [pytest.approx(row[2:]) for row in before]
