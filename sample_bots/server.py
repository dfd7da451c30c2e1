"""Serve a Python player as a gRPC bot (``waraq.v1.Bot``), with health and reflection.

    waraq bot serve random --port 50051
    waraq bot serve heuristic --port 0        # prints the port it got
    python -m waraq.bots.server search --ms 50 --port 0   # the search bot at 50 ms a decision

A player is a callable taking a view (:class:`~waraq.referee.games.hokm.engine.HokmView`
or :class:`~waraq.referee.games.hand.view.HandView`) and returning one of its legal
actions; a new player is made for each match and seat, for the match's game
(``MatchStart.game``), so one process serves any number of concurrent matches
of either game. If the player object has a ``note`` attribute after deciding,
it is sent as the reply's note, and its ``think_ms`` attribute, if any, as the reply's
``think_ms``. A player with a ``set_clock(deadline_ms, bank_ms)`` method is given
each request's clock before it decides (the search bot budgets its time by it). A
player that chooses knowing only how many
legal actions there are may offer ``pick(count) -> index`` as well: it is
called instead whenever the request lists its legal actions, and the view is
never built. Requests are read and replies written by :mod:`waraq.bots.codec`;
the players of the built-in bots are the ones the table of built-in bots names
(:mod:`waraq.referee.common.built_in`), imported when a match of their game
starts, so a Hokm-only process never loads Hand.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from waraq.bots import codec
from waraq.referee.common import arguments, built_in
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

# (match id, seat, game) -> the player: a callable from a view to an action.
PlayerFactory = Callable[[str, int, str], Callable[[Any], Any]]

# The games a built-in bot may play, with their numbers of players; Hello lists those it does.
GAMES = {"hokm": (2, 3, 4), "hand": (2, 3, 4)}


def _version() -> str:
    try:
        return importlib.metadata.version("waraq")
    except importlib.metadata.PackageNotFoundError:
        return "dev"


class PlayerBot(bot_pb2_grpc.BotServicer):
    """The servicer: converts messages to views, calls the player, converts back."""

    def __init__(
        self,
        name: str,
        make_player: PlayerFactory,
        *,
        author: str = "Waraq sample bots",
        games: tuple[str, ...] = tuple(GAMES),
    ) -> None:
        self.name = name
        self.make_player = make_player
        self.author = author
        self.games = games  # what Hello declares: a Hokm-only bot is never seated at Hand

    async def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:
        return pb.HelloReply(
            name=self.name,
            version=_version(),
            author=self.author,
            games=[pb.GameSupport(game=game, players=GAMES[game]) for game in self.games],
            protocol_version=codec.PROTOCOL_VERSION,
        )

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        player = pick = set_clock = None
        async for message in requests:
            body = message.WhichOneof("body")
            if body == "start":
                start = message.start
                player = self.make_player(start.match_id, start.seat, start.game or "hokm")
                pick = getattr(player, "pick", None)
                set_clock = getattr(player, "set_clock", None)
            elif body == "decision" and player is not None:
                request = message.decision
                legal = request.legal
                if set_clock is not None:
                    set_clock(request.deadline_ms, request.bank_ms)
                if pick is not None and legal:
                    # A player that needs only how many legal actions there are is spared
                    # the view: its answer is one of the request's own Action messages.
                    action = legal[pick(len(legal))]
                else:
                    action = codec.action_to_message(codec.kind_of(request), player(codec.message_to_view(request)))
                reply = pb.DecisionReply(seq=request.seq, action=action)
                note = getattr(player, "note", None)
                if note:
                    reply.note = codec.clip_note(note)
                think_ms = getattr(player, "think_ms", None)
                if think_ms:
                    reply.think_ms = think_ms
                yield pb.BotMessage(reply=reply)
            elif body == "end":
                player = pick = set_clock = None


def builtin_players(options: dict[str, Any] | None = None) -> dict[str, PlayerFactory]:
    """The built-in bots' players by name; each is seeded from the match id and seat, so reproducible.

    ``options`` are keyword arguments for every player made (the search bot's ``ms`` and ``worlds``)."""
    return {name: _by_game(bot, options or {}) for name, bot in built_in.table().items()}


def _by_game(bot: built_in.BuiltIn, options: dict[str, Any]) -> PlayerFactory:
    """A factory making ``bot``'s player for the match's game (its class imported then)."""

    def make(match: str, seat: int, game: str = "hokm") -> Callable[[Any], Any]:
        return bot.player_class(game)(f"{match}/{seat}", **options)

    return make


# The options only the search bot takes (``--ms``, ``--worlds``), by the name its player takes them.
SEARCH_OPTIONS = ("ms", "worlds")


class BindError(RuntimeError):
    """The address cannot be listened on: the message names it."""


async def start_server(servicer: bot_pb2_grpc.BotServicer, address: str) -> tuple[grpc.aio.Server, int]:
    """A started server for ``servicer`` on ``address`` (``host:port``, port 0 = any; or ``unix:path``).

    Raises :class:`BindError` when the address is taken or cannot be had.
    """
    # Without SO_REUSEPORT (gRPC sets it by default): a second bot on a port in use is refused,
    # instead of sharing the port with the first and getting half of its connections.
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    bot_pb2_grpc.add_BotServicer_to_server(servicer, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    services = (
        pb.DESCRIPTOR.services_by_name["Bot"].full_name,
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
    )
    reflection.enable_server_reflection(services, server)
    _check_free(address)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:  # gRPC says only that it failed to bind (and logs why on stderr)
        raise BindError(f"cannot listen on {address}") from None
    await server.start()
    for service in ("", services[0]):
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    return server, port


def _check_free(address: str) -> None:
    """Bind the address once ourselves, to say why it cannot be had: gRPC raises only "failed"."""
    if address.startswith("unix:"):
        folder = Path(address.removeprefix("unix:")).parent
        if not folder.is_dir():
            raise BindError(f"cannot listen on {address}: no folder {folder}")
        return
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    if port == "0":
        return
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC binds
            probe.bind((host, int(port)))
    except OSError as error:
        raise BindError(f"cannot listen on {address}: {error.strerror or error}") from None


async def serve(name: str, address: str, options: dict[str, Any] | None = None) -> None:
    players = builtin_players(options)
    if name not in players:
        raise SystemExit(f"no built-in bot {name!r}; built-in bots: {', '.join(players)}")
    games = tuple(game for game in GAMES if game in built_in.get(name).games)
    await serve_until_stopped(PlayerBot(name, players[name], games=games), address, name)


async def serve_until_stopped(servicer: bot_pb2_grpc.BotServicer, address: str, name: str) -> None:
    """Serve ``servicer`` and say where (its port, or its Unix socket), until SIGTERM or SIGINT."""
    server, port = await start_server(servicer, address)
    where = address if address.startswith("unix:") else f"port {port}"  # gRPC's "port" of a socket is 1
    print(f"{name} bot serving waraq.v1.Bot on {where}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.stop(grace=1)


def main(argv: list[str] | None = None) -> int:

    parser = arguments.Parser(prog="waraq bot serve", description="Serve a built-in bot over gRPC.")
    parser.add_argument("name", help=f"a built-in bot: {' or '.join(built_in.names())}")
    parser.add_argument("--port", type=arguments.port, default=0, help="TCP port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--unix", help="listen on this Unix socket path instead of TCP")
    parser.add_argument("--ms", type=_positive(float), help="search bot only: its budget a decision, in ms (100)")
    parser.add_argument("--worlds", type=_positive(int), help="search bot only: a fixed number of worlds a decision")
    args = parser.parse_args(argv)
    address = f"unix:{args.unix}" if args.unix else f"{args.host}:{args.port}"
    options = {key: getattr(args, key) for key in SEARCH_OPTIONS if getattr(args, key) is not None}
    if options and args.name != "search":
        given = " and ".join(f"--{key}" for key in options)
        parser.error(f"{given} is for the search bot only, not {args.name!r}")
    try:
        asyncio.run(serve(args.name, address, options))
    except BindError as error:
        arguments.print_error(str(error))
        return 1
    return 0


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type: a number of ``kind`` above 0, refused with the value quoted."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text!r}: expected a number above 0")
        return value

    return parse


if __name__ == "__main__":
    sys.exit(main())
