"""A real browser for the tests: Debian's headless Chromium, driven by Playwright, started by the tests.

Pages are opened from disk (``file://``), as a user opens a page mailed to
them, or from a real server (:meth:`Browser.visit`). Every request the page
makes is kept: a page that is meant to work offline must make none but its
own file (and ``data:`` URLs it holds), a served one none but its server's.

Without Chromium this fails, never skips: CI installs it (.ci/run) and must
run these tests.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("WARAQ_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# As root, with no network: no sandbox (root), and none of the background connections Chromium opens
# at start-up, which a closed network refuses (and which would show as requests in every test).
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
]
# Screenshots for a human to look at: one folder, kept after the run (.gitignore'd).
ARTIFACTS = Path(os.environ.get("WARAQ_ARTIFACTS") or Path(__file__).resolve().parents[2] / "artifacts" / "browser")


@dataclass
class Opened:
    """A page opened from a file, with every request it made and every error it printed."""

    page: Any  # playwright.sync_api.Page
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # uncaught script errors
    console_errors: list[str] = field(default_factory=list)  # console.error and failed loads

    def foreign_requests(self, own: Path) -> list[str]:
        """Requests for anything but the page's own file and data: URLs."""
        mine = own.resolve().as_uri()
        return [url for url in self.requests if url != mine and not url.startswith("data:")]

    def requests_elsewhere(self, origin: str) -> list[str]:
        """Requests for anything but ``origin``'s (``http://127.0.0.1:PORT``: a served page's own) and data: URLs."""
        return [url for url in self.requests if not url.startswith(origin + "/") and not url.startswith("data:")]

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


class Browser:
    """One Chromium for the session; a fresh page (and context) per :meth:`open`."""

    def __init__(self) -> None:
        if not Path(CHROMIUM).is_file():
            raise RuntimeError(f"no Chromium at {CHROMIUM}: install Debian's chromium (.ci/run does)")
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        self._contexts: list[Any] = []

    def _fresh(self, width: int, height: int) -> Opened:
        """A page in a context of its own (its own cookies), every request and error of it kept."""
        context = self._browser.new_context(viewport={"width": width, "height": height})
        self._contexts.append(context)
        page = context.new_page()
        opened = Opened(page)
        page.on("request", lambda request: opened.requests.append(request.url))
        page.on("pageerror", lambda error: opened.errors.append(str(error)))
        page.on("console", lambda message: message.type == "error" and opened.console_errors.append(message.text))
        return opened

    def open(self, path: Path, *, fragment: str = "", width: int = 1280, height: int = 900) -> Opened:
        opened = self._fresh(width, height)
        url = path.resolve().as_uri() + (f"#{fragment}" if fragment else "")
        opened.page.goto(url, wait_until="load")
        return opened

    def blank(self, *, width: int = 1280, height: int = 900) -> Opened:
        """A person of their own who has opened nothing yet: hook ``page.on(...)`` first, then ``goto``."""
        return self._fresh(width, height)

    def visit(self, url: str, *, width: int = 1280, height: int = 900) -> Opened:
        """A person of their own at ``url`` of a real server."""
        opened = self._fresh(width, height)
        opened.page.goto(url, wait_until="load")
        return opened

    def close_pages(self) -> None:
        for context in self._contexts:
            context.close()
        self._contexts.clear()

    def close(self) -> None:
        self.close_pages()
        self._browser.close()
        self._playwright.stop()


def session_browser() -> Iterator[Browser]:
    browser = Browser()
    try:
        yield browser
    finally:
        browser.close()
