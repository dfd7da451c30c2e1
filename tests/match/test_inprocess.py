"""play_match, the in-process match: its hook before each decision."""

from __future__ import annotations

from typing import Any

from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.match.inprocess import play_match

RULES = HokmRules.from_dict({"target_score": 2})


def test_the_hook_sees_each_decision_before_its_player_acts():
    players = [RandomPlayer(f"hook/{seat}") for seat in range(4)]
    seen: list[tuple[int, int]] = []

    def before_each(state: Any, player: Any) -> None:
        # The player about to act is the pending seat's, and the state has not moved yet.
        assert player is players[state.to_act]
        seen.append((state.to_act, len(state.events)))

    state = play_match(RULES, 7, players, before_each=before_each)
    decisions = [(i, e["seat"]) for i, e in enumerate(state.events) if e["type"] == "decision"]
    assert [seat for seat, _ in seen] == [seat for _, seat in decisions]
    # Each call came when the decision it preceded was the next event to be logged.
    assert [length for _, length in seen] == [i for i, _ in decisions]
    # And the hook changes nothing: the same match without it.
    unhooked = play_match(RULES, 7, [RandomPlayer(f"hook/{seat}") for seat in range(4)])
    assert unhooked.events == state.events
