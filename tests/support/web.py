"""A real ``waraq serve`` for the web tests: its process, its address, and people who use it over HTTP."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from tests.support import ROOT

READY = re.compile(r"waraq serve: (http://\S+) ")
INVITE = re.compile(r"organiser invite, once: (\S+)")
CSRF = re.compile(r'name="csrf" value="([^"]*)"')
PASSWORD = "correct horse battery"


@dataclass
class Served:
    url: str
    invite: str  # the organiser's one-time link
    process: subprocess.Popen
    folder: Path
    lines: list[str] = field(default_factory=list)

    def stop(self, timeout: float = 60.0) -> str:
        """SIGTERM (the matches in flight finish) and its whole output."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            rest, _ = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            rest, _ = self.process.communicate()
        return "\n".join(self.lines) + "\n" + (rest or "")

    def line(self, prefix: str, timeout: float = 60.0) -> str:
        """The first line of its output that starts with ``prefix``, once it has printed it."""
        deadline = time.monotonic() + timeout
        while not (found := [line for line in list(self.lines) if line.startswith(prefix)]):
            assert time.monotonic() < deadline and self.process.poll() is None, "\n".join(self.lines)
            time.sleep(0.05)
        return found[0]

    def kill(self) -> None:
        self.process.kill()
        self.process.communicate()

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, follow_redirects=False, timeout=30)


def serve(folder: Path, *extra: str, timeout: float = 90.0) -> Served:
    """Start ``waraq serve FOLDER`` on a free loopback port with an organiser invite; return once it serves."""
    process = subprocess.Popen(
        [sys.executable, "-m", "waraq.referee.cli.main", "serve", str(folder), "--http", "127.0.0.1:0", "--init-admin",
         *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "400"},
    )  # fmt: skip
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in iter(process.stdout.readline, ""):
            lines.put(line.rstrip("\n"))
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    seen: list[str] = []
    url = invite = None
    deadline = time.monotonic() + timeout
    while url is None or invite is None:
        line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        if line is None:
            raise AssertionError("waraq serve ended before it served:\n" + "\n".join(seen))
        seen.append(line)
        url = url or (m.group(1) if (m := READY.search(line)) else None)
        invite = invite or (m.group(1) if (m := INVITE.search(line)) else None)
    served = Served(url, invite, process, folder, seen)
    # The rest of its output is drained (a full pipe would stop the server) and kept for stop().
    threading.Thread(target=_drain, args=(lines, served.lines), daemon=True).start()
    return served


def _drain(lines: queue.Queue[str | None], into: list[str]) -> None:
    while (line := lines.get()) is not None:
        into.append(line)


def csrf_of(html: str) -> str:
    found = CSRF.search(html)
    assert found is not None, html[:2000]
    return found.group(1)


def path_of(link: str) -> str:
    parts = urlsplit(link)
    return parts.path + ("?" + parts.query if parts.query else "")


def join(served: Served, invite_link: str, name: str, password: str = PASSWORD) -> httpx.Client:
    """A person who follows an invite link and joins: their client, signed in."""
    client = served.client()
    page = client.get(path_of(invite_link))
    assert page.status_code == 200, page.text
    invite = re.search(r'name="invite" value="([^"]*)"', page.text)
    assert invite is not None
    answer = client.post(
        "/join", data={"csrf": csrf_of(page.text), "invite": invite.group(1), "name": name, "password": password}
    )
    assert answer.status_code == 303, answer.text
    return client


def sign_in(served: Served, name: str, password: str = PASSWORD) -> httpx.Client:
    client = served.client()
    page = client.get("/login")
    answer = client.post("/login", data={"csrf": csrf_of(page.text), "name": name, "password": password})
    assert answer.status_code == 303, answer.text
    return client


def post_form(client: httpx.Client, page: str, action: str, **fields: str) -> httpx.Response:
    """Post one of ``page``'s forms as a browser would: with the CSRF value the page carries."""
    shown = client.get(page)
    assert shown.status_code == 200, shown.text
    return client.post(action, data={"csrf": csrf_of(shown.text), **fields})


def invite_link(organiser: httpx.Client, role: str = "author") -> str:
    answer = post_form(organiser, "/admin", "/admin/invites", role=role)
    assert answer.status_code == 200, answer.text
    found = re.search(r'id="secret">([^<]+)<', answer.text)
    assert found is not None
    return found.group(1).replace("&amp;", "&")


def shown_secret(html: str) -> str:
    found = re.search(r'id="secret">([^<]+)<', html)
    assert found is not None, html[:2000]
    return found.group(1)


STARTERS = ROOT / "sample_bots" / "starters"
MANIFESTS = {  # the waraq-bot.toml an author writes beside each starter kit
    "python": 'name = "{name}"\ngames = ["hokm", "hand"]\nrun = "python3 bot.py --unix {{socket}}"\n',
    "js": 'name = "{name}"\ngames = ["hokm", "hand"]\nrun = "node bot.js --port {{port}}"\n',
}


def starter_archive(kit: str, name: str) -> bytes:
    """A starter kit as its author uploads it: a zip of its folder under one top folder (as GitHub's are),
    with a waraq-bot.toml; the JavaScript kit with its node_modules and the contract beside bot.js."""
    import io
    import zipfile

    folder = STARTERS / kit
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and ".venv" not in path.parts:
                archive.write(path, f"{name}/{path.relative_to(folder)}")
        archive.writestr(f"{name}/waraq-bot.toml", MANIFESTS[kit].format(name=name))
        if kit == "js":
            archive.write(ROOT / "protocol" / "waraq" / "v1" / "bot.proto", f"{name}/bot.proto")
    return data.getvalue()
