"""A gRPC bot that plays like the random bot until it misbehaves in one chosen way.

    python tests/bots/misbehaving.py MODE (--port N | --unix PATH) [--at K] [--count C]
        [--matches ID,ID] [--kinds KIND,KIND] [--how unheld|revoke] [--sleep-s S]
        [--think-ms N] [--bank-greedy] [--pidfile FILE] [--child]
        [--ignore-term | --term-exit STATUS [--term-delay-ms N]]

It is a real process for the referee to launch, so that the tests see what a
bot author's broken program would do to it. It plays Hokm and Hand (2 to 4
players). Until its misbehaviour triggers it answers exactly as
``sample_bots``' random bot does (the same players, seeded from the match id
and seat), so a record of it matches a clean record up to the fault.

Which requests it misbehaves at (``MODES`` says how):

* The ``HELLO_MODES`` misbehave in ``Hello`` only and then play cleanly; the
  ``START_MODES`` never get as far as a match; ``linger`` misbehaves after
  ``MatchEnd``; ``honest`` never misbehaves (a base for the options below).
* Every other mode misbehaves at the ``--at``-th decision request of a
  ``Play`` stream (one match, one seat), counting from 1, and at the next
  ``--count - 1`` requests after it that fit: by default ``--at 5 --count 1``;
  ``long_note`` and ``future_strict`` default to every request (``--at 1``, no
  count). With ``--matches`` only in those matches; with ``--kinds`` only at
  requests of those decision kinds (Hokm TRUMP PLAY DISCARD DRAW REDEAL BAM,
  Hand TAKE TURN), so that one fixture fails exactly the situations it is meant
  to. Without ``--kinds``, the modes that spoil an action (``illegal``,
  ``wrong_kind``, ``garbage``) wait for a ``PLAY``, as they always have.
* A request fits when the mode can misbehave there: ``illegal --how unheld``
  needs a trick played this round, ``--how revoke`` a trick it could follow
  but does not; ``illegal`` has no value at all at TRUMP, DRAW, REDEAL, BAM or
  TAKE (each value of theirs is legal whenever they are asked: the four suits,
  keep and pass, true and false, stock and discard), so it never misbehaves
  there; ``future_strict`` fits a request carrying fields it does not know.

Options that hold at every request, whatever the mode:

* ``--think-ms N``: an honest but slow thinker, it sleeps N ms before each reply.
* ``--bank-greedy``: a bot that counts on a bank it no longer has. At a request
  whose ``bank_ms`` is under ``NEARLY_SPENT_MS`` it thinks ``GREEDY_OVERRUN_MS``
  past its deadline, 100 ms or more beyond what that bank can pay (a timeout:
  the referee waits deadline + bank); with more bank left it answers at once. So it
  fails a match played on a nearly spent bank, and no other. The obvious greedy
  rule, ``deadline_ms + bank_ms / 2``, would not: it overruns by half the bank
  plus the reply's latency, so a 1 ms bank fails or not by a fraction of a ms,
  a big bank shrinks by that latency each reply until it is spent, some 10 to
  15 replies on, in any match, and under a 5 s deadline each reply takes 5 s.
* On SIGTERM it dies of the signal, unless ``--ignore-term`` (only SIGKILL ends
  it) or ``--term-exit STATUS``: it says so on standard error, waits
  ``--term-delay-ms``, and exits with STATUS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from waraq.bots import codec
from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.cards import CARD_NAMES, parse_card
from waraq.referee.games.hokm.engine import KINDS as HOKM_KINDS
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

MODES = {
    "slow": "sleeps far past deadline + bank before replying (--sleep-s)",
    "exit": "the whole process exits at once, mid-match, without replying",
    "illegal": "a well-formed action that is not legal: PLAY a card it does not hold (--how unheld) or one that"
    " fails to follow suit (--how revoke); DISCARD two cards it does not hold; TURN discarding a card it does not"
    " hold (TRUMP, DRAW, REDEAL, BAM and TAKE have none: never there)",
    "wrong_kind": "answers with the wrong field of Action: a PLAY with Action.suit, any other kind with Action.card",
    "garbage": "answers with a value that spells no action: the card, suit, draw or take '11X', a DISCARD of '11X'"
    " twice, a TURN discarding '11X'; a REDEAL or BAM (a bool, which every value spells) with an Action that sets"
    " nothing",
    "bad_seq": "echoes seq + 1000 instead of the request's seq",
    "twice": "sends the same reply twice to one request",
    "future_strict": "answers garbage (as 'garbage') to a request carrying fields it does not know: in the"
    " DecisionRequest, its view or any message in them, or in its stream's MatchStart",
    "long_note": "its reply carries a note of 2,000 bytes (the limit is 1,024)",
    "linger": "after MatchEnd it keeps its side of the Play stream open, until the referee cancels the stream",
    "honest": "never misbehaves: the options alone (--think-ms, --bank-greedy, --ignore-term, --term-exit)",
    "never_healthy": "serves, but the health service says NOT_SERVING forever",
    "never_bind": "runs but never listens on its port",
    "crash_at_start": "exits with status 3 before serving",
    "nameless": "its Hello gives no name",
    "wrong_game": "its Hello declares that it plays hand [4] only",
    "wrong_protocol": "its Hello declares protocol_version 2",
}
HELLO_MODES = ("nameless", "wrong_game", "wrong_protocol")
START_MODES = ("never_healthy", "never_bind", "crash_at_start")
# The modes that misbehave at a decision request (the others: in Hello, at start, after the end, never).
DECISION_MODES = tuple(m for m in MODES if m not in (*HELLO_MODES, *START_MODES, "linger", "honest"))
ACTION_MODES = ("illegal", "wrong_kind", "garbage")  # they spoil an action: a PLAY's, unless --kinds
EVERY_REQUEST_MODES = ("future_strict", "long_note")  # by default at every request that fits
DEFAULT_AT = 5
DEFAULT_COUNT = 1
GARBAGE = "11X"
LONG_NOTE = "x" * 2000
SEQ_SHIFT = 1000
CRASH_STATUS = 3
EXIT_STATUS = 17
NEARLY_SPENT_MS = 100.0  # --bank-greedy: a bank under this is one it counts on all the same
GREEDY_OVERRUN_MS = 2 * NEARLY_SPENT_MS  # ... by thinking this long past its deadline
# What it plays, as the random bot it is (wrong_game declares less).
PLAYS = [pb.GameSupport(game="hokm", players=[2, 3, 4]), pb.GameSupport(game="hand", players=[2, 3, 4])]


class MisbehavingBot(bot_pb2_grpc.BotServicer):
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.kinds = set(args.kinds)

    async def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:
        mode = self.args.mode
        return pb.HelloReply(
            name="" if mode == "nameless" else f"misbehaving-{mode}",
            version="test",
            author="tests/bots",
            games=[pb.GameSupport(game="hand", players=[4])] if mode == "wrong_game" else PLAYS,
            protocol_version=2 if mode == "wrong_protocol" else codec.PROTOCOL_VERSION,
        )

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        player: Any = None
        match_id, asked, done = "", 0, 0
        strange_start = False  # its MatchStart carried fields it does not know
        async for message in requests:
            body = message.WhichOneof("body")
            if body == "start":
                start = message.start
                match_id = start.match_id
                # As the random bot seeds its players.
                seed = f"{match_id}/{start.seat}"
                player = _hand_player(seed) if start.game == "hand" else RandomPlayer(seed)
                asked = done = 0
                strange_start = _has_unknown_fields(message)
            elif body == "decision" and player is not None:
                request = message.decision
                asked += 1
                await self._think(request)
                kind = codec.kind_of(request)
                action = codec.action_to_message(kind, player(codec.message_to_view(request)))
                reply = pb.DecisionReply(seq=request.seq, action=action)
                strange = strange_start or _has_unknown_fields(message)
                if self._due(done, asked, match_id, request, strange):
                    done += 1
                    async for bad in self._misbehave(request, reply):
                        yield bad
                    continue
                yield pb.BotMessage(reply=reply)
            elif body == "end" and self.args.mode == "linger" and self._in_match(match_id):
                print(f"misbehaving (linger) after the end of {match_id}", file=sys.stderr, flush=True)
                await asyncio.Event().wait()  # until the referee cancels the stream

    async def _think(self, request: pb.DecisionRequest) -> None:
        """The options' time: --think-ms at every request, --bank-greedy's overrun on a nearly spent bank."""
        ms = self.args.think_ms
        if self.args.bank_greedy and request.bank_ms < NEARLY_SPENT_MS:
            ms += request.deadline_ms + GREEDY_OVERRUN_MS
        if ms > 0:
            await asyncio.sleep(ms / 1000)

    def _due(self, done: int, asked: int, match_id: str, request: pb.DecisionRequest, strange: bool) -> bool:
        """Whether to misbehave at this request: ``done`` misbehaviours so far, ``asked`` requests."""
        if self.args.mode not in DECISION_MODES or done >= self.args.count or asked < self.args.at:
            return False
        return self._in_match(match_id) and self._fits(request, strange)

    def _in_match(self, match_id: str) -> bool:
        return not self.args.matches or match_id in self.args.matches.split(",")

    def _fits(self, request: pb.DecisionRequest, strange: bool) -> bool:
        """Whether the mode can misbehave at ``request`` (``strange``: it carries fields unknown here)."""
        if self.kinds and request.kind not in self.kinds:
            return False
        mode = self.args.mode
        if mode == "future_strict":
            return strange
        if mode not in ACTION_MODES:
            return True
        if not self.kinds and request.kind != "PLAY":
            return False
        if mode == "illegal":
            return _illegal_action(request, self.args.how) is not None
        return True

    async def _misbehave(self, request: pb.DecisionRequest, reply: pb.DecisionReply) -> AsyncIterator[pb.BotMessage]:
        mode = self.args.mode
        print(f"misbehaving ({mode}) at seq {request.seq} of {request.match_id}", file=sys.stderr, flush=True)
        if mode == "slow":
            await asyncio.sleep(self.args.sleep_s)
        elif mode == "exit":
            os._exit(EXIT_STATUS)
        elif mode == "illegal":
            reply.action.CopyFrom(_illegal_action(request, self.args.how))
        elif mode == "wrong_kind":
            reply.action.CopyFrom(pb.Action(suit="S") if request.kind == "PLAY" else pb.Action(card="AS"))
        elif mode in ("garbage", "future_strict"):
            reply.action.CopyFrom(_garbage(request.kind))
        elif mode == "long_note":
            reply.note = LONG_NOTE
        elif mode == "bad_seq":
            reply.seq = request.seq + SEQ_SHIFT
        elif mode == "twice":
            yield pb.BotMessage(reply=reply)
        yield pb.BotMessage(reply=reply)


def _hand_player(seed: str) -> Any:
    # Hand's modules are imported for a Hand match only: a bot that never plays one starts as fast as before.
    from waraq.bots.hand_random import HandRandomPlayer

    return HandRandomPlayer(seed)


def _illegal_action(request: pb.DecisionRequest, how: str) -> pb.Action | None:
    """A well-formed action of the request's kind that is not legal there, if the kind has one."""
    if request.kind == "PLAY" and how == "unheld":
        tricks = request.hokm.tricks
        return pb.Action(card=tricks[0].cards[0]) if tricks else None  # played this round: surely not held
    if request.kind == "PLAY":
        card = _revoke_card(request)
        return None if card is None else pb.Action(card=card)
    if request.kind == "DISCARD":
        held = set(request.hokm.hand)
        return pb.Action(discard=pb.Cards(cards=[c for c in CARD_NAMES if c not in held][:2]))
    if request.kind == "TURN":
        from waraq.referee.games.hand.melds import CARD_NAMES as HAND_CARD_NAMES

        held = set(request.hand.hand)
        return pb.Action(turn=pb.Turn(discard=next(c for c in HAND_CARD_NAMES if c not in held)))
    return None  # TRUMP, DRAW, REDEAL, BAM, TAKE: every value is legal whenever they are asked


