"""A bot for the toy game, from bot.proto alone: it shows its highest card, or a random one.

python bot.py --port PORT [--random]
"""

import argparse
import json
import random
import signal
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

RANKS = "2 3 4 5 6 7 8 9 10 J Q K A".split()


class Bot(bot_pb2_grpc.BotServicer):
    def __init__(self, lucky: bool) -> None:
        self.lucky = lucky

    def Hello(self, request, context):
        name = "toy-random" if self.lucky else "toy-high"
        games = [pb.GameSupport(game="toy", players=[2])]
        return pb.HelloReply(name=name, version="1", games=games, protocol_version=1)

    def Play(self, messages, context):
        rng = random.Random()
        for message in messages:
            if message.WhichOneof("body") == "start":
                rng.seed(f"{message.start.match_id}/{message.start.seat}")
            elif message.WhichOneof("body") == "decision":
                request = message.decision
                hand = json.loads(request.view_json)["hand"]
                card = rng.choice(hand) if self.lucky else max(hand, key=lambda c: RANKS.index(c[:-1]))
                action = pb.Action(json=json.dumps(card))
                yield pb.BotMessage(reply=pb.DecisionReply(seq=request.seq, action=action, note=f"show {card}"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--random", action="store_true")
    args = parser.parse_args()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    bot_pb2_grpc.add_BotServicer_to_server(Bot(args.random), server)
    checker = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    checker.set("", health_pb2.HealthCheckResponse.SERVING)
    server.add_insecure_port(f"127.0.0.1:{args.port}")
    server.start()
    signal.signal(signal.SIGTERM, lambda *_: server.stop(grace=1))
    server.wait_for_termination()


if __name__ == "__main__":
    main()
