"""A person's seat in real Chromium: ``waraq match --bots human ...`` and its page, every decision clicked.

The command is the real one (tests/support/human.py's :func:`seated`), the page
its real page, played as a person plays it: a click on an offered action, on a
card of the hand, on the cards of a meld then "Lay as a meld", or a digit key.
What the page was sent is read from its own requests for events, and checked
against the record the run writes: each question is the one the record says
that seat was asked (:func:`~tests.support.human.same_questions`). At every
decision the page shows no card the seat may not see, and the seat's hand as
its view holds it.

The page's DOM contract is in referee/human/human.js's header comment. Screenshots
go to artifacts/browser/human-*.png.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT
from tests.support.browser import Browser, Opened
from tests.support.human import Seated, same_questions, seated
from waraq.referee.games.hand.meld_search import assign, best_opening, melds_in
from waraq.referee.games.hand.melds import CARD_NAMES, parse_card

pytestmark = [pytest.mark.slow, pytest.mark.system("chromium")]

WAIT_MS = 60_000  # the longest a person waits for the referee's next word here (bots' turns, a match's start)
DEAL_KEY = "5a" * 32  # the same deals every run: the seeded choices below meet the same hands
# What the page says once the run's server has stopped: its one request that could not be made.
SERVER_GONE = "net::ERR_CONNECTION_REFUSED"

SNAPSHOT = """() => {
  const root = document.getElementById("waraq");
  const seat = root.getAttribute("data-seat");
  const names = (nodes) => Array.from(nodes, (node) => node.getAttribute("data-card"));
  return {
    state: root.getAttribute("data-state"), match: root.getAttribute("data-match"),
    seat: seat === null ? null : Number(seat), kind: root.getAttribute("data-kind"),
    seq: root.getAttribute("data-seq"),
    cards: names(document.querySelectorAll("[data-card]")),
    hand: seat === null ? [] : names(document.querySelectorAll('#table .hand[data-seat="' + seat + '"] [data-card]')),
  };
}"""
# Let the page run whatever a click set going (a request is sent at once, in the click's own handler).
SETTLE = "() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))"


@dataclass
class Page:
    """A person's page of a running ``waraq match``: what it was sent, and what it sent."""

    run: Seated
    opened: Opened
    origin: str
    events: list[dict[str, Any]] = field(default_factory=list)  # what GET events answered, in order
    replies: list[dict[str, Any]] = field(default_factory=list)  # the bodies of POST reply, in order
    _responses: list[Any] = field(default_factory=list)  # responses to GET events not read yet

    @property
    def page(self) -> Any:
        return self.opened.page

    def heard(self) -> list[dict[str, Any]]:
        """Every event the page was sent so far."""
        while self._responses:
            response = self._responses.pop(0)
            assert response.status == 200, response.url
            self.events.extend(response.json()["events"])
        return self.events

    def snapshot(self) -> dict[str, Any]:
        return self.page.evaluate(SNAPSHOT)

    def request(self, now: dict[str, Any]) -> dict[str, Any]:
        """The DecisionRequest the page shows (``now``: a :meth:`snapshot` while asked), as it was sent."""
        shown = (now["match"], now["seat"], now["seq"])
        for event in reversed(self.heard()):
            decision = event.get("message", {}).get("decision")
            if decision and (event["match_id"], event["seat"], str(decision["seq"])) == shown:
                return decision
        raise AssertionError(f"the page shows a question it was never sent: {now}")

    def next_question(self, done: str = "false") -> dict[str, Any]:
        """Wait until the page asks (or ``done``, a JS expression, holds); what it shows then."""
        self.page.wait_for_function(
            f"() => document.getElementById('waraq').getAttribute('data-state') === 'asked' || ({done})",
            timeout=WAIT_MS,
        )
        return self.snapshot()

    def answered(self, now: dict[str, Any]) -> None:
        """Wait until the question ``now`` shows is no longer out on the page."""
        self.page.wait_for_function(
            """([match, seat, seq]) => {
              const root = document.getElementById("waraq"), state = root.getAttribute("data-state");
              return state !== "sending" && !(state === "asked" && root.getAttribute("data-match") === match &&
                root.getAttribute("data-seat") === seat && root.getAttribute("data-seq") === seq);
            }""",
            arg=[now["match"], str(now["seat"]), now["seq"]],
            timeout=WAIT_MS,
        )


