"""The harness itself: a page from disk runs its script, and a request it makes is seen."""

from __future__ import annotations

import pytest

from tests.support.browser import Browser

pytestmark = pytest.mark.system("chromium")  # Debian's Chromium opens the pages


def test_a_page_from_disk_runs_and_a_request_it_makes_is_seen(browser: Browser, tmp_path):
    page = tmp_path / "page.html"
    page.write_text(
        "<!doctype html><meta charset=utf-8><p id=p>♠</p><button id=go>go</button>"
        "<script>document.getElementById('p').dataset.ran = 'yes';"
        "document.getElementById('go').onclick = () => fetch('https://example.invalid/x').catch(() => {});</script>",
        encoding="utf-8",
    )
    opened = browser.open(page)
    assert opened.page.get_attribute("#p", "data-ran") == "yes" and opened.page.text_content("#p") == "♠"
    assert opened.foreign_requests(page) == []  # the page's own file only
    with opened.page.expect_request("https://example.invalid/x"):
        opened.page.click("#go")
    assert opened.foreign_requests(page) == ["https://example.invalid/x"]
    assert opened.errors == []
