"""Every sample bot is an ordinary gRPC server: Hello, health and reflection, as grpcurl would see them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
WARAQ = str(Path(sys.executable).with_name("waraq"))
SERVERS = {
    "waraq bot serve random": [WARAQ, "bot", "serve", "random", "--port", "0"],
    "python heuristic": [sys.executable, "-m", "sample_bots.server", "heuristic", "--port", "0"],
    "javascript": ["node", str(ROOT / "sample_bots" / "js" / "bot.js"), "--port", "0"],
}


@pytest.fixture(params=list(SERVERS), scope="module")
def bot_address(request):
    process = subprocess.Popen(SERVERS[request.param], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = process.stdout.readline()
        port = re.search(r"port (\d+)", line)
        assert port, f"{request.param} printed {line!r} instead of its port"
        yield f"127.0.0.1:{port.group(1)}"
    finally:
        process.terminate()
        assert process.wait(timeout=10) is not None


def test_it_says_hello_with_its_name_and_games(bot_address):
    with grpc.insecure_channel(bot_address) as channel:
        hello = bot_pb2_grpc.BotStub(channel).Hello(pb.HelloRequest(protocol_version=1), timeout=10)
    assert hello.name and hello.protocol_version == 1
    assert any(g.game == "hokm" and set(g.players) == {2, 3, 4} for g in hello.games)


def test_it_serves_the_standard_health_service(bot_address):
    with grpc.insecure_channel(bot_address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_it_serves_reflection_listing_the_bot_service(bot_address):
    with grpc.insecure_channel(bot_address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10)
        services = {s.name for reply in replies for s in reply.list_services_response.service}
    assert "waraq.v1.Bot" in services
