"""The probes of one process of the bot: start-up, health, Hello, and the end under SIGTERM."""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from waraq.referee.launch.bots import Endpoint, SpecKind
from waraq.referee.match.faults import Fault
from waraq.v1 import bot_pb2 as pb


class Health(StrEnum):
    SERVING = "serving"
    ABSENT = "absent"  # no health service: the referee takes an answered Hello for ready
    OTHER = "other"  # a health service that does not say SERVING once the bot is ready


@dataclass
class Probe:
    ready_ms: float = 0.0
    failure: Fault | None = None
    health: Health = Health.ABSENT
    health_detail: str = ""
    hello: pb.HelloReply | None = None
    launched: bool = False
    dialled: bool = False  # it dialled the check's lobby: its Hello came with its dial
    # Once stopped: whether it ended on SIGTERM alone, and how long it took (None: not launched)
    exited_on_term: bool | None = None
    stop_ms: float | None = None


async def probe(endpoint: Endpoint) -> Probe:
    """Start ``endpoint``, ask its health service, keep its Hello, and stop it with SIGTERM."""
    kind = endpoint.spec.kind
    found = Probe(launched=not kind.one_server, dialled=kind is SpecKind.DIAL_IN)
    begun = time.perf_counter()
    await endpoint.start()
    found.ready_ms = (time.perf_counter() - begun) * 1000
    found.failure = endpoint.failure
    try:
        if found.failure is None:
            found.hello = endpoint.hello
            if not found.dialled:  # a bot that dials in serves nothing to ask
                found.health, found.health_detail = await _health(endpoint.address)
    finally:
        report = await endpoint.stop()
    if found.launched and found.failure is None and report is not None:
        found.exited_on_term = report.exited_on_term
        found.stop_ms = report.ms
    return found


async def _health(address: str) -> tuple[Health, str]:
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.UNIMPLEMENTED:
                return Health.ABSENT, "no health service"
            return Health.OTHER, f"the health check failed: {error.code().name} {error.details()}"
        except TimeoutError:
            return Health.OTHER, "the health check did not answer within 5 s"
    if reply is not None and reply.status == health_pb2.HealthCheckResponse.SERVING:
        return Health.SERVING, "SERVING"
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status) if reply is not None else "unreadable"
    return Health.OTHER, f"the health service says {status} while the bot answers Hello"
