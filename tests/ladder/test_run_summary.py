"""`waraq ladder run`'s closing line when the cap came first: copies of one bot still open are named, and what
settles them sooner, from a ladder with results set by hand (no bot is started)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rich.console import Console

from waraq.ladder.commands import cli
from waraq.ladder.play import folder, ledger
from waraq.ladder.play.scheduler import RunState
from waraq.ladder.present import table
from waraq.ladder.stats.ratings import environment
from waraq.ladder.storage.store import Outcome, Planned
from waraq.referee.games.hokm.rules import PRESETS

HEURISTIC = ("heuristic", "1.0", "sha256:" + "ab" * 32)  # one version identity: Hello name, version, code hash


def ladder_of(tmp_path, identities, partners="mixed"):
    """A 4-player ladder of these entries (name: identity) with two boards played, far too few to settle any pair."""
    folder.init(tmp_path / "l", PRESETS["classic"], seed=1, partners=partners)
    ladder = folder.open_ladder(tmp_path / "l")
    with ladder.store.transaction():
        ids = [ladder.store.add_entry(n, n, "heuristic", identity) for n, identity in identities.items()]
    env = environment(ladder.config.trueskill)
    seatings = [(ids[0], ids[1], ids[2], ids[3]), (ids[0], ids[2], ids[1], ids[3])]
    match_id = 1
    for deal, seats in enumerate(seatings):
        rooms = [seats, seats[1:] + seats[:1]]  # the teams swapped, the same decks
        planned = [
            Planned(match_id + r, 0, deal, r, deal, tuple(s), f"records/{match_id + r}.jsonl")
            for r, s in enumerate(rooms)
        ]
        with ladder.store.transaction():
            ladder.store.plan(planned)
        for room in planned:
            outcome = Outcome(room.id, "score", (0, 2), (7, 3), (), (), 40, 0.1)
            ledger.record(ladder.store, ladder.config, env, outcome, room.seats)
        match_id += len(rooms)
    return ladder


def closing_line(ladder) -> str:
    """The last line `ladder run --until-stable --cap 4` prints when the cap came first."""
    target = ledger.Target(4, until_stable=True)
    state = RunState(target, concurrency=4, played=4)
    state.finished = ledger.Finished(ledger.Ending.CAP, "the cap of 4 matches came first")
    console = Console(width=400, record=True, color_system=None)
    assert cli._summary(console, ladder, state) == 0
    return console.export_text().strip().splitlines()[-1]


def test_copies_still_open_at_the_cap_are_named_with_partners_self_and_a_higher_cap(tmp_path):
    identities = {"strong": ("search", "1.0", None), "a": HEURISTIC, "b": HEURISTIC, "weak": ("random", "1.0", None)}
    ladder = ladder_of(tmp_path, identities)
    line = closing_line(ladder)
    ladder.close()
    assert line.startswith("not stable: the cap of 4 matches came first")
    pair = next(p for p in ("a and b", "b and a") if p in line.split("copies")[0])
    assert f"; {pair} are copies of one bot (the same version), which only a tie settles" in line
    assert "about 5,000 matches to tie" in line
    assert "`waraq ladder init --partners self`" in line and "a higher --cap goes on with this one" in line


def test_with_each_bot_partnering_itself_only_a_higher_cap_is_suggested(tmp_path):
    identities = {"strong": ("search", "1.0", None), "a": HEURISTIC, "b": HEURISTIC, "weak": ("random", "1.0", None)}
    ladder = ladder_of(tmp_path, identities, partners="self")
    line = closing_line(ladder)
    ladder.close()
    assert "are copies of one bot" in line and line.endswith("only a tie settles: a higher --cap goes on with this one")
    assert "--partners self" not in line and "5,000" not in line


@pytest.mark.parametrize(
    "other",
    [
        ("heuristic", "1.1", HEURISTIC[2]),  # another Hello version: another version, not a copy
        ("heuristic", "1.0", "sha256:" + "cd" * 32),  # other code
    ],
)
def test_bots_of_other_versions_are_no_copies(tmp_path, other):
    identities = {"strong": ("search", "1.0", None), "a": HEURISTIC, "b": other, "weak": ("random", "1.0", None)}
    ladder = ladder_of(tmp_path, identities)
    line = closing_line(ladder)
    ladder.close()
    assert line.startswith("not stable:") and "still open" in line and "copies" not in line


def test_bots_whose_identity_is_not_read_yet_are_no_copies(tmp_path):
    unknown = (None, None, None)  # added with --no-check and never started
    ladder = ladder_of(tmp_path, {"s": unknown, "a": unknown, "b": unknown, "w": unknown})
    assert cli.open_copies(ladder.store, table.standings(ladder.store, ladder.config)) == []
    ladder.close()


def test_copies_settled_by_the_rule_are_not_named(tmp_path):
    identities = {"strong": ("search", "1.0", None), "a": HEURISTIC, "b": HEURISTIC, "weak": ("random", "1.0", None)}
    ladder = ladder_of(tmp_path, identities)
    rows = table.standings(ladder.store, ladder.config)
    upper = next(i for i, r in enumerate(rows) if r.bot in ("a", "b"))
    lower = next(i for i, r in enumerate(rows) if r.bot in ("a", "b") and i > upper)
    settled = [replace(r, vs_next="tied") if upper <= i < lower else r for i, r in enumerate(rows)]
    assert cli.open_copies(ladder.store, settled) == []
    assert cli.open_copies(ladder.store, rows) == [(rows[upper].bot, rows[lower].bot)]
    ladder.close()
