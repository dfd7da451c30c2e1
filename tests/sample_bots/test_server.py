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

from tests.support import ROOT
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

WARAQ = str(Path(sys.executable).with_name("waraq"))
SERVERS = {
    "waraq bot serve random": [WARAQ, "bot", "serve", "random", "--port", "0"],
    "python heuristic": [sys.executable, "-m", "waraq.bots.server", "heuristic", "--port", "0"],
    "javascript": ["node", str(ROOT / "sample_bots" / "starters" / "js" / "bot.js"), "--port", "0"],
}


@pytest.fixture(
    params=[pytest.param(n, marks=pytest.mark.system("node") if n == "javascript" else ()) for n in SERVERS],
    scope="module",
)
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
        asked = iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        replies = stub.ServerReflectionInfo(asked, timeout=10)
        services = {s.name for reply in replies for s in reply.list_services_response.service}
    assert "waraq.v1.Bot" in services


def test_on_a_unix_socket_it_says_the_socket_not_a_port(tmp_path):
    path = tmp_path / "bot.sock"
    process = subprocess.Popen(
        [WARAQ, "bot", "serve", "random", "--unix", str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout.readline() == f"random bot serving waraq.v1.Bot on unix:{path}\n"
    finally:
        process.terminate()
        assert process.wait(timeout=10) is not None


# -- what `waraq bot serve` refuses ------------------------------------------------------------


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([WARAQ, "bot", "serve", "random", *args], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("port", ["70000", "-1", "65536", "http"])
def test_a_port_out_of_range_is_refused_before_anything_listens(port):
    # 70000 used to listen on 4464 (taken modulo 65536) and -1 on 65535.
    refused = serve("--port", port)
    assert refused.returncode == 2 and not refused.stdout
    assert f"argument --port: {port}" in refused.stderr or f"argument --port: {port!r}" in refused.stderr
    assert "from 0 to 65535" in refused.stderr and "Traceback" not in refused.stderr


def test_a_port_in_use_is_refused_not_shared():
    # gRPC binds with SO_REUSEPORT by default: a second bot on the same port used to serve beside the first.
    first = subprocess.Popen(SERVERS["waraq bot serve random"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        port = re.search(r"port (\d+)", first.stdout.readline()).group(1)
        second = serve("--port", port)
        assert second.returncode == 1 and not second.stdout
        assert second.stderr.strip() == f"error: cannot listen on 127.0.0.1:{port}: Address already in use"
    finally:
        first.terminate()
        first.wait(timeout=10)


def test_a_socket_in_a_folder_that_does_not_exist_is_refused_naming_it(tmp_path):
    refused = serve("--unix", str(tmp_path / "none" / "bot.sock"))
    assert refused.returncode == 1
    assert refused.stderr.strip() == f"error: cannot listen on unix:{tmp_path}/none/bot.sock: no folder {tmp_path}/none"


@pytest.mark.slow
def test_the_search_budget_is_taken_by_the_search_bot_only_and_must_be_positive():
    wrong_bot = serve("--ms", "50")
    assert wrong_bot.returncode == 2 and "--ms is for the search bot only, not 'random'" in wrong_bot.stderr
    for option, value in (("--ms", "0"), ("--worlds", "-3"), ("--ms", "fast")):
        refused = subprocess.run([WARAQ, "bot", "serve", "search", option, value], capture_output=True, text=True,
                                 timeout=30)  # fmt: skip
        assert refused.returncode == 2 and not refused.stdout and "Traceback" not in refused.stderr
        assert f"argument {option}: " in refused.stderr and repr(value) in refused.stderr


def test_the_bots_offered_are_the_table_of_built_in_bots_and_another_name_is_refused():
    # pyproject.toml's waraq.bots entry points list random and heuristic; `waraq bot serve` is the
    # bots' own command (sample_bots/cli.py), plugged into `waraq` like the ladder's.
    help_text = subprocess.run([WARAQ, "bot", "serve", "--help"], capture_output=True, text=True, timeout=30)
    assert help_text.returncode == 0 and "{greedy,heuristic,random,search}" in help_text.stdout
    refused = subprocess.run([WARAQ, "bot", "serve", "genius"], capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2 and not refused.stdout
    assert "invalid choice: 'genius' (choose from 'greedy', 'heuristic', 'random', 'search')" in refused.stderr


def test_a_built_in_bot_served_says_hello_with_its_name_from_the_table():
    process = subprocess.Popen([WARAQ, "bot", "serve", "heuristic", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("heuristic bot serving waraq.v1.Bot on port "), line
        with grpc.insecure_channel(f"127.0.0.1:{line.split()[-1]}") as channel:
            hello = bot_pb2_grpc.BotStub(channel).Hello(pb.HelloRequest(protocol_version=1), timeout=10)
        assert hello.name == "heuristic" and {g.game for g in hello.games} == {"hokm", "hand"}
    finally:
        process.terminate()
        process.wait(timeout=10)
