"""A bot's ``Hello``: what it must declare to be seated, and what to call a bot that gives no name.

The referee asks ``Hello`` once per run (:class:`waraq.referee.launch.bots.Endpoint`) and
keeps the reply; every seat of that bot checks it when it is opened, against
its own ``MatchStart`` (:meth:`waraq.referee.match.seats.RemoteSeat.open`). A bot is
seated only in a match it says it plays:

* its ``protocol_version`` is the referee's (:data:`waraq.referee.wire.common.PROTOCOL_VERSION`;
  0, the field left unset, is none);
* its ``games`` list is not empty;
* one of them is the match's game with the match's number of players.

Anything else is a ``STARTUP`` fault of that seat before the match, the one
:func:`mismatch` gives: its code says which rule the Hello breaks
(``wrong_protocol``, ``no_games``, ``game_not_declared``), its detail says it
for a person. Nothing here does I/O.
"""

from __future__ import annotations

import shlex
from pathlib import PurePath

from google.protobuf.message import DecodeError

from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.wire import common as wire
from waraq.v1 import bot_pb2 as pb

_BOT = pb.DESCRIPTOR.services_by_name["Bot"]
METHOD = f"/{_BOT.full_name}/{_BOT.methods_by_name['Hello'].name}"  # "/waraq.v1.Bot/Hello"


def mismatch(hello: pb.HelloReply, game: str, players: int) -> Fault | None:
    """Why a bot whose Hello is ``hello`` may not play a ``game`` of ``players`` seats, as the fault
    its seat raises (not raised here); None if it may."""
    if hello.protocol_version != wire.PROTOCOL_VERSION:
        unset = " (unset)" if hello.protocol_version == 0 else ""
        return Fault(
            FaultCode.WRONG_PROTOCOL,
            f"its Hello declares protocol_version {hello.protocol_version}{unset}; "
            f"this referee speaks {wire.PROTOCOL_VERSION}",
        )
    if not hello.games:
        return Fault(FaultCode.NO_GAMES, "its Hello declares no games (HelloReply.games is empty)")
    if not any(g.game == game and players in g.players for g in hello.games):
        detail = f"its Hello declares games {declared(hello)}; this match is {game} with {players} players"
        return Fault(FaultCode.GAME_NOT_DECLARED, detail)
    return None


def declared(hello: pb.HelloReply) -> str:
    """The games a Hello declares, as a person reads them: ``hokm [2, 3, 4], hand [4]``."""
    return ", ".join(f"{g.game or repr(g.game)} [{', '.join(map(str, g.players))}]" for g in hello.games)


def parse(data: bytes) -> pb.HelloReply | None:
    """The Hello call's response deserializer: None for bytes that are no HelloReply.

    gRPC would give None too, but only after logging a traceback of the bot's bytes."""
    try:
        return pb.HelloReply.FromString(data)
    except DecodeError:
        return None


def label(kind: str, value: str) -> str:
    """What to call a bot whose Hello gives no name: a short label of its spec, never a path.

    A built-in bot: its name (``random``). An address: itself (``127.0.0.1:50051``),
    or for a Unix socket ``unix:`` and the socket's file name. A command: its
    script, i.e. the first argument after the program that is not an option nor
    a placeholder and whose file name has a suffix (``node sample_bots/starters/js/bot.js
    --port {port}``: ``bot.js``; ``java -jar out/bot.jar``: ``bot.jar``), or the
    module after ``-m`` (``python3 -m mybot``: ``mybot``); failing those, the
    program's own file name (``./build/mybot --port {port}``: ``mybot``).
    """
    if kind == "builtin":
        return value
    if kind == "address":
        return "unix:" + PurePath(value[len("unix:") :]).name if value.startswith("unix:") else value
    try:
        argv = shlex.split(value)
    except ValueError:  # unbalanced quotes: the launch will say so; a name is still needed
        argv = value.split()
    if not argv:
        return value
    for before, token in zip(argv, argv[1:], strict=False):  # each token with the one before it
        if before == "-m":
            return token
        if token.startswith("-") or "{" in token or " " in token:  # options, placeholders, scripts of a shell
            continue
        name = PurePath(token).name
        if PurePath(name).suffix:
            return name
    return PurePath(argv[0]).name
