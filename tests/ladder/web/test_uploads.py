"""Uploads through a real ``waraq serve``: what a stranger's archive gets, told to its author, and what is left.

The unpacking, the manifest and the build are tried one by one in
tests/ladder/submit; here they are reached the way an author reaches them, through
the API with a token, and the server's answers and pages are checked.
"""

from __future__ import annotations

import io
import os
import re
import socket
import sqlite3
import time
import zipfile

import httpx
import pytest

from tests.support import ladders
from tests.support.web import Served, invite_link, join, post_form, serve, shown_secret, sign_in, starter_archive

pytestmark = pytest.mark.slow  # a server of its own: the fast tier has the web's doors in test_people.py


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = ladders.make(tmp_path_factory.mktemp("uploads") / "arena", {})
    running = serve(folder)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def author(served: Served) -> httpx.Client:
    organiser = join(served, served.invite, "olga")
    client = join(served, invite_link(organiser), "ann")
    token = shown_secret(post_form(client, "/me", "/me/api-tokens", label="uploads").text)
    client.headers["Authorization"] = f"Bearer {token}"
    return client


def zipped(members: dict[str, str] | dict[str, str | bytes]) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return data.getvalue()


def raw(served: Served, request: str) -> str:
    """One request written by hand (what no client library will send), and the answer's first bytes."""
    host, port = served.url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(request.encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += connection.recv(65536)
        head, _, body = answer.partition(b"\r\n\r\n")
        size = int(re.search(rb"content-length: (\d+)", head, re.IGNORECASE).group(1))
        while len(body) < size:
            body += connection.recv(65536)
        return (head + b"\r\n\r\n" + body).decode("utf-8", "replace")


def send(author: httpx.Client, archive: bytes) -> httpx.Response:
    return author.post("/api/me/uploads", files={"archive": ("bot.zip", archive)})


def ended(author: httpx.Client, status: str, timeout: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        found = author.get(status).json()
        if found["stage"] not in ("received", "building"):
            return found
        assert time.monotonic() < deadline, found
        time.sleep(0.2)


def test_an_archive_that_escapes_is_refused_with_a_line_and_leaves_nothing(served: Served, author):
    sent = send(author, zipped({"../../escaped.txt": "out", "waraq-bot.toml": "x"}))
    assert sent.status_code == 202
    found = ended(author, sent.json()["status"])
    assert found["stage"] == "refused" and "escaped.txt" in found["message"]
    assert not list(served.folder.parent.rglob("escaped.txt"))
    files = served.folder / "uploads" / str(found["upload"]) / "files"
    assert files.is_dir() and not (files / "upload").exists()  # nothing of it is kept


def test_a_manifest_with_markup_is_refused_and_shown_as_text(served: Served, author):
    manifest = 'name = "<script>alert(1)</script>"\ngames = ["hokm"]\nrun = "python3 bot.py --port {port}"\n'
    sent = send(author, zipped({"waraq-bot.toml": manifest, "bot.py": ""}))
    found = ended(author, sent.json()["status"])
    assert found["stage"] == "refused" and "name" in found["message"]
    page = author.get(f"/me/uploads/{found['upload']}").text
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
    assert "<script>alert" not in author.get("/me").text


def test_an_upload_too_big_or_of_no_size_is_refused_before_it_is_read(served: Served, author):
    token = author.headers["Authorization"]
    head = f"POST /api/me/uploads HTTP/1.1\r\nHost: x\r\nAuthorization: {token}\r\n"
    head += "Content-Type: multipart/form-data; boundary=b\r\n"
    # It says 65 MiB and sends 10 bytes: the answer comes before the server waits for the rest.
    big = raw(served, head + f"Content-Length: {65 << 20}\r\n\r\n" + "x" * 10)
    assert big.startswith("HTTP/1.1 413") and "at most 64 MiB" in big

    def chunks():
        yield b"--b\r\n"

    unsized = author.post(
        "/api/me/uploads", content=chunks(), headers={"Content-Type": "multipart/form-data; boundary=b"}
    )
    assert unsized.status_code == 411


def test_a_form_upload_needs_its_csrf_value(served: Served, author):
    signed_in = sign_in(served, "ann")  # a session cookie, no token: the form must carry its CSRF value
    refused = signed_in.post("/me/uploads", files={"archive": ("bot.zip", zipped({"a": "b"}))})
    assert refused.status_code == 403
    assert served.client().post("/me/uploads", files={"archive": ("bot.zip", b"PK")}).status_code == 401


@pytest.mark.slow
@pytest.mark.system("sandbox")
def test_a_bot_that_fails_check_bot_is_told_why_and_never_plays(served: Served, author):
    # The Python starter, changed to play a card no deck holds at every decision: a fault at once.
    archive = zipfile.ZipFile(io.BytesIO(starter_archive("python", "cheat")))
    members = {info.filename: archive.read(info).decode("utf-8", "replace") for info in archive.infolist()}
    bot = members["cheat/bot.py"]
    assert "def decide(" in bot
    cheat = r'\1\n    return pb.Action(card="1Z"), "cheating"'
    members["cheat/bot.py"] = re.sub(r"(def decide\([^)]*\)[^:]*:)", cheat, bot, count=1)
    sent = send(author, zipped(members))
    found = ended(author, sent.json()["status"], timeout=300)
    assert found["stage"] == "check failed", found
    report = author.get(f"/api/me/uploads/{found['upload']}").json()["check"]
    assert "fail" in report
    db = sqlite3.connect(served.folder / "ladder.sqlite")
    assert db.execute("SELECT COUNT(*) FROM bots WHERE base = 'cheat'").fetchone()[0] == 0
    db.close()
    # It will never run: only its logs are kept on the arena's disk.
    files = served.folder / "uploads" / str(found["upload"]) / "files"
    assert sorted(p.name for p in files.iterdir()) == ["check.json", "check.txt"]


def starter_members(name: str) -> dict[str, str]:
    archive = zipfile.ZipFile(io.BytesIO(starter_archive("python", name)))
    return {info.filename: archive.read(info).decode("utf-8", "replace") for info in archive.infolist()}


def entries(author: httpx.Client, base: str, count: int, timeout: float = 60.0) -> dict[str, str]:
    """The bot's entries (versions the ladder rated) and their status, once there are ``count`` of them and
    one is active."""
    deadline = time.monotonic() + timeout
    while True:
        answer = author.get(f"/api/bots/{base}")
        if answer.status_code == 200:
            found = {v["entry"]: v["status"] for v in answer.json()["versions"]}
            if len(found) == count and "active" in found.values():
                return found
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.system("sandbox")
def test_each_upload_is_a_version_and_an_earlier_one_plays_again_with_its_entry(served: Served, author):
    first = ended(author, send(author, zipped(starter_members("twice"))).json()["status"])
    assert first["stage"] == "ready", first
    assert entries(author, "twice", 1) == {"twice": "active"}
    changed = starter_members("twice")
    changed["twice/bot.py"] += "\n# the second version\n"
    second = ended(author, send(author, zipped(changed)).json()["status"])
    assert second["stage"] == "ready" and second["version"] == 2, second
    assert entries(author, "twice", 2) == {"twice": "retired", "twice.v2": "active"}
    # The author chooses the first again: it goes on as its own entry, the second is retired.
    chosen = post_form(sign_in(served, "ann"), "/me", f"/me/uploads/{first['upload']}/play")
    assert chosen.status_code == 303
    deadline = time.monotonic() + 60
    while entries(author, "twice", 2) != {"twice": "active", "twice.v2": "retired"}:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    playing = [u for bot in author.get("/api/me").json()["bots"] for u in bot["versions"] if u["playing"]]
    assert [u["upload"] for u in playing] == [first["upload"]]


def ballasted(name: str, note: str, ballast: int) -> bytes:
    """The Python starter as ``name``, its bot changed by ``note``, with ``ballast`` bytes no zip can shrink."""
    members: dict[str, str | bytes] = dict(starter_members(name))
    members[f"{name}/bot.py"] = str(members[f"{name}/bot.py"]) + f"\n# {note}\n"
    members[f"{name}/ballast.bin"] = os.urandom(ballast)
    return zipped(members)


@pytest.mark.slow
@pytest.mark.system("sandbox")
def test_an_authors_uploads_stay_within_their_bound_their_oldest_unused_version_removed(tmp_path):
    # A bound of 1 MiB and versions of some 700 KB each (a 600 KB ballast): the playing version is not
    # counted; one earlier version fits beside a new upload, two do not.
    running = serve(ladders.make(tmp_path / "arena", {}), "--upload-mb", "1")
    try:
        organiser = join(running, running.invite, "olga")
        person = join(running, invite_link(organiser), "ann")
        token = shown_secret(post_form(person, "/me", "/me/api-tokens", label="uploads").text)
        author = running.client()
        author.headers["Authorization"] = f"Bearer {token}"
        versions = []
        for number in (1, 2, 3):
            archive = ballasted("heavy", f"version {number}", 600_000)
            deadline = time.monotonic() + 120
            # The version retired by the last upload may still be running: it is removed once it stops.
            while (sent := send(author, archive)).status_code == 413:
                assert time.monotonic() < deadline, sent.text
                time.sleep(0.5)
            assert sent.status_code == 202, sent.text
            versions.append(ended(author, sent.json()["status"], timeout=300))
            assert versions[-1]["stage"] == "ready", versions[-1]
        stages = {u["upload"]: u["stage"] for u in author.get("/api/me").json()["bots"][0]["versions"]}
        first, second, third = (v["upload"] for v in versions)
        assert stages == {first: "removed", second: "ready", third: "ready"}
        files = running.folder / "uploads" / str(first) / "files"
        assert sorted(p.name for p in files.iterdir()) == ["check.json", "check.txt"]  # its logs are kept
        assert "upload it again" in author.get(f"/api/me/uploads/{first}").json()["message"]
        chosen = post_form(sign_in(running, "ann"), "/me", f"/me/uploads/{first}/play")
        assert chosen.status_code == 400
        # More than the bound in one archive: refused before its body is read, and nothing is removed.
        refused = send(author, ballasted("heavy", "too big", 1_200_000))
        assert refused.status_code == 413 and "at most 1 MiB" in refused.json()["error"], refused.text
        assert (running.folder / "uploads" / str(second) / "files" / "upload").is_dir()
    finally:
        running.stop()
