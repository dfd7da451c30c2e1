"""A Waraq bot in one file: Hokm and Hand over gRPC, from bot.proto alone.

    ./generate.sh                  # once: writes waraq/v1/bot_pb2*.py beside this file
    python bot.py --port 50051     # --port 0 takes any free port; --unix PATH listens on a socket

Your logic goes in decide(), the one function to edit. The rest is plumbing:
Hello, the health service, one Play stream per seat of each match (several at
once), and a quick clean stop on SIGTERM or Ctrl-C.
"""

import argparse
import random
import signal
import sys
from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

# The stubs generate.sh wrote beside this file come first, ahead of any installed `waraq`, and also
# under `python -I` (which leaves the script's folder off sys.path).
sys.path.insert(0, str(Path(__file__).resolve().parent))
try:
    from waraq.v1 import bot_pb2 as pb
    from waraq.v1 import bot_pb2_grpc
except ModuleNotFoundError as error:
    sys.exit(f"{error}: run ./generate.sh in {Path(__file__).resolve().parent} first")

NAME, VERSION, AUTHOR = "python-starter", "0.1.0", "a Waraq bot author"
GAMES = {"hokm": [2, 3, 4], "hand": [2, 3, 4]}  # what Hello declares: game -> numbers of players
NOTE_BYTES = 1024  # a longer note is refused as MALFORMED, not trimmed: clip it


# -- YOUR LOGIC: edit this function -------------------------------------------------------


def decide(request: pb.DecisionRequest, rng: random.Random) -> tuple[pb.Action, str]:
    """The action for one decision and a short note saying why (`waraq replay` shows it).

    request.kind is what is asked; request.hokm or request.hand is the seat's whole view;
    request.legal lists every legal action (for every kind but Hand's TURN). rng is seeded
    from the match and the seat, so a match played again is played the same.
    """
    if request.kind == "TAKE":  # Hand: "discard" only when this turn will put that card on the table
        return pb.Action(take="stock"), "stock: no melds of mine use the discard"
    if request.kind == "TURN":  # Hand: no melds, only the discard (never the card taken this turn)
        view = request.hand
        card = rng.choice([c for c in view.hand if c != view.took])
        return pb.Action(turn=pb.Turn(discard=card)), f"discard {card}: no melds yet"
    # Hokm's TRUMP, PLAY, DISCARD, DRAW, REDEAL and BAM: any one of the legal actions.
    action = rng.choice(request.legal)
    return action, f"{request.kind.lower()} {describe(action)}: random, of {len(request.legal)} legal"


# -- the plumbing ---------------------------------------------------------------------------


def describe(action: pb.Action) -> str:
    """An action as a note spells it: "10H", "S", "2C 7D", "keep", "yes"."""
    field = action.WhichOneof("action")
    value = getattr(action, field)
    if field == "discard":
        return " ".join(value.cards)
    if field == "answer":
        return "yes" if value else "no"
    return str(value)


class Bot(bot_pb2_grpc.BotServicer):
    def Hello(self, request, context):
        games = [pb.GameSupport(game=game, players=players) for game, players in GAMES.items()]
        return pb.HelloReply(name=NAME, version=VERSION, author=AUTHOR, games=games, protocol_version=1)

    def Play(self, messages, context):
        """One seat of one match: MatchStart, a reply to each DecisionRequest, then MatchEnd."""
        rng = random.Random()
        for message in messages:
            body = message.WhichOneof("body")
            if body == "start":
                rng.seed(f"{message.start.match_id}/{message.start.seat}")
            elif body == "decision":
                request = message.decision
                action, note = decide(request, rng)
                note = note.encode()[:NOTE_BYTES].decode(errors="ignore")  # cut whole characters only
                yield pb.BotMessage(reply=pb.DecisionReply(seq=request.seq, action=action, note=note))


def serve(address: str) -> None:
    # A thread per open Play stream; so_reuseport 0: a port in use is refused, never shared.
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=32), options=[("grpc.so_reuseport", 0)])
    bot_pb2_grpc.add_BotServicer_to_server(Bot(), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)  # the referee waits for this
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:  # gRPC says only that it failed: the port is taken or the path cannot be made
        sys.exit(f"cannot listen on {address}")
    server.start()
    where = address if address.startswith("unix:") else f"127.0.0.1:{port}"
    print(f"{NAME} bot serving waraq.v1.Bot on {where}", flush=True)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: server.stop(grace=1))  # open streams get a second to end
    server.wait_for_termination()


def main() -> None:
    parser = argparse.ArgumentParser(description="A Waraq bot for Hokm and Hand (waraq.v1.Bot over gRPC).")
    listen = parser.add_mutually_exclusive_group()
    listen.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (default 0: any free port)")
    listen.add_argument("--unix", metavar="PATH", help="listen on this Unix socket instead")
    args = parser.parse_args()
    serve(f"unix:{args.unix}" if args.unix else f"127.0.0.1:{args.port}")


if __name__ == "__main__":
    main()