def _garbage(kind: str) -> pb.Action:
    """The request's field of Action, set to a value that spells no action of ``kind``."""
    if kind == "DISCARD":
        return pb.Action(discard=pb.Cards(cards=[GARBAGE, GARBAGE]))
    if kind == "TURN":
        return pb.Action(turn=pb.Turn(discard=GARBAGE))
    field = {"TRUMP": "suit", "PLAY": "card", "DRAW": "draw", "TAKE": "take"}.get(kind)
    return pb.Action() if field is None else pb.Action(**{field: GARBAGE})  # REDEAL, BAM: a bool is never garbage


def _has_unknown_fields(message: Message) -> bool:
    """Whether ``message``, or any message in it, holds fields this protocol does not define."""
    if len(UnknownFieldSet(message)):
        return True
    for field, value in message.ListFields():
        if field.message_type is not None:
            if any(_has_unknown_fields(item) for item in (value if field.is_repeated else [value])):
                return True
    return False


def _revoke_card(request: pb.DecisionRequest) -> str | None:
    """The lowest card off the led suit, when the seat holds the led suit too (so must follow)."""
    view = request.hokm
    if not view.trick:
        return None
    led = parse_card(view.trick[0].card) // 13
    hand = [parse_card(c) for c in view.hand]
    off = [c for c in hand if c // 13 != led]
    if not off or len(off) == len(hand):
        return None
    return next(name for name in view.hand if parse_card(name) == min(off))


async def serve(args: argparse.Namespace) -> None:
    server = grpc.aio.server()
    bot_pb2_grpc.add_BotServicer_to_server(MisbehavingBot(args), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    address = f"unix:{args.unix}" if args.unix else f"127.0.0.1:{args.port}"
    server.add_insecure_port(address)
    await server.start()
    never = args.mode == "never_healthy"
    status = health_pb2.HealthCheckResponse.NOT_SERVING if never else health_pb2.HealthCheckResponse.SERVING
    for service in ("", pb.DESCRIPTOR.services_by_name["Bot"].full_name):
        await health_servicer.set(service, status)
    print(f"misbehaving bot ({args.mode}) on {address}", flush=True)
    await server.wait_for_termination()


def kind_list(text: str) -> list[str]:
    """``--kinds``: decision kinds, comma-separated."""
    from waraq.referee.games.hand.engine import KINDS as HAND_KINDS

    every = (*HOKM_KINDS, *HAND_KINDS)
    found = [kind.strip() for kind in text.split(",") if kind.strip()]
    if not found or any(kind not in every for kind in found):
        raise argparse.ArgumentTypeError(f"{text!r}: expected decision kinds among {', '.join(every)}")
    return found


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The options, with --at and --count settled for the mode (tests serve a MisbehavingBot of them in-process)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=MODES)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", type=int, help="listen on 127.0.0.1:PORT")
    where.add_argument("--unix", help="listen on this Unix socket")
    parser.add_argument("--at", type=int, help=f"misbehave from this decision of a stream on (1-based; {DEFAULT_AT})")
    parser.add_argument("--count", type=int, help=f"how many decisions to misbehave at ({DEFAULT_COUNT})")
    parser.add_argument("--matches", default="", help="comma-separated match ids to misbehave in (default: all)")
    parser.add_argument("--kinds", type=kind_list, default=[], help="misbehave at these kinds only: K,K")
    parser.add_argument("--how", choices=("unheld", "revoke"), default="unheld", help="illegal: which illegal card")
    parser.add_argument("--sleep-s", type=float, default=60.0, help="slow: how long to sleep")
    parser.add_argument("--think-ms", type=float, default=0.0, help="sleep this long before every reply")
    parser.add_argument("--bank-greedy", action="store_true", help="overrun its deadline when its bank is nearly spent")
    parser.add_argument("--pidfile", help="write {pid, pgid, child} here as JSON at start")
    parser.add_argument("--child", action="store_true", help="start a sleeping child process in the same group")
    ending = parser.add_mutually_exclusive_group()
    ending.add_argument("--ignore-term", action="store_true", help="ignore SIGTERM (so only SIGKILL ends it)")
    ending.add_argument("--term-exit", type=int, help="on SIGTERM, say so on standard error and exit with this status")
    parser.add_argument("--term-delay-ms", type=float, default=0.0, help="--term-exit: wait this long first")
    args = parser.parse_args(argv)
    every = args.mode in EVERY_REQUEST_MODES
    if args.at is None:
        args.at = 1 if every else DEFAULT_AT
    if args.count is None:
        args.count = sys.maxsize if every else DEFAULT_COUNT
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    elif args.term_exit is not None:
        signal.signal(signal.SIGTERM, lambda signum, frame: _exit_on_term(args.term_exit, args.term_delay_ms))
    child = None
    if args.child:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    if args.pidfile:
        with open(args.pidfile, "w") as file:
            json.dump({"pid": os.getpid(), "pgid": os.getpgrp(), "child": child and child.pid}, file)
    if args.mode == "crash_at_start":
        print(f"misbehaving bot (crash_at_start): exiting with status {CRASH_STATUS}", file=sys.stderr, flush=True)
        return CRASH_STATUS
    if args.mode == "never_bind":
        time.sleep(3600)
        return 0
    asyncio.run(serve(args))
    return 0


def _exit_on_term(status: int, delay_ms: float) -> None:
    print(f"misbehaving bot: SIGTERM, exiting with status {status} in {delay_ms:.0f} ms", file=sys.stderr, flush=True)
    time.sleep(delay_ms / 1000)  # the event loop waits: nothing more is served
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
