"""The browser tests' fixtures: one headless Chromium a session (tests/support/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.browser import Browser, session_browser


@pytest.fixture(scope="session")
def _chromium() -> Iterator[Browser]:
    yield from session_browser()


@pytest.fixture
def browser(_chromium: Browser) -> Iterator[Browser]:
    """Chromium, with each test's pages closed after it."""
    yield _chromium
    _chromium.close_pages()
