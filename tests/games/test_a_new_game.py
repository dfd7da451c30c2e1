"""A third game joins without an edit to the referee: the toy game of tests/toy_game/, end to end.

The toy game (two seats, highest card wins) is defined only under
tests/toy_game/ and joins as another package's game would: one entry point in
the group ``waraq.games``, written here as pip would write it, in a
``.dist-info`` folder on the ``PYTHONPATH`` of the real ``waraq`` command. It
then plays through ``waraq match`` with bots that speak gRPC from bot.proto
alone, is recorded, replays and verifies, draws its HTML page, and is rated
on a ladder, all through the registry's one entry.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support import new_game
from tests.support.new_game import HIGH, LUCKY, waraq
from waraq.referee.records.record_file import read_record

CARD_RANKS = "2 3 4 5 6 7 8 9 10 J Q K A".split()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return new_game.site(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="module")
def played(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return new_game.play(site, tmp_path_factory.mktemp("toy"), 6)


def test_the_game_is_unknown_without_its_entry_point(tmp_path: Path):
    done = waraq(tmp_path, tmp_path, "match", "--game", "toy", "--bots", HIGH, LUCKY)
    assert done.returncode == 2
    assert "invalid choice: 'toy'" in done.stderr and "hokm" in done.stderr


def test_a_match_is_played_over_grpc_and_recorded_as_the_toys_rules_say(played: Path):
    records = sorted(played.glob("toy-*.jsonl"))
    assert len(records) == 6
    for path in records:
        events = read_record(path).events
        header, deal = events[0], events[1]
        assert header["game"] == "toy" and header["rules"] == {"cards": 3}
        deck = deal["deck"]
        hands = [deck[:3], deck[3:6]]
        shown = [(e["seat"], e["action"]) for e in events if e["type"] == "decision"]
        # Each round: seat 0 shows first in odd rounds, seat 1 in even ones; each card from its own hand.
        assert [seat for seat, _ in shown] == [0, 1, 1, 0, 0, 1]
        assert all(card in hands[seat] for seat, card in shown)
        held = list(hands[0])
        for seat, card in shown:  # the high bot shows its highest card left
            if seat == 0:
                assert rank(card) == max(map(rank, held))
                held.remove(card)
        points = [0, 0]
        for (first, a), (_, b) in zip(shown[::2], shown[1::2], strict=True):
            if rank(a) != rank(b):
                points[first if rank(a) > rank(b) else 1 - first] += 1
        result = events[-1]
        assert result["type"] == "result" and result["score"] == points
        assert result["winners"] == [s for s in (0, 1) if points[s] == max(points)]


def test_a_seat_is_told_its_own_hand_and_the_cards_shown_and_nothing_else(site: Path, played: Path):
    path = sorted(played.glob("toy-*.jsonl"))[0]
    events = read_record(path).events
    deck = events[1]["deck"]
    hands = [set(deck[:3]), set(deck[3:6])]
    done = waraq(site, played.parent, "replay", "--json", str(path))
    assert done.returncode == 0, done.stderr
    requests = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(requests) == 6
    shown: list[str] = []
    for request in requests:
        seat, view = request["seat"], json.loads(request["view_json"])
        unseen = hands[1 - seat] - set(shown)
        assert not unseen & set(json.dumps(view).replace('"', " ").split()), "a card of the other hand leaked"
        assert set(view["hand"]) <= hands[seat] and [card for _, card in view["shown"]] == shown
        assert sorted(json.loads(a["json"]) for a in request["legal"]) == sorted(view["hand"])
        shown.append(
            next(
                e["action"]
                for e in events
                if e["type"] == "decision" and e["seat"] == seat and e["action"] not in shown
            )
        )


def test_every_record_verifies_and_replays_in_text(site: Path, played: Path):
    done = waraq(site, played.parent, "replay", "--verify", str(played))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 records: 6 ok, 0 failed" in done.stdout
    path = sorted(played.glob("toy-*.jsonl"))[0]
    text = waraq(site, played.parent, "replay", str(path)).stdout
    shows = [e for e in read_record(path).events if e["type"] == "decision"]
    assert [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("round ")] == [
        f"s{e['seat']} shows {e['action']}" for e in shows
    ]


def test_a_tampered_record_is_refused_naming_its_line(site: Path, played: Path, tmp_path: Path):
    lines = sorted(played.glob("toy-*.jsonl"))[0].read_text().splitlines()
    decision = next(i for i, line in enumerate(lines) if '"decision"' in line)
    event = json.loads(lines[decision])
    event["action"] = "AS" if event["action"] != "AS" else "KS"  # a card not in that hand, or not the one shown
    lines[decision] = json.dumps(event)
    bad = tmp_path / "toy-bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    done = waraq(site, tmp_path, "replay", "--verify", str(bad))
    assert done.returncode == 1
    assert f"line {decision + 1}" in done.stdout + done.stderr


def test_the_html_page_holds_each_seats_own_view(site: Path, played: Path, tmp_path: Path):
    path = sorted(played.glob("toy-*.jsonl"))[0]
    page = tmp_path / "toy.html"
    done = waraq(site, tmp_path, "replay", "--html", str(page), str(path))
    assert done.returncode == 0, done.stderr
    data = _page_data(page.read_text())
    assert data["match"]["game"] == "toy" and len(data["steps"]) == 6
    deck = read_record(path).events[1]["deck"]
    in_order = [sorted(hand, key=lambda card: ("SHDC".index(card[-1]), rank(card))) for hand in (deck[:3], deck[3:6])]
    assert [view["hand"] for view in data["views"]["base"]] == in_order


def rank(card: str) -> int:
    return CARD_RANKS.index(card[:-1])


def _page_data(html: str) -> dict[str, Any]:
    embedded = re.search(r'<script type="application/json" id="waraq-data">(.*?)</script>', html, re.S)
    assert embedded is not None
    return json.loads(embedded.group(1))


@pytest.mark.slow
def test_a_ladder_of_the_game_plays_duplicate_boards_and_rates_both_bots(site: Path, tmp_path: Path):
    def ladder(*args: str) -> str:
        done = waraq(site, tmp_path, "ladder", *args)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    assert "Toy, 2 players, 3 cards" in ladder("init", "lad", "--game", "toy")
    ladder("add", "-C", "lad", "high", HIGH)
    ladder("add", "-C", "lad", "lucky", LUCKY)
    ladder("run", "-C", "lad", "--matches", "8")
    shown = ladder("show", "-C", "lad")
    assert "Ladder lad (Toy, 2 players, 3 cards): 8 matches" in shown
    assert {"high", "lucky"} <= set(shown.split())
    records = [read_record(path).events for path in sorted((tmp_path / "lad" / "records").glob("*.jsonl"))]
    assert len(records) == 8
    # A board's two rooms deal the same deck with the bots' seats swapped.
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first[1]["deck"] == second[1]["deck"]
        assert [s["bot"] for s in first[0]["seats"]] == [s["bot"] for s in reversed(second[0]["seats"])]
    verified = waraq(site, tmp_path, "replay", "--verify", str(tmp_path / "lad" / "records"))
    assert "8 records: 8 ok, 0 failed" in verified.stdout
