"""Which numbers of bots fill a match's seats fairly, and what a run calls bots whose names clash.

Each case is worked by hand from the rule (referee/run/runner.py's
``fill_seats``): seat ``i`` gets bot ``i mod n``, which is fair when every bot
holds as many seats and, in a game of teams, the seats of one team only; or
when one bot holds them all.
"""

from __future__ import annotations

import pytest

from waraq.referee.games.hand.rules import HandRules
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.launch.bots import BotSpec
from waraq.referee.run.runner import RunConfig, fair_counts, fill_seats, names_apart

# (players, teams): the numbers of bots that may fill them, worked out by hand.
FAIR = {
    (4, 2): [1, 2, 4],  # Hokm, Hand partners: 2 bots are a team each; 3 would put bot 0 at seats 0 and 3
    (4, 4): [1, 2, 4],  # Hand classic: 2 bots hold two seats each; 3 would give bot 0 two and the others one
    (3, 3): [1, 3],  # 2 bots: bot 0 at seats 0 and 2, bot 1 at seat 1 only
    (2, 2): [1, 2],
}


@pytest.mark.parametrize(("players", "teams"), FAIR)
def test_the_fair_numbers_of_bots_for_each_seating(players, teams):
    assert fair_counts(players, teams) == FAIR[players, teams]


def test_the_games_have_the_seatings_worked_above():
    presets = [*PRESETS.values(), *HandRules.presets().values()]
    seatings = {(r.players, r.teams) for r in presets}
    assert seatings <= FAIR.keys()


def test_two_bots_for_four_seats_in_teams_are_a_team_each():
    assert fill_seats(["a", "b"], 4, 2) == ["a", "b", "a", "b"]  # seats 0+2 are a's, 1+3 b's


def test_one_bot_plays_every_seat():
    assert fill_seats(["a"], 3, 3) == ["a", "a", "a"]


def test_a_bot_a_seat_is_kept_as_given():
    assert fill_seats(["a", "b", "c"], 3, 3) == ["a", "b", "c"]


def test_three_bots_for_four_seats_in_teams_are_refused_saying_why_and_what_would_do():
    with pytest.raises(ValueError) as refused:
        fill_seats(["a", "b", "c"], 4, 2)
    message = str(refused.value)
    assert message.startswith("3 bots for 4 seats")
    assert "seats 0 and 3, on both teams" in message and "give 1, 2 or 4 bots" in message


def test_two_bots_for_three_seats_are_refused_as_unequal():
    with pytest.raises(ValueError, match=r"2 seats \(0 and 2\), the last 1; give 1 or 3 bots"):
        fill_seats(["a", "b"], 3, 3)


def test_more_bots_than_seats_are_refused():
    with pytest.raises(ValueError, match=r"^5 bots for 4 seats: give 1, 2 or 4 bots \(at most 4"):
        fill_seats(list("abcde"), 4, 2)


def test_names_that_clash_are_told_apart_in_seat_order():
    found = [("heuristic", False), ("random", False), ("heuristic", False), ("heuristic", False)]
    assert names_apart(found) == ["heuristic", "random", "heuristic#2", "heuristic#3"]


def test_a_name_given_is_kept_and_a_hello_name_that_clashes_with_it_gives_way():
    # The user called the second bot "random": the first, whose Hello says random too, becomes random#2.
    assert names_apart([("random", False), ("random", True)]) == ["random#2", "random"]


def test_a_suffix_already_taken_is_skipped():
    assert names_apart([("bot#2", True), ("bot", False), ("bot", False)]) == ["bot#2", "bot", "bot#3"]


def test_two_bots_given_one_name_are_refused():
    rules = PRESETS["two"]
    with pytest.raises(ValueError, match="'random' and 'heuristic' are both named 'a'"):
        RunConfig(rules=rules, bots=[BotSpec.parse("a=random"), BotSpec.parse("a=heuristic")])
    same = BotSpec.parse("a=random")
    assert RunConfig(rules=rules, bots=[same, same]).bots == [same, same]  # one bot in two seats