@contextmanager
def sit(browser: Browser, cwd: Path, *args: str) -> Iterator[Page]:
    """``waraq match ARGS --record rec`` with one person, their page open in Chromium; the command is
    stopped at the end if it is still running."""
    run = seated(*args, "--deal-key", DEAL_KEY, "--record", "rec", cwd=cwd)
    try:
        url = run.pages["human"]
        opened = browser.blank()
        page = Page(run, opened, re.match(r"http://[^/]+", url).group(0))
        opened.page.on("response", lambda r: "/events" in r.url and page._responses.append(r))
        opened.page.on("request", lambda r: r.url.endswith("/reply") and page.replies.append(r.post_data_json))
        opened.page.goto(url, wait_until="load")
        yield page
    finally:
        if run.process.poll() is None:
            run.process.terminate()  # our own child, by its handle
        run.finish(timeout=30)


# -- what a seat may see ---------------------------------------------------------------------------------


def seen(request: dict[str, Any]) -> set[str]:
    """Every card the request's view shows its seat: its hand, and the cards that were face up."""
    if "hokm" in request:
        view = request["hokm"]
        cards = set(view["hand"]) | {p["card"] for p in view["trick"]}
        cards |= {c for trick in view["tricks"] for c in trick["cards"]}
        cards |= {c for shown in view["redeals"] for c in shown["cards"]}
        cards |= set(view["discarded"]) | {view["offered"]}
        cards |= {c for d in view["draws"] for c in (d["offered"], d["second"])}
    else:
        view = request["hand"]
        cards = set(view["hand"]) | set(view["pile"]) | {view["drawn"], view["took"]}
        cards |= {c for meld in view["melds"] for c in meld["cards"]} | {t["card"] for t in view["taken"]}
        cards |= {c for use in view["uses"] for step in use["steps"] for c in _step_cards(step)}
    return cards - {""}


def _step_cards(step: dict[str, Any]) -> list[str]:
    if "meld" in step:
        return step["meld"]["cards"]
    if "add" in step:
        return step["add"]["cards"]
    return [step["swap"]["card"]]


def shows_only_its_seat(now: dict[str, Any], request: dict[str, Any]) -> None:
    """The page shows no card its seat may not see, and the seat's hand as its view holds it."""
    view = request.get("hokm") or request["hand"]
    assert view["seat"] == now["seat"] == request["seat"]
    assert set(now["cards"]) <= seen(request), set(now["cards"]) - seen(request)
    if "hokm" in request:
        assert now["hand"] == view["hand"]
    else:
        assert sorted(now["hand"]) == sorted(view["hand"])


# -- the run's end -------------------------------------------------------------------------------------


def result_of(record: Path) -> dict[str, Any]:
    return json.loads(record.read_text().splitlines()[-1])


def match_id(record: Path) -> str:
    return json.loads(record.read_text().splitlines()[0])["match_id"]


