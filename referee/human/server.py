"""The human seats' page for one run (``waraq match --bots human ...``): served while the run plays.

uvicorn serves :func:`waraq.referee.human.app.build` on a socket bound here
first, so port 0 means any free port and the address is known before the
first match; its signal handlers are not installed (the run's Ctrl-C is the
command's). The page is on loopback unless told otherwise: anybody who can
reach it and read the printed address holds the seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import AsyncIterator, Callable, Iterator

import uvicorn

from waraq.referee.common.digits import ascii_digits
from waraq.referee.human.app import Replays, build
from waraq.referee.human.desk import Desk
from waraq.referee.human.options import PageConfig

Told = Callable[[dict[str, str]], None]  # each person's page address, by name


class PageError(ValueError):
    """The page cannot be served: the message names the address or what is missing."""


def bind(address: str) -> socket.socket:
    host, colon, port = address.rpartition(":")
    bare = host.strip("[]")
    if not colon or not ascii_digits(port) or not bare:
        raise PageError(f"--page {address!r}: expected HOST:PORT, e.g. 127.0.0.1:8765 (port 0: any free port)")
    try:
        return socket.create_server((bare, int(port)), family=socket.AF_INET6 if ":" in bare else socket.AF_INET)
    except OSError as error:
        raise PageError(f"--page {address!r}: cannot listen there: {error.strerror or error}") from None


def hosts_of(sock: socket.socket) -> set[str]:
    """What a browser sends as ``Host`` for this socket: its address, and ``localhost`` on loopback."""
    host, port = sock.getsockname()[:2]
    named = {f"[{host}]:{port}" if ":" in host else f"{host}:{port}"}
    if ipaddress.ip_address(host).is_loopback:
        named.add(f"localhost:{port}")
    return named


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


@contextlib.asynccontextmanager
async def page_for_run(
    names: list[str],
    config: PageConfig,
    replay_page: Replays,
    tell: Told | None,
    kept: Callable[[float], None] | None = None,
) -> AsyncIterator[Desk]:
    """A desk for ``names`` (each a person) and their page, served until the run is over (then ``keep_s``
    more, ``kept`` told so, unless the run failed); ``tell`` is told each person's page address once
    it is served."""
    desk = Desk()
    for name in names:
        desk.person(name)
    sock = bind(config.address)
    server = Embedded(
        uvicorn.Config(
            build(desk, hosts_of(sock), replay_page),
            log_level="warning",
            access_log=False,  # each page's address holds its person's token
            lifespan="off",
            server_header=False,
            timeout_graceful_shutdown=1,
        )
    )
    # The socket listens already: a browser's first request waits in its backlog until uvicorn serves.
    serving = asyncio.ensure_future(server.serve(sockets=[sock]))
    base = url_of(sock)
    pages = {person.name: f"{base}/p/{person.token}" for person in desk}
    if tell is not None:
        tell(pages)
    if config.open_browser:
        import webbrowser

        for page in pages.values():
            webbrowser.open(page)
    try:
        yield desk
        if config.keep_s > 0:
            await _keep(desk, config.keep_s, kept)
    finally:
        desk.close()
        server.should_exit = True
        await asyncio.gather(serving, return_exceptions=True)
        sock.close()


async def _keep(desk: Desk, keep_s: float, kept: Callable[[float], None] | None) -> None:
    """Serve the pages ``keep_s`` more seconds, for their replays; Ctrl-C ends the wait, not the command."""
    desk.over(keep_s)
    if kept is not None:
        kept(keep_s)
    task = asyncio.current_task()
    try:
        await asyncio.sleep(keep_s)
    except asyncio.CancelledError:
        # Ctrl-C cancels the run's task: here, the run is over and its results are whole, so it only ends
        # the wait (a cancellation from anywhere else goes on).
        if task is None or task.uncancel() > 0:
            raise


class Embedded(uvicorn.Server):
    """uvicorn without its own signal handlers: the command's decide when the process stops."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield
