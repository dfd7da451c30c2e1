"""Match records for the replay tests: played by the real referee over gRPC, and worked by hand.

:func:`played` plays, once per test session, short matches over real gRPC
streams with bots served in the test's event loop (port 0), and returns
where their records are, with every request each seat received:

* ``clean``: two 4-player matches of the ``random`` bot on every seat;
* ``two`` and ``three``: 2- and 3-player matches, ``random`` against ``heuristic``;
* ``faults``: a ``scripted`` bot on every seat, policy ``substitute``, a
  5 ms deadline (so the time bank is drawn on), one illegal and one
  malformed reply: the record has faults, substitutes and a bank going down;
* ``forfeit``: the ``scripted`` bot with an illegal reply under ``forfeit``;
* ``timeout``: the ``scripted`` bot, policy ``substitute``, seat 0 never answers its
  3rd request: the seat is lost, and forfeits at once;
* ``lost_before``: the same loss in a record as the referee wrote them before a
  lost seat forfeited at once (in-process seats, :class:`LostBefore`): its next
  two requests are never sent (each a fault, the action substituted), and its
  third fault forfeits the match.

:func:`hand_worked` writes a record of a deal worked by hand (see its docstring);
:func:`render` and :func:`waraq` show what a reader of the text would see.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from waraq.bots import codec
from waraq.bots.hokm_random import RandomPlayer
from waraq.bots.server import PlayerBot, builtin_players, start_server
from waraq.referee.games.cards import CARD_NAMES
from waraq.referee.games.dealers import FixedDealer, ace_draw_for
from waraq.referee.games.hokm.dealing import stack_deck
from waraq.referee.games.hokm.engine import HokmState, HokmView
from waraq.referee.games.hokm.rules import PRESETS, HokmRules
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.match.play import MatchConfig, TimeControl, run_match
from waraq.referee.match.seats import Answer, InProcessSeat, Question
from waraq.referee.records.record_file import FORMAT, RecordWriter
from waraq.referee.run.runner import RunConfig, run
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

SLOW_S = 0.012  # the scripted bot's slow replies: past its 5 ms deadline
HANG_S = 0.6  # a reply that does not come in time: past the 50 ms deadline + 200 ms bank


@dataclass
class ScriptedBot(bot_pb2_grpc.BotServicer):
    """Plays like the random bot, says why in a note, keeps every request it receives, and
    misbehaves on cue: at ``(seat, seq)`` in ``illegal`` it plays a card the seat does not
    hold; in ``malformed`` it replies with a wrong seq; in ``hang`` it replies far too late;
    at every ``slow``-th request of a stream it replies late."""

    illegal: set[tuple[int, int]] = field(default_factory=set)
    malformed: set[tuple[int, int]] = field(default_factory=set)
    hang: set[tuple[int, int]] = field(default_factory=set)
    slow: int = 0
    received: dict[tuple[str, int], list[pb.DecisionRequest]] = field(default_factory=lambda: defaultdict(list))

    async def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:
        return pb.HelloReply(
            name="scripted",
            version="t1",
            games=[pb.GameSupport(game="hokm", players=[2, 3, 4])],
            protocol_version=codec.PROTOCOL_VERSION,
        )

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        player, seat, match = None, 0, ""
        async for message in requests:
            if message.WhichOneof("body") == "start":
                match, seat = message.start.match_id, message.start.seat
                player = RandomPlayer(f"{match}/{seat}")
                continue
            if message.WhichOneof("body") != "decision" or player is None:
                continue
            request = message.decision
            self.received[(match, seat)].append(request)
            kind = codec.kind_of(request)
            action = codec.action_to_message(kind, player(codec.message_to_view(request)))
            seq = request.seq
            if (seat, seq) in self.illegal:
                stranger = next(c for c in CARD_NAMES if c not in request.hokm.hand)
                action = pb.Action(card=stranger)
            if (seat, seq) in self.malformed:
                seq += 100
            if self.slow and request.seq % self.slow == 0:
                await asyncio.sleep(SLOW_S)
            if (seat, seq) in self.hang:
                await asyncio.sleep(HANG_S)
            note = f"s{seat} reply {request.seq}: {kind.lower()}"
            yield pb.BotMessage(reply=pb.DecisionReply(seq=seq, action=action, note=note, think_ms=0.25))


@dataclass
class Played:
    root: Path
    received: dict[tuple[str, int], list[pb.DecisionRequest]]  # (match id, seat) -> requests

    def records(self, name: str) -> list[Path]:
        return sorted((self.root / name).glob("*.jsonl"))


_PLAYED: dict[Path, Played] = {}


def played(tmp_path_factory: Any) -> Played:
    """The session's records (made at the first call; see the module docstring)."""
    if not _PLAYED:
        root = tmp_path_factory.mktemp("replay-records")
        _PLAYED[root] = asyncio.run(_play_all(root))
    return next(iter(_PLAYED.values()))


