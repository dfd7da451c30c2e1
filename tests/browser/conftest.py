"""The browser tests' fixtures: one headless Chromium for this folder (tests/support/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.browser import Browser, session_browser


@pytest.fixture(scope="package")
def _chromium() -> Iterator[Browser]:
    # Package scope, not session: Playwright's sync API runs an event loop on this thread while it is
    # open, and every later test calling asyncio.run would fail with "cannot be called from a running
    # event loop". Closed when tests/browser is done, the thread is free again.
    yield from session_browser()


@pytest.fixture
def browser(_chromium: Browser) -> Iterator[Browser]:
    """Chromium, with each test's pages closed after it."""
    yield _chromium
    _chromium.close_pages()
