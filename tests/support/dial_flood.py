"""A stranger's flood of Lobby dials with wrong tokens, from a process of its own.

    python -m tests.support.dial_flood HOST:PORT COUNT CONNECTIONS FIRST

The flood's own work (a thousand calls' worth of gRPC on the client side) stays
out of the referee's event loop, so what a test measures there is the lobby's
share alone. It connects ``CONNECTIONS`` connections (each holds at most the
lobby's 64 streams at once; past them HTTP/2 refuses a stream before the lobby
sees it) and prints ``ready``. On a line on stdin it opens ``COUNT`` Dial
streams at once, none with its token yet, and prints ``opened``; it sends the
first ``FIRST`` streams their wrong tokens and waits for their answers (the
lobby's loop turns meanwhile, and starts a handler for every stream opened),
then sends all the others theirs at once: the way past a check the lobby would
make only as a stream opens. It prints one JSON line per attempt as each ends,
``{"i": 7, "code": "UNAUTHENTICATED", "wait_s": 0.25}`` (``wait_s`` from the
token sent to the status), and ``done`` last.

gRPC's synchronous client, not ``grpc.aio``: when a stream's status arrives
while its message is being sent, ``grpc.aio`` reports INTERNAL ("Internal
error from Core") in place of the status the lobby sent; the synchronous
client's request thread just stops, and the call keeps the lobby's status.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator

import grpc

from waraq.v1 import bot_pb2 as pb

DIAL = "/waraq.v1.Lobby/Dial"


class _Attempt:
    """One Dial stream, opened at once; its wrong token goes when :meth:`send` is called."""

    def __init__(self, channel: grpc.Channel, i: int, printing: threading.Lock) -> None:
        self.i = i
        self._go = threading.Event()
        self._sent = 0.0
        self._printing = printing
        self.ended = threading.Event()
        dial = channel.stream_stream(
            DIAL, request_serializer=pb.BotMessage.SerializeToString, response_deserializer=pb.RefereeMessage.FromString
        )
        self.call = dial(self._requests())
        self.call.add_done_callback(self._end)

    def _requests(self) -> Iterator[pb.BotMessage]:
        self._go.wait()
        self._sent = time.monotonic()
        yield pb.BotMessage(dial=pb.Dial(token=f"wq_wrong-{self.i:04d}"))

    def send(self) -> None:
        self._go.set()

    def _end(self, call: grpc.Future) -> None:
        wait_s = time.monotonic() - self._sent if self._sent else None  # None: ended before its token went
        line = json.dumps({"i": self.i, "code": self.call.code().name, "wait_s": wait_s})
        with self._printing:
            print(line, flush=True)
        self.ended.set()


def flood(address: str, count: int, connections: int, first: int) -> None:
    # A local subchannel pool a channel: else channels to one address share one connection.
    channels = [
        grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(connections)
    ]
    for channel in channels:
        grpc.channel_ready_future(channel).result(timeout=30)
    print("ready", flush=True)
    sys.stdin.readline()
    printing = threading.Lock()
    attempts = [_Attempt(channels[i % connections], i, printing) for i in range(count)]
    print("opened", flush=True)
    for attempt in attempts[:first]:
        attempt.send()
    for attempt in attempts[:first]:
        attempt.ended.wait()
    for attempt in attempts[first:]:
        attempt.send()
    for attempt in attempts:
        attempt.ended.wait()
    with printing:
        print("done", flush=True)
    for channel in channels:
        channel.close()


if __name__ == "__main__":
    address, count, connections, first = sys.argv[1], *map(int, sys.argv[2:5])
    flood(address, count, connections, first)