async def _play_all(root: Path) -> Played:
    players = builtin_players()
    # Both misbehaviours come with a slow reply (every 3rd): the referee charges the
    # illegal answer's overrun to the bank, and not the malformed one's.
    scripted = ScriptedBot(illegal={(2, 3)}, malformed={(1, 6)}, slow=3)
    forfeiting = ScriptedBot(illegal={(3, 2)})
    hanging = ScriptedBot(hang={(0, 3)})
    servers = []
    try:
        addresses = {}
        for name, servicer in (
            ("random", PlayerBot("random", players["random"])),
            ("heuristic", PlayerBot("heuristic", players["heuristic"])),
            ("scripted", scripted),
            ("forfeiting", forfeiting),
            ("hanging", hanging),
        ):
            server, port = await start_server(servicer, "127.0.0.1:0")
            servers.append(server)
            addresses[name] = BotSpec.parse(f"127.0.0.1:{port}")
        random_, heuristic = addresses["random"], addresses["heuristic"]
        configs = [
            RunConfig(HokmRules(target_score=2), [random_] * 4, games=2, seed=1, record_dir=root / "clean"),
            RunConfig(PRESETS["two"].replace(target_score=2), [random_, heuristic], seed=5, record_dir=root / "two"),
            RunConfig(
                PRESETS["three"].replace(target_score=2),
                [random_, heuristic, random_],
                seed=3,
                record_dir=root / "three",
            ),
            RunConfig(
                HokmRules(target_score=1),
                [addresses["scripted"]] * 4,
                seed=8,
                policy="substitute",
                time_control=TimeControl(decision_ms=5, bank_ms=20_000),
                record_dir=root / "faults",
            ),
            RunConfig(HokmRules(target_score=1), [addresses["forfeiting"]] * 4, seed=9, record_dir=root / "forfeit"),
            RunConfig(
                HokmRules(target_score=1),
                [addresses["hanging"]] * 4,
                seed=10,
                policy="substitute",
                time_control=TimeControl(decision_ms=50, bank_ms=200),
                record_dir=root / "timeout",
            ),
        ]
        await asyncio.gather(*(run(config) for config in configs), _lost_before(root / "lost_before"))
    finally:
        for server in servers:
            await server.stop(None)
    return Played(root, {**scripted.received, **forfeiting.received, **hanging.received})


class LostBefore:
    """Seat 0 as a lost seat was played before it forfeited at once: its 3rd request timed out,
    and each later one faulted at once, "seat already lost", without losing the seat, so that
    ``substitute`` played for it until ``max_faults``. Replay still reads records of those days,
    which came before fault codes too: :func:`_lost_before` takes the codes out of its record."""

    bot, version = "lost-before", "t1"

    async def open(self, start: pb.MatchStart) -> None:
        self._player = RandomPlayer(f"{start.match_id}/{start.seat}")

    async def ask(self, question: Question) -> Answer:
        timeout = "no reply within 250 ms (deadline + bank)"
        if question.seq >= 3:
            first = Fault(FaultCode.NO_REPLY, timeout)
            fault = first if question.seq == 3 else Fault.again(first)
            fault.lost = False  # as the referee had it then: substitute played on for the lost seat
            raise fault
        return Answer(self._player(question.view))

    async def finish(self, end: pb.MatchEnd | None) -> None:
        return None