def verify(record: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "replay", str(record), "--verify"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip


def said(result: dict[str, Any], seat: int, sides: list[str]) -> str:
    """What the page says of a match's end, from ``seat``'s side: "You win (score); score s0+s2 3, s1+s3 1"."""
    won = "You win" if seat in result["winners"] else "You lose"
    score = ", ".join(f"{side} {points}" for side, points in zip(sides, result["score"], strict=True))
    return f"{won} ({result['reason']}); score {score}"


def clean(page: Page) -> None:
    """No page error, no console error but the one request made after the run's server stopped, no request
    to another host."""
    assert page.opened.errors == []
    assert [e for e in page.opened.console_errors if SERVER_GONE not in e] == []
    assert page.opened.requests_elsewhere(page.origin) == []


# -- 1. a whole Hokm run, every decision clicked ------------------------------------------------------


def answer_hokm(page: Page, now: dict[str, Any], request: dict[str, Any], way: int, rng: random.Random) -> str:
    """Answer the question out the ``way``-th of four ways a person does; which action it should send."""
    legal = request["legal"]
    pick = rng.randrange(len(legal))
    if way == 0:
        pick = 0
    if way == 2 and now["kind"] == "PLAY":
        cards = page.page.locator(f'#table .hand[data-seat="{now["seat"]}"] .card.playable')
        assert cards.count() == len(legal)
        card = cards.nth(pick)
        played = card.get_attribute("data-card")
        card.click()
        return json.dumps({"card": played})
    if way == 3 and pick < 9:
        page.page.keyboard.press(str(pick + 1))
    else:
        page.page.click(f'#legal button.legal[data-index="{pick}"]')
    return json.dumps(legal[pick])


def test_a_person_plays_hokm_matches_to_the_end_by_clicks(browser: Browser, tmp_path):
    games = 2  # the run's server stops with its last match: the first's replay is opened while the second plays
    rng = random.Random(7)
    with sit(browser, tmp_path, "--bots", "human", "heuristic", "random", "heuristic", "--rules", "short",
             "--games", str(games)) as page:  # fmt: skip
        asked, replayed, errors_in_play = 0, None, []
        over = f"document.querySelectorAll('#matches .match-result').length >= {games}"
        while (now := page.next_question(over))["state"] == "asked":
            request = page.request(now)
            shows_only_its_seat(now, request)
            if asked == 3:
                page.opened.screenshot("human-hokm-decision")
            expected = answer_hokm(page, now, request, asked % 4, rng)
            page.answered(now)
            assert json.dumps(page.replies[-1]["message"]["reply"]["action"]) == expected
            assert page.replies[-1]["message"]["reply"]["seq"] == int(now["seq"]) and len(page.replies) == asked + 1
            asked += 1
            # Taken at each answer: once the last match ends the server stops, and the page's next request
            # for events may fail before the loop sees the end (clean() allows that one failure).
            errors_in_play = list(page.opened.console_errors)
            link = page.page.locator("#matches a.replay-link")
            if replayed is None and link.count():
                replayed = opens_the_replay(page, link.first)
        status, output = page.run.finish(timeout=60)
        assert status == 0, output
        page.page.wait_for_selector('#waraq[data-run="over"]', timeout=WAIT_MS)  # it stops asking the referee
        page.opened.screenshot("human-hokm-end")
        records = [tmp_path / "rec" / f"hokm-{n}.jsonl" for n in (1, 2)]
        assert replayed == match_id(records[0])
        sides = ["s0+s2", "s1+s3"]
        checked = 0
        for record in records:
            entry = page.page.locator(f'#matches .match-result[data-match="{match_id(record)}"]')
            assert said(result_of(record), 0, sides) in entry.inner_text()
            checked += same_questions(page.heard(), record, {0})
            verified = verify(record)
            assert verified.returncode == 0, verified.stdout + verified.stderr
        assert checked == asked
        last = result_of(records[1])
        shown = page.page.locator("#result")
        assert said(last, 0, sides) in shown.inner_text()
        assert shown.get_attribute("data-won") == ("yes" if 0 in last["winners"] else "no")
        assert shown.get_attribute("data-score") == ",".join(map(str, last["score"]))
        assert {e["seat"] for e in page.heard()} == {0}
        views = [e["message"]["decision"]["hokm"] for e in page.heard() if "decision" in e.get("message", {})]
        assert {view["seat"] for view in views} == {0}
        assert errors_in_play == []
        clean(page)


def opens_the_replay(page: Page, link: Any) -> str:
    """A match over's replay link opens its replay page, while the run still serves; the match's id."""
    match = link.get_attribute("data-match")
    with page.page.context.expect_page() as opening:
        link.click()
    replay = opening.value
    replay.wait_for_selector('#waraq[data-ready="yes"]', timeout=WAIT_MS)
    assert page.page.context.request.get(page.origin + link.get_attribute("href")).status == 200
    assert match in replay.content()
    replay.close()
    return match


# -- 2. a whole Hand round, its turns built by clicks ------------------------------------------------------


def ready(page: Page) -> None:
    """Wait until the turn builder shows the referee's options for the selection and steps it has."""
    page.page.wait_for_selector("#turn-builder:not([data-pending])", timeout=WAIT_MS)


def select(page: Page, cards: list[str]) -> None:
    for card in cards:
        page.page.click(f'#turn-hand .card[data-card="{card}"]')
    ready(page)
    shown = page.page.locator("#turn-hand .card.selected")
    assert sorted(shown.evaluate_all("nodes => nodes.map((n) => n.getAttribute('data-card'))")) == sorted(cards)


def held(page: Page) -> list[str]:
    return page.page.locator("#turn-hand .card").evaluate_all("nodes => nodes.map((n) => n.getAttribute('data-card'))")


def take_step(page: Page, step: dict[str, Any]) -> None:
    """One step of a turn, as a person takes it: select its cards, then click the tool it needs."""
    before = page.page.locator("#turn-steps li").count()
    if "meld" in step:
        select(page, step["meld"]["cards"])
        page.page.click("#meld:not([disabled])")
    elif "add" in step:
        select(page, step["add"]["cards"])
        page.page.click(f'button.add[data-meld="{step["add"]["meld"]}"][data-at="{step["add"]["at"]}"]:not([disabled])')
    else:
        select(page, [step["swap"]["card"]])
        page.page.click(f'button.swap[data-meld="{step["swap"]["meld"]}"]:not([disabled])')
    ready(page)
    assert page.page.locator("#turn-steps li").count() == before + 1


def lay(page: Page, cards: tuple[int, ...]) -> None:
    take_step(page, {"meld": {"cards": [CARD_NAMES[c] for c in cards]}})


def build_turn(page: Page, view: dict[str, Any], rng: random.Random, tried: dict[str, int]) -> None:
    """A turn by the builder: lay the taken discard as the view's first use says, or an opening when the hand
    holds one, or (once) a meld too small to open with, refused at the end and undone; then discard."""
    hand = [parse_card(name) for name in held(page)]
    opened = view["opened"][view["seat"]]
    points = json.loads(view["rules_json"])["opening_points"]
    if view["took"]:
        for step in view["uses"][0]["steps"]:
            take_step(page, step)
        tried["uses"] += 1
    elif not opened and (found := best_opening(hand, keep=1))[0] >= points:
        for cards in found[1]:
            lay(page, cards)
        tried["opened"] += 1
    elif opened and (found := [m for m in melds_in(hand) if len(m) < len(hand)]):
        lay(page, assign([rng.choice(found)], hand)[0])
        tried["laid"] += 1
    elif not opened and not tried["undone"] and (found := melds_in(hand)):
        lay(page, assign([found[0]], hand)[0])
        assert page.page.is_disabled("#discard")
        assert "an opening must be worth" in page.page.inner_text("#problem")
        page.page.click("#undo")
        ready(page)
        assert page.page.locator("#turn-steps li").count() == 0 and sorted(held(page)) == sorted(view["hand"])
        tried["undone"] += 1
    if not tried["two"]:  # two cards are never a meld: the referee says so, and the tool stays off
        select(page, held(page)[:2])
        assert page.page.is_disabled("#meld") and page.page.is_disabled("#discard")
        page.page.keyboard.press("Escape")
        ready(page)
        assert page.page.locator("#turn-hand .card.selected").count() == 0
        tried["two"] += 1
    select(page, [rng.choice(held(page))])
    if not tried["shot"]:
        page.opened.screenshot("human-hand-builder")
        tried["shot"] += 1
    page.page.click("#discard:not([disabled])")


def test_a_person_plays_a_hand_round_building_each_turn_by_clicks(browser: Browser, tmp_path):
    rng = random.Random(11)
    tried = dict.fromkeys(("uses", "opened", "laid", "undone", "two", "shot"), 0)
    with sit(browser, tmp_path, "--game", "hand", "--rules", "short", "--bots", "human", "random") as page:
        asked = 0
        over = "document.querySelectorAll('#matches .match-result').length >= 1"
        while (now := page.next_question(over))["state"] == "asked":
            request = page.request(now)
            if now["kind"] == "TURN":
                ready(page)
                now = page.snapshot()
            shows_only_its_seat(now, request)
            if now["kind"] == "TAKE":
                page.page.click(f'#legal button.legal[data-index="{rng.randrange(len(request["legal"]))}"]')
            else:
                build_turn(page, request["hand"], rng, tried)
            page.answered(now)
            asked += 1
        status, output = page.run.finish(timeout=60)
        assert status == 0, output
        (record,) = (tmp_path / "rec").glob("hand-*.jsonl")
        assert same_questions(page.heard(), record, {0, 2}) == asked
        verified = verify(record)
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert {e["seat"] for e in page.heard()} == {0, 2}
        result, sides = result_of(record), ["s0", "s1", "s2", "s3"]
        entry = page.page.locator(f'#matches .match-result[data-match="{match_id(record)}"]')
        assert said(result, int(entry.get_attribute("data-seat")), sides) in entry.inner_text()
        assert said(result, page.snapshot()["seat"], sides) in page.page.inner_text("#result")
        actions = [r["message"]["reply"]["action"] for r in page.replies]
        steps = [step for action in actions if "turn" in action for step in action["turn"]["steps"]]
        assert any("meld" in step for step in steps), tried  # a meld laid by clicks, sent in a turn
        clean(page)


# -- 3-5. a card not offered, a person who never answers, the keys --------------------------------------

ONE_SEAT = ("--bots", "human", "random", "random", "random", "--rules", "short")


def asked_besides_events(page: Page) -> list[str]:
    return [url for url in page.opened.requests if "/events" not in url]


def test_a_click_on_a_card_that_is_not_legal_does_nothing(browser: Browser, tmp_path):
    with sit(browser, tmp_path, *ONE_SEAT) as page:
        for _ in range(40):
            now = page.next_question()
            request = page.request(now)
            shows_only_its_seat(now, request)
            hand = page.page.locator('#table .hand[data-seat="0"] .card:not(.playable)')
            if now["kind"] == "PLAY" and hand.count():
                break
            page.page.click('#legal button.legal[data-index="0"]')
            page.answered(now)
        else:
            raise AssertionError("no PLAY question where a card of the hand must not be played")
        legal = {action["card"] for action in request["legal"]}
        card = hand.first
        assert card.get_attribute("data-card") not in legal
        sent = len(asked_besides_events(page))
        card.click()
        page.page.evaluate(SETTLE)
        assert asked_besides_events(page)[sent:] == []  # no reply, no other request
        after = page.snapshot()
        assert (after["state"], after["seq"], after["match"]) == ("asked", now["seq"], now["match"])
        playable = page.page.locator('#table .hand[data-seat="0"] .card.playable')
        assert sorted(playable.evaluate_all("nodes => nodes.map((n) => n.getAttribute('data-card'))")) == sorted(legal)
        clean(page)


def test_a_person_who_does_not_answer_loses_the_seat_as_a_bot_would(browser: Browser, tmp_path):
    with sit(browser, tmp_path, *ONE_SEAT, "--decision-ms", "400", "--bank-ms", "300") as page:
        page.page.wait_for_selector('#waraq[data-state="lost"]', timeout=WAIT_MS)
        assert "closed this seat" in page.page.inner_text("#status")
        status, output = page.run.finish(timeout=60)
        assert status == 1, output
        assert "seat 0 (human): TIMEOUT: no reply within 700 ms" in output, output
        (record,) = (tmp_path / "rec").glob("hokm-*.jsonl")
        assert result_of(record)["reason"] == "forfeit" and result_of(record)["faulty"] == [0]
        assert page.replies == [] and page.page.locator("button.legal").count() == 0
        clean(page)


def test_a_digit_key_answers_with_the_offered_action_of_that_number(browser: Browser, tmp_path):
    rng = random.Random(5)
    with sit(browser, tmp_path, *ONE_SEAT) as page:
        for _ in range(3):
            now = page.next_question()
            legal = page.request(now)["legal"]
            assert page.page.locator("#legal button.legal").count() == len(legal)
            if len(legal) < 9:  # a number with no action: nothing happens
                page.page.keyboard.press(str(len(legal) + 1))
                page.page.evaluate(SETTLE)
                assert page.replies == [] and page.snapshot()["seq"] == now["seq"]
            pick = rng.randrange(min(len(legal), 9))
            page.page.keyboard.press(str(pick + 1))
            page.answered(now)
            (reply,) = page.replies
            assert reply["message"]["reply"] == {"seq": int(now["seq"]), "action": legal[pick]}
            page.replies.clear()
        clean(page)
