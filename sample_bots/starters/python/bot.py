"""A Waraq bot in one file: Hokm and Hand over gRPC, from bot.proto alone.

    ./generate.sh                  # once: writes waraq/v1/bot_pb2*.py beside this file
    python bot.py --port 50051     # --port 0 takes any free port; --unix PATH listens on a socket
    WARAQ_TOKEN=wq_... python bot.py --connect arena.example:7070 --tls   # dial someone's lobby

Your logic goes in decide(), the one function to edit. The rest is plumbing:
Hello, the health service, one Play stream per seat of each match (several at
once), and a quick clean stop on SIGTERM or Ctrl-C. Or, with --connect, the
same decide() plays the seats a referee's lobby gives it, and the bot dials
again by itself when its connection drops.
"""

import argparse
import os
import queue
import random
import signal
import sys
import threading
import time
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
    from the match, the seat and the request's seq, so a match played again is played the
    same, and a request sent again (after a dial-in bot's reconnect) gets the same answer.
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


def hello() -> pb.HelloReply:
    games = [pb.GameSupport(game=game, players=players) for game, players in GAMES.items()]
    return pb.HelloReply(name=NAME, version=VERSION, author=AUTHOR, games=games, protocol_version=1)


def answer(message: pb.RefereeMessage) -> pb.BotMessage | None:
    """What one seat says to one message of its stream: a reply to each decision, nothing else."""
    if message.WhichOneof("body") == "decision":
        request = message.decision
        rng = random.Random(f"{request.match_id}/{request.seat}/{request.seq}")
        action, note = decide(request, rng)
        note = note.encode()[:NOTE_BYTES].decode(errors="ignore")  # cut whole characters only
        return pb.BotMessage(reply=pb.DecisionReply(seq=request.seq, action=action, note=note))
    return None


class Bot(bot_pb2_grpc.BotServicer):
    def Hello(self, request, context):
        return hello()

    def Play(self, messages, context):
        """One seat of one match: MatchStart, a reply to each DecisionRequest, then MatchEnd."""
        for message in messages:
            reply = answer(message)
            if reply is not None:
                yield reply


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


# -- dialling in: the same decide(), on streams this bot opens to a referee's lobby ---------------

SPARE = 1  # streams kept open waiting for a seat; one more is opened as each is seated
FIRST_WAIT_S, MOST_WAIT_S = 0.5, 30.0  # back-off between dials after a failure, doubling
STOP = threading.Event()


class Refused(Exception):
    """The lobby will not take this token: dialling again would not help."""


def one_stream(channel, token: str, seated: threading.Semaphore, resume: pb.MatchStart | None = None):
    """One Dial stream until it ends: the seat it was given, or None if it never got one.

    Raises grpc.RpcError when the connection drops (the caller dials again), and Refused for a
    token the lobby does not hold.
    """
    outgoing: queue.Queue = queue.Queue()
    dial = pb.Dial(token=token, hello=hello())
    if resume is not None:
        dial.match_id, dial.seat = resume.match_id, resume.seat
    outgoing.put(pb.BotMessage(dial=dial))
    stream = bot_pb2_grpc.LobbyStub(channel).Dial(iter(outgoing.get, None))
    start = resume
    try:
        for message in stream:
            if message.WhichOneof("body") == "start":
                if start is None:
                    seated.release()  # seated: another stream takes this one's place as the spare
                start = message.start
            reply = answer(message)
            if reply is not None:
                outgoing.put(reply)
    except grpc.RpcError as error:
        if error.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.FAILED_PRECONDITION):
            raise Refused(f"{error.code().name}: {error.details()}") from None
        if error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.ABORTED):
            # The seat is no longer this stream's: lost (the grace is over), or taken back on another.
            print(f"lobby: {error.details()}", file=sys.stderr, flush=True)
            return start or resume
        error.start = start  # where to take up again
        raise
    finally:
        outgoing.put(None)
    return start


def offer(channel, token: str, seated: threading.Semaphore) -> None:
    """Keep one seat offer open, dialling again after a drop; once seated, play the seat to its end
    (dialling back for that seat if the connection drops mid-match)."""
    wait, resume = FIRST_WAIT_S, None
    while not STOP.is_set():
        begun = time.monotonic()
        try:
            if one_stream(channel, token, seated, resume) is not None or resume is not None:
                return  # the match is over for this seat (or the seat is gone)
        except grpc.RpcError as error:
            resume = getattr(error, "start", None) or resume
            if time.monotonic() - begun > MOST_WAIT_S:
                wait = FIRST_WAIT_S  # it stood a while: a fresh drop, not a lobby that refuses
            print(f"lobby: {error.code().name}, dialling again in {wait:.1f} s", file=sys.stderr, flush=True)
            STOP.wait(wait * random.uniform(0.8, 1.2))
            wait = min(MOST_WAIT_S, wait * 2)


def dial_in(address: str, token: str, credentials) -> None:
    options = [("grpc.keepalive_time_ms", 20_000), ("grpc.keepalive_permit_without_calls", 1)]
    if credentials is None:
        channel = grpc.insecure_channel(address, options=options)
    else:
        channel = grpc.secure_channel(address, credentials, options=options)
    seated = threading.Semaphore(SPARE)  # a permit per stream to open
    failures: list[Refused] = []

    def run() -> None:
        try:
            offer(channel, token, seated)
        except Refused as refused:
            failures.append(refused)
            STOP.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: STOP.set())
    print(f"{NAME} bot dialling {address}", flush=True)
    while not STOP.is_set():
        if seated.acquire(timeout=0.2):
            threading.Thread(target=run, daemon=True).start()
    channel.close()
    if failures:
        sys.exit(f"the lobby at {address} refused this bot: {failures[0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description="A Waraq bot for Hokm and Hand (waraq.v1.Bot over gRPC).")
    listen = parser.add_mutually_exclusive_group()
    listen.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (default 0: any free port)")
    listen.add_argument("--unix", metavar="PATH", help="listen on this Unix socket instead")
    listen.add_argument("--connect", metavar="HOST:PORT", help="dial this referee's lobby instead of listening")
    parser.add_argument(
        "--token",
        default=os.environ.get("WARAQ_TOKEN"),
        help="with --connect: the bot's token (default: $WARAQ_TOKEN, which keeps it out of the process list)",
    )
    parser.add_argument("--tls", action="store_true", help="with --connect: dial over TLS, trusting the system's CAs")
    parser.add_argument("--tls-ca", metavar="PEM", help="with --connect: dial over TLS, trusting this certificate")
    args = parser.parse_args()
    if args.connect:
        if not args.token:
            parser.error("--connect needs --token or $WARAQ_TOKEN")
        credentials = None
        if args.tls or args.tls_ca:
            roots = Path(args.tls_ca).read_bytes() if args.tls_ca else None
            credentials = grpc.ssl_channel_credentials(root_certificates=roots)
        dial_in(args.connect, args.token, credentials)
        return
    serve(f"unix:{args.unix}" if args.unix else f"127.0.0.1:{args.port}")


if __name__ == "__main__":
    main()