async def _lost_before(folder: Path) -> None:
    folder.mkdir()
    players = [InProcessSeat(lambda match, seat: RandomPlayer(f"{match}/{seat}"), "random") for _ in range(3)]
    config = MatchConfig(
        HokmRules(target_score=1), 11, "m-lost-before", TimeControl(decision_ms=50, bank_ms=200), "substitute"
    )
    path = folder / "hokm-11.jsonl"
    with RecordWriter(path) as record:
        await run_match(config, [LostBefore(), *players], record)
    path.write_text(without_codes(path.read_text()))


def without_codes(text: str) -> str:
    """A record's text as written before faults carried a ``code``: every other byte the same."""
    return re.sub(r'^(\{"type":"fault",.*?),"code":"[a-z_]+"', r"\1", text, flags=re.M)


# -- a deal worked by hand --------------------------------------------------------

HAND_RULES = HokmRules(target_score=1)
SUIT_HANDS = [  # seat s holds all of suit s, in dealing order (its first packet first)
    [f"{rank}{suit}" for rank in ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")] for suit in "SHDC"
]
NOTES = {  # (seat, decision number of the match) -> note
    (0, 1): "all spades",
    (0, 2): "cash the ace",
    (1, 3): "void in spades: my best heart",
}


def highest(view: HokmView) -> Any:
    """Names the first suit it holds, then plays its highest legal card."""
    return view.hand[0] // 13 if view.kind == "TRUMP" else max(view.legal)


def hand_worked(path: Path) -> Path:
    """A 4-player match to 1 point whose every line can be worked out by hand.

    Seat s is dealt all thirteen cards of suit s (S H D C), seat 0 is the
    hakem, and every seat plays its highest legal card. So seat 0 names
    spades, leads AS, KS, ... and each other seat, void in spades, throws its
    highest card of its own suit: seat 0 takes the first seven tricks, a kot
    by the hakem's team, 2 points, and the match (to 1) ends 2-0 for s0+s2.
    """
    deck = stack_deck(HAND_RULES, 0, SUIT_HANDS)
    state = HokmState(HAND_RULES, FixedDealer(ace_draw_for(0, HAND_RULES.deck), [deck]))
    while not state.is_over:
        state.apply(highest(state.view(state.to_act)))
    header = record_header(HAND_RULES, 7, match_id="hand-1", bot="high", version="1.0")
    return write_played(path, header, state.events, lambda number, event: NOTES.get((event["seat"], number)))


def record_header(
    rules: Any, seed: int, *, match_id: str = "m-test", bot: str = "random", version: str = "1"
) -> dict[str, Any]:
    """A record's header as the referee writes one, for a match of ``rules`` and ``seed`` whose
    every seat is ``bot``, with the referee's default time control."""
    return {
        "type": "match",
        "format": FORMAT,
        "game": rules.GAME,
        "match_id": match_id,
        "rules": rules.to_dict(),
        "rules_hash": rules.rules_hash,
        "seed": seed,
        "seats": [{"seat": s, "bot": bot, "version": version} for s in range(rules.players)],
        "time_control": {"decision_ms": 10000, "bank_ms": 60000, "startup_ms": 30000},
        "policy": "forfeit",
        "started": "2025-01-01T00:00:00.000Z",
    }


def write_played(
    path: Path,
    header: dict[str, Any],
    events: Sequence[dict[str, Any]],
    note: Callable[[int, dict[str, Any]], str | None],
) -> Path:
    """A record of an engine's ``events`` as the referee writes one: the header, then each
    event, the n-th decision with a time and ``note(n, event)`` when that gives one."""
    number = 0
    with RecordWriter(path) as writer:
        writer.write(header)
        for event in events:
            if event["type"] == "decision":
                number += 1
                event = {**event, "ms": 0.5}
                said = note(number, event)
                if said:
                    event["note"] = said
            writer.write(event)
    return path


def render(renderable: Any, width: int = 80) -> str:
    """As a fixed-width console without colour prints it, trailing spaces dropped."""
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def waraq(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The command in a process of its own, its output a pipe 80 columns wide."""
    return subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={"COLUMNS": "80", "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )


def write_events(path: Path, events: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def read_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]
