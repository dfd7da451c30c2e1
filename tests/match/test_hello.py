"""A bot's Hello is checked at every match it is seated in, and a bot without a name is called by its spec.

A bot that declares another protocol version, no games, or not the match's
game with the match's number of players is a ``STARTUP`` fault of its seat
before the first decision, in every match of a run and under both policies,
and the run goes on. The bots are real gRPC servers in the test's event loop
(:class:`Declaring`) or real processes (``tests/bots/misbehaving.py``).

Hand-worked expectations: the declaring bot sits at seat 1 of 4-player Hokm
to 1 point (team {1, 3}) or of Hand ``short`` (4 players each for himself);
its fault at the opening forfeits the match before any card is played, so
the score is all zeros and the winners are 0, 2 (Hokm) or 0, 2, 3 (Hand).
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sqlite3
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.support import TEST_BOTS
from tests.support.proxy import marked_note
from tests.support.servers import run_one_against_random
from waraq.bots.server import GAMES, PlayerBot, builtin_players, start_server
from waraq.ladder.play import folder
from waraq.referee.common import built_in
from waraq.referee.games.hand.rules import PRESETS as HAND
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match import hello
from waraq.referee.match.play import TimeControl
from waraq.referee.records.record_file import read_record
from waraq.referee.replay.verify import verify_record
from waraq.referee.run.runner import RunConfig, RunReport, run
from waraq.referee.wire import codec as wire
from waraq.v1 import bot_pb2 as pb

BAD = 1
RULES = {"hokm": HokmRules(target_score=1), "hand": HAND["short"]}
OTHERS = {"hokm": (0, 2), "hand": (0, 2, 3)}
TC = TimeControl(decision_ms=2_000, bank_ms=10_000, startup_ms=10_000)
MISBEHAVING = TEST_BOTS / "misbehaving.py"


def reply(games: dict[str, list[int]], protocol_version: int = wire.PROTOCOL_VERSION, name: str = "d") -> pb.HelloReply:
    return pb.HelloReply(
        name=name,
        games=[pb.GameSupport(game=g, players=n) for g, n in games.items()],
        protocol_version=protocol_version,
    )


# -- what a Hello must say ----------------------------------------------------------------------

MISMATCHES = [
    (
        reply({"hokm": [4]}, 2),
        "hokm",
        4,
        "wrong_protocol",
        "its Hello declares protocol_version 2; this referee speaks 1",
    ),
    (
        reply({"hokm": [4]}, 0),
        "hokm",
        4,
        "wrong_protocol",
        "its Hello declares protocol_version 0 (unset); this referee speaks 1",
    ),
    (reply({}), "hokm", 4, "no_games", "its Hello declares no games (HelloReply.games is empty)"),
    (
        reply({"hokm": [4]}),
        "hand",
        3,
        "game_not_declared",
        "its Hello declares games hokm [4]; this match is hand with 3 players",
    ),
    (
        reply({"hokm": [2, 3], "hand": []}),
        "hokm",
        4,
        "game_not_declared",
        "its Hello declares games hokm [2, 3], hand []; this match is hokm with 4 players",
    ),
    (
        reply({"": [4]}),
        "hokm",
        4,
        "game_not_declared",
        "its Hello declares games '' [4]; this match is hokm with 4 players",
    ),
]


@pytest.mark.parametrize(("declared", "game", "players", "code", "problem"), MISMATCHES)
def test_a_hello_that_does_not_declare_the_match_says_what_is_wrong(declared, game, players, code, problem):
    fault = hello.mismatch(declared, game, players)
    assert (fault.kind, fault.code, fault.detail, fault.lost) == ("STARTUP", code, problem, True)


def test_a_hello_may_list_a_game_twice_and_any_of_its_counts_will_do():
    declared = reply({"hokm": [2]})
    declared.games.add(game="hokm", players=[4])
    assert hello.mismatch(declared, "hokm", 4) is None and hello.mismatch(declared, "hokm", 3) is not None


def test_the_sample_bots_declare_exactly_the_games_they_play_with_every_count():
    # What sample_bots/server.py declares (and the JS bot, tests/sample_bots/test_js_bot.py, plays both games through
    # the referee, so its Hello passes the check there).
    # A bot declares the games its players play (greedy and search: Hokm only), as the server seats them.
    for name, players in builtin_players().items():
        games = built_in.get(name).games
        declared = asyncio.run(PlayerBot(name, players, games=games).Hello(pb.HelloRequest(), None))
        assert {g.game for g in declared.games} == set(games), name
        for game, counts in GAMES.items():
            for count in counts:
                found = hello.mismatch(declared, game, count)
                assert (found is None) == (game in games), (name, game, count)


LABELS = [
    ("builtin", "heuristic", "heuristic"),
    ("address", "127.0.0.1:50051", "127.0.0.1:50051"),
    ("address", "unix:/run/bots/mine.sock", "unix:mine.sock"),
    ("command", "node sample_bots/starters/js/bot.js --port {port}", "bot.js"),
    ("command", "/usr/bin/python3 /home/me/bots/best.py --unix {socket}", "best.py"),
    ("command", "java -Xmx1g -jar out/bot.jar --port {port}", "bot.jar"),
    ("command", "python3 -u -m mybot --port {port}", "mybot"),
    ("command", "./build/release/mybot --port={port}", "mybot"),
    ("command", "sh -c 'cd /srv && exec ./b' --port {port}", "sh"),
]


@pytest.mark.parametrize(("kind", "value", "label"), LABELS)
def test_a_bot_without_a_hello_name_is_called_by_a_label_of_its_spec_never_a_path(kind, value, label):
    assert hello.label(kind, value) == label


# -- every match checks it ---------------------------------------------------------------------


class Declaring(PlayerBot):
    """The random sample bot, with the Hello it is given."""

    def __init__(self, declared: pb.HelloReply) -> None:
        super().__init__("declaring", builtin_players()["random"])
        self.declared = declared

    async def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:
        return self.declared


def run_with(
    bad: pb.HelloReply, game: str, policy: str, tmp_path: Path, *, proxied: bool = False
) -> tuple[RunReport, str, list[str]]:
    """Two matches of ``game``, seat 1 a Declaring server of ``bad`` (behind the proxy when ``proxied``)."""
    serve = partial(start_server, Declaring(bad), "127.0.0.1:0")
    return run_one_against_random(serve, RULES[game], BAD, tmp_path, proxied=proxied, policy=policy, time_control=TC)


def assert_opening_forfeit(report: RunReport, game: str, code: str, detail: str) -> None:
    for outcome in report.outcomes:
        assert (outcome.reason, outcome.winners, outcome.faulty) == ("forfeit", OTHERS[game], (BAD,))
        assert [(f.seat, f.kind, f.code, f.detail) for f in outcome.faults] == [(BAD, "STARTUP", code, detail)]
        events = read_record(outcome.record).events
        assert [e["type"] for e in events[-2:]] == ["fault", "result"]
        assert (events[-2]["kind"], events[-2]["code"], events[-2]["detail"]) == ("STARTUP", code, detail)
        assert not any(e["type"] == "decision" for e in events), "forfeited before the first decision"
        assert events[-1]["score"] == [0] * len(events[-1]["score"])
        assert verify_record(outcome.record).ok


BOTH = {"hokm": [2, 3, 4], "hand": [2, 3, 4]}
DECLARED = {  # what the bot declares, and its fault's code and detail in a 4-player match of {game}
    "protocol 2": (reply(BOTH, 2), "wrong_protocol", "its Hello declares protocol_version 2; this referee speaks 1"),
    "no games": (reply({}), "no_games", "its Hello declares no games (HelloReply.games is empty)"),
    "other game": (
        reply({"hokm": [4]}),
        "game_not_declared",
        "its Hello declares games hokm [4]; this match is {game} with 4 players",
    ),
    "other count": (
        reply({"hokm": [2, 3], "hand": [2, 3]}),
        "game_not_declared",
        "its Hello declares games hokm [2, 3], hand [2, 3]; this match is {game} with 4 players",
    ),
}


@pytest.mark.parametrize("policy", ["forfeit", "substitute"])
@pytest.mark.parametrize("game", ["hokm", "hand"])
@pytest.mark.parametrize("case", DECLARED)
def test_a_bot_seated_in_a_match_its_hello_does_not_declare_forfeits_it_with_a_startup_fault(
    case, game, policy, tmp_path
):
    declared, code, detail = DECLARED[case]
    if case == "other game" and game == "hokm":  # the other game of a Hokm match is Hand
        declared = reply({"hand": [4]})
        detail = "its Hello declares games hand [4]; this match is hokm with 4 players"
    report, _, _ = run_with(declared, game, policy, tmp_path)
    assert_opening_forfeit(report, game, code, detail.format(game=game))


def test_a_hello_answered_with_bytes_that_are_no_hello_reply_is_a_startup_fault(tmp_path):
    # The proxy turns the marked Hello reply into 0xFF bytes: gRPC cannot read it, the bot never got ready.
    report, spec, done = run_with(reply(GAMES, name=marked_note("garbage")), "hokm", "forfeit", tmp_path, proxied=True)
    assert done == ["garbage"]
    detail = f"{spec} answered Hello with bytes that are no HelloReply"
    assert_opening_forfeit(report, "hokm", "hello_unreadable", detail)


# -- a process that gives no name --------------------------------------------------------------


def test_a_command_whose_hello_gives_no_name_is_recorded_by_its_script_name(tmp_path):
    argv = [sys.executable, str(MISBEHAVING), "nameless", "--port", "{port}"]
    report = asyncio.run(
        run(
            RunConfig(
                rules=RULES["hokm"],
                bots=[BotSpec.parse("random")] * 3 + [BotSpec.parse(shlex.join(argv))],
                time_control=TC,
                record_dir=tmp_path,
                confinement=sandbox.Config(mode=sandbox.Isolation.OFF),
            )
        )
    )
    (outcome,) = report.outcomes
    assert outcome.reason == "score"
    seats = read_record(outcome.record).events[0]["seats"]
    assert [s["bot"] for s in seats] == ["random"] * 3 + ["misbehaving.py"]


# -- a ladder ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_ladder_charges_a_bot_that_declares_another_game_and_suspends_it_while_the_others_play_on(tmp_path):
    # Each of its matches is a STARTUP forfeit at the opening; start-up faults count toward
    # suspend_after (3), so after its third such match the bot is suspended and the rest play on.
    path = tmp_path / "ladder"
    folder.init(path, HokmRules(target_score=1), seed=5)
    wrong = shlex.join([sys.executable, str(MISBEHAVING), "wrong_game", "--port", "{port}"])
    with folder.open_ladder(path) as ladder:
        for name, spec in {"random": "random", "heuristic": "heuristic", "r2": "random", "wrong": wrong}.items():
            folder.add(ladder, name, spec, check=False)
    result = subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "ladder", "run", "--matches", "8", "-C", str(path)],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    with sqlite3.connect(path / "ladder.sqlite") as db:
        status, reason = db.execute("SELECT status, reason FROM bots WHERE name = 'wrong'").fetchone()
        kinds = db.execute(
            "SELECT DISTINCT f.kind, f.code, f.detail FROM faults f JOIN bots b ON b.id = f.bot_id"
            " WHERE b.name = 'wrong'"
        ).fetchall()
        rated = db.execute("SELECT COUNT(*) FROM matches WHERE status = 'rated'").fetchone()[0]
    problem = "its Hello declares games hand [4]; this match is hokm with 4 players"
    assert status == "suspended" and reason.startswith("3 matches with a crash or start-up fault") and problem in reason
    assert kinds == [("STARTUP", "game_not_declared", problem)]
    assert rated >= 8  # the ladder reached its matches: the wrong bot's forfeits are rated losses too
