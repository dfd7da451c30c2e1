"""``waraq serve``'s process: the ladder, the lobby and the web server, on one asyncio loop.

uvicorn serves the application on a socket bound here (so its address is
known before the first request, and port 0 means any free port); the
ladder's scheduler plays on the same loop, and the dial-in lobby's gRPC
server too. Signals are the scheduler's (uvicorn's own handlers are not
installed): a first Ctrl-C or SIGTERM lets the matches in flight finish,
then the web server stops; a second drops them (they stay planned).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass

import uvicorn

from waraq.ladder.play.folder import Ladder
from waraq.ladder.play.scheduler import RunState
from waraq.ladder.web import credentials, people
from waraq.ladder.web.app import SecurityHeaders, build
from waraq.ladder.web.arena import Arena, ServeSettings
from waraq.ladder.web.people import Role
from waraq.ladder.web.site import Site
from waraq.ladder.web.uploads import Uploads
from waraq.ladder.web.views import Views
from waraq.referee.common import open_files
from waraq.referee.common.digits import ascii_digits
from waraq.referee.human.server import Embedded

DEFAULT_HTTP = "127.0.0.1:8000"
# Connections served at once; past them a visitor is answered 503 at once. Each is a file descriptor, and
# so are the bots' sockets, their logs and the database's files (the process's limit is raised to fit:
# referee/common/open_files.py).
CONNECTIONS_AT_ONCE = 1024


class ListenError(ValueError):
    """An HTTP address that cannot be served: the message names it."""


@dataclass(frozen=True)
class HttpSettings:
    address: str = DEFAULT_HTTP
    public_url: str = ""  # how people reach the server (invite links); default: http://ADDRESS
    secure_cookies: bool = False  # behind TLS: cookies only over HTTPS
    proxy_headers: bool = False  # trust X-Forwarded-For/-Proto from the proxy on loopback
    insecure: bool = False  # serve plain HTTP on an address other than loopback


def bind(settings: HttpSettings) -> socket.socket:
    """The listening socket of ``settings.address``; ListenError names a bad or busy one."""
    host, colon, port = settings.address.rpartition(":")
    if not colon or not ascii_digits(port) or not host:
        raise ListenError(f"--http {settings.address!r}: expected HOST:PORT, e.g. 127.0.0.1:8000")
    bare = host.strip("[]")
    try:
        loopback = ipaddress.ip_address(bare).is_loopback
    except ValueError:
        loopback = bare == "localhost"
    if not loopback and not settings.insecure:
        raise ListenError(
            f"--http {settings.address!r} is not loopback: serve on loopback behind a reverse proxy with TLS "
            "(docs/serve.md), or give --insecure to send passwords and cookies in clear"
        )
    try:
        return socket.create_server((bare, int(port)), family=socket.AF_INET6 if ":" in bare else socket.AF_INET)
    except OSError as error:
        raise ListenError(f"--http {settings.address!r}: cannot listen there: {error.strerror}") from None


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def admin_link(ladder: Ladder, public_url: str) -> str:
    """A one-time invite link for an organiser (``--init-admin``)."""
    people.prepare(ladder.store)
    return f"{public_url}/join?invite={people.invite(ladder.store, Role.ORGANISER, None)}"


async def serve(
    ladder: Ladder,
    settings: ServeSettings,
    http: HttpSettings,
    sock: socket.socket,
    on_ready: Callable[[Site], None] = lambda site: None,
    on_lobby: Callable[[str], None] = lambda address: None,
) -> RunState:
    """Play and serve until stopped; the run's state. ``on_lobby``: told where dial-in bots dial, once the
    lobby listens."""
    open_files.raise_soft_limit()  # also done by `waraq`'s main: a server started otherwise needs it too
    arena = Arena(ladder, settings, on_lobby)
    views = Views(ladder.folder, str(ladder.config.rules.describe()))
    site = Site(
        arena,
        views,
        credentials.server_key(ladder.folder),
        Uploads(arena),
        public_url=http.public_url or url_of(sock),
        secure_cookies=http.secure_cookies,
    )
    config = uvicorn.Config(
        SecurityHeaders(build(site)),
        log_level="warning",
        access_log=False,  # an invite link's token is in its URL: no access log keeps it
        lifespan="off",
        server_header=False,
        proxy_headers=http.proxy_headers,
        forwarded_allow_ips="127.0.0.1,::1" if http.proxy_headers else "",
        timeout_graceful_shutdown=5,
        limit_concurrency=CONNECTIONS_AT_ONCE,
    )
    server = Embedded(config)  # the scheduler's signal handlers decide when the process stops
    web = asyncio.ensure_future(server.serve(sockets=[sock]))
    play = asyncio.ensure_future(arena.play())
    on_ready(site)
    try:
        done, _ = await asyncio.wait([web, play], return_when=asyncio.FIRST_COMPLETED)
        if web in done and not play.done():  # the web server failed: stop the ladder as a Ctrl-C would
            arena.stop()
        state = await play
    finally:
        await arena.exhibitions.close()  # a page waiting for news is answered before the server stops
        server.should_exit = True
        await asyncio.gather(web, return_exceptions=True)
        await site.uploads.close()
        views.close()
    web.result()  # a web server that failed says why
    return state
