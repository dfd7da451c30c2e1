"""`waraq replay --html`, the Python side: a record's page data, its escaping, its size, the folder's index, the CLI.

The page's views must be the views the seats were sent: the tests decode the
page's compact views (``views.base`` and patches) and compare every seat's
view at every decision with ``request_json`` of the wire's message of
``Step.before.view(seat)``, and the seat asked with the very request
``waraq replay --json`` prints. Hand-checkable facts come from the deal worked
by hand (tests/support/replay_records.py: seat s holds all of suit s, every
seat plays its highest card). Sizes are of real matches to the end, played
by ``waraq match`` with the built-in bots as processes.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.replay_records import hand_worked, played, read_events, waraq, write_events
from waraq.referee.games.cards import CARD_NAMES
from waraq.referee.match.play import referee_error_result
from waraq.referee.replay.html.page import PAGE_FORMAT, encode_views, page_data, seat_views, view_patch
from waraq.referee.replay.html.write import INDEX, page_names, render_page, script_json, write_folder, write_page
from waraq.referee.replay.walk import load, request_json
from waraq.referee.wire import codec as wire
from waraq.referee.wire.hand import ACTION_FIELD as HAND_FIELDS
from waraq.referee.wire.hokm import ACTION_FIELD as HOKM_FIELDS

SIZE_GOAL = 300_000  # bytes: the "small enough to mail" for a 4-player match
HEARTS = ["AH", "KH", "QH", "JH", "10H", "9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H"]
HOSTILE_NOTE = '</script><script>alert(1)</script> <!-- \u2028\u2029 & "quoted"'
ACTION_FIELD = {**HOKM_FIELDS, **HAND_FIELDS}  # the Action field of each kind's legal actions
EMBEDDED = re.compile(r'<script type="application/json" id="waraq-data">(.*?)</script>', re.S)


def embedded(page: str) -> dict:
    """The page's data, read back as the viewer reads it: the element's text, parsed as JSON."""
    found = EMBEDDED.findall(page)
    assert len(found) == 1
    return json.loads(found[0])


def match_records(folder: Path, *args: str) -> Path:
    """One match played to its end by ``waraq match`` (the built-in bots as processes); its record."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "waraq.referee.cli.main",
            "match",
            "--record",
            str(folder),
            "--deal-key",
            "4e" * 32,
            "--sandbox",
            "off",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (record,) = folder.glob("*.jsonl")
    return record


@pytest.fixture(scope="module")
def worked(tmp_path_factory) -> Path:
    return hand_worked(tmp_path_factory.mktemp("worked") / "hand-1.jsonl")


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return played(tmp_path_factory)


@pytest.fixture(scope="module")
def full(tmp_path_factory) -> dict[str, Path]:
    """A 4-player Hokm match to 7 points and a 4-player Hand match of 5 rounds, played whole."""
    root = tmp_path_factory.mktemp("full")
    return {
        "hokm": match_records(root / "hokm", "--bots", "heuristic", "random", "--seed", "3"),
        "hand": match_records(root / "hand", "--game", "hand", "--bots", "heuristic", "random", "--seed", "2"),
    }


# -- the views are the seats' own -----------------------------------------------------------


def sent_as_if_asked(replay, view) -> dict:
    """A seat's view as the wire's public door writes it into a request: the door writes only the
    seat to act's, so the view is made that seat's turn, and its ``to_act`` put back after."""
    field = "hand" if replay.game == "hand" else "hokm"
    asked = (
        dataclasses.replace(view, to_act=view.seat)
        if dataclasses.is_dataclass(view)
        else view._replace(to_act=view.seat)
    )
    written = request_json(wire.decision_request(1, asked, match_id="m", deadline_ms=1, bank_ms=1))[field]
    return {**written, "to_act": view.to_act}


@pytest.mark.slow
def test_every_seat_view_at_every_decision_is_the_view_its_request_holds(records, full):
    for path in [*records.records("clean")[:1], records.records("faults")[0], records.records("two")[0], full["hand"]]:
        replay = load(path)
        data = page_data(replay)
        views = seat_views(data["views"])
        assert len(views) == len(replay.steps) == len(data["steps"]) > 20
        field = "hand" if replay.game == "hand" else "hokm"
        for step, row, said in zip(replay.steps, views, data["steps"], strict=True):
            request = request_json(replay.request(step))  # what --json prints for this decision
            assert row[step.seat] == request[field]
            assert (said["seq"], said["bank_ms"]) == (request["seq"], request["bank_ms"])
            assert [{ACTION_FIELD[step.kind]: value} for value in said["legal"]] == request["legal"]
            for seat, view in enumerate(row):
                assert view == sent_as_if_asked(replay, step.before.view(seat))


def test_a_patch_is_the_changed_fields_and_a_list_a_splice():
    before = {"to_act": 0, "hand": ["2S", "7S", "QH", "AH"], "trick": [], "scores": [1, 0]}
    after = {"to_act": 1, "hand": ["2S", "QH", "AH"], "trick": [{"seat": 0, "card": "7S"}], "scores": [1, 0]}
    assert view_patch(before, after) == {"to_act": 1, "hand": [1, 1], "trick": [0, 0, {"seat": 0, "card": "7S"}]}
    # Two seats: what both patches share is stored once, seat 0's hand apart.
    other = {**before, "hand": ["3D"]}
    encoded = encode_views([[before, other], [after, {**after, "hand": ["3D"]}]])
    assert encoded["patch"] == [{"to_act": 1, "trick": [0, 0, {"seat": 0, "card": "7S"}]}, {"hand": [1, 1]}]
    assert encoded["refs"] == [[[0, 1], 0]]
    assert seat_views(encoded) == [[before, other], [after, {**after, "hand": ["3D"]}]]


def test_a_seat_view_holds_its_own_hand_and_no_card_of_another_hand(records):
    replay = load(records.records("clean")[0])
    for step, row in zip(replay.steps, seat_views(page_data(replay)["views"]), strict=True):
        for seat, view in enumerate(row):
            assert view["hand"] == [CARD_NAMES[c] for c in step.before.hands[seat]]
            text = json.dumps(view)
            others = {CARD_NAMES[c] for other in range(4) if other != seat for c in step.before.hands[other]}
            assert [c for c in others if f'"{c}"' in text] == []


def test_the_worked_deal_gives_the_views_and_steps_worked_out_by_hand(worked):
    data = page_data(load(worked))
    views, steps = seat_views(data["views"]), data["steps"]
    # Decision 1: s0, the hakem, names trump having seen its first five cards, the top spades.
    assert (steps[0]["seat"], steps[0]["kind"], steps[0]["action"]) == (0, "TRUMP", "S")
    assert views[0][0]["hand"] == ["10S", "JS", "QS", "KS", "AS"]
    assert views[0][1]["hand"] == ["10H", "JH", "QH", "KH", "AH"]
    # Decision 2: s0 leads its ace, with its note; every seat holds its whole suit.
    assert (steps[1]["seat"], steps[1]["action"], steps[1]["note"]) == (0, "AS", "cash the ace")
    assert sorted(views[1][1]["hand"]) == sorted(HEARTS) and views[1][1]["trump"] == "S"
    # Decision 3: s1, void in spades, may play any heart; it sees AS on the table, its own hand, the sizes.
    assert steps[2]["seat"] == 1 and sorted(steps[2]["legal"]) == sorted(HEARTS)
    assert views[2][1]["trick"] == [{"seat": 0, "card": "AS"}]
    assert views[2][1]["hand_sizes"] == [12, 13, 13, 13]
    assert steps[2]["action"] == "AH" and steps[2]["note"] == "void in spades: my best heart"
    # s0 takes the first seven tricks: a kot by the hakem's side, 2 points, the match.
    assert [r["round"] for r in data["rounds"]] == [1] and data["rounds"][0]["kot"] == "kot"
    assert data["rounds"][0]["after"] == len(steps) == 1 + 7 * 4
    assert data["result"]["reason"] == "score" and data["result"]["winners"] == [0, 2]
    assert data["format"] == PAGE_FORMAT and data["status"] == "ok" and data["problem"] is None


# -- the file -------------------------------------------------------------------------------


def test_json_in_the_page_is_escaped_for_a_script_element():
    assert script_json({"n": "</script>\u2028&<!--"}) == '{"n":"\\u003c/script\\u003e\\u2028\\u0026\\u003c!--"}'
    assert json.loads(script_json({"n": "</script>\u2028&<!--"})) == {"n": "</script>\u2028&<!--"}


def hostile_record(path: Path) -> Path:
    """The worked deal with a note, a match id and a bot name that try to end the page's script and title."""
    events = read_events(hand_worked(path))
    events[0]["match_id"] = "m-<b>hostile</b>"
    events[0]["seats"][0]["bot"] = "</title><script>alert(2)</script>"
    decisions = [e for e in events if e["type"] == "decision"]
    decisions[1]["note"] = HOSTILE_NOTE
    return write_events(path, events)


def test_a_note_that_closes_the_script_is_kept_as_text(tmp_path):
    page = render_page(load(hostile_record(tmp_path / "hostile.jsonl")))
    assert page.count("</script>") == 2  # the data's and the viewer's, none from the note
    assert "<!--" not in page.split('id="waraq-data">')[1].split("</script>")[0]
    assert "\u2028" not in page and "<title>m-&lt;b&gt;hostile&lt;/b&gt;" in page
    assert embedded(page)["steps"][1]["note"] == HOSTILE_NOTE
    assert embedded(page)["match"]["seats"][0]["bot"] == "</title><script>alert(2)</script>"


def test_the_page_loads_nothing_from_anywhere(worked):
    page = render_page(load(worked))
    assert "default-src 'none'" in page
    assert re.findall(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page) == []
    assert re.findall(r"https?://", page) == []


def test_a_4_player_match_to_7_points_is_small_enough_to_mail(full, tmp_path):
    replay = load(full["hokm"])
    assert replay.ok and replay.rules.target_score == 7 and max(replay.result["score"]) >= 7
    size = write_page(full["hokm"], tmp_path / "hokm.html")
    assert size == (tmp_path / "hokm.html").stat().st_size < SIZE_GOAL
    hand = load(full["hand"])
    assert hand.ok and hand.players == 4 and len(hand.steps) > 100
    assert write_page(full["hand"], tmp_path / "hand.html") < SIZE_GOAL


# -- broken records ---------------------------------------------------------------------------


def test_a_record_cut_short_gets_a_page_as_far_as_it_replays(records, tmp_path):
    lines = records.records("clean")[0].read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:30]) + lines[30][:12])
    write_page(cut, tmp_path / "cut.html")
    data = embedded((tmp_path / "cut.html").read_text())
    assert data["status"] == "cut short" and "line 31 is cut short" in data["problem"]
    assert 0 < len(data["steps"]) < 30 and data["result"] is None
    assert data["steps"][-1]["line"] <= 30


@pytest.mark.parametrize(
    ("text", "status", "says"),
    [
        ("", "cut short", "empty"),
        ('{"type":"match","format":"other"}\n', "corrupt", "format 'other'"),
        ("not json at all\n", "corrupt", "line 1"),
    ],
)
def test_a_record_that_does_not_replay_gets_a_page_that_says_why(tmp_path, text, status, says):
    record = tmp_path / "bad.jsonl"
    record.write_text(text)
    assert write_page(record, tmp_path / "bad.html") > 0
    data = embedded((tmp_path / "bad.html").read_text())
    assert data["status"] == status and says in data["problem"] and data["steps"] == []


def test_a_match_aborted_by_the_referee_says_so_with_its_error(records, tmp_path):
    events = read_events(records.records("clean")[0])[:40]
    events.append(referee_error_result(RuntimeError("the table fell over")))
    record = write_events(tmp_path / "aborted.jsonl", events)
    data = page_data(load(record))
    assert data["status"] == "ok" and data["result"]["reason"] == "aborted"
    assert data["result"]["text"] == "aborted by the referee: referee error: RuntimeError: the table fell over"
    assert len(data["steps"]) == sum(e["type"] == "decision" for e in events)


def test_a_record_that_is_not_there_gets_a_page_that_says_so(tmp_path):
    write_page(tmp_path / "gone.jsonl", tmp_path / "gone.html")
    data = embedded((tmp_path / "gone.html").read_text())
    assert data["status"] == "unreadable" and "gone.jsonl" in data["problem"] + data["file"]


# -- a folder ---------------------------------------------------------------------------------


def test_a_folder_gets_a_page_per_record_and_an_index_that_links_them(records, tmp_path):
    paths = [*records.records("clean"), records.records("forfeit")[0]]
    pages = write_folder(paths, tmp_path / "out")
    assert [p.name for p in pages] == ["hokm-1.html", "hokm-2.html", "hokm-9.html"]
    index = (tmp_path / "out" / INDEX).read_text()
    rows = re.findall(r'<tr data-page="([^"]+)"><td><a href="([^"]+)">([^<]+)</a></td>(.*?)</tr>', index)
    assert [(r[0], r[1], r[2]) for r in rows] == [(p.name, p.name, p.name.replace(".html", ".jsonl")) for p in pages]
    forfeit = rows[2][3]
    assert "scripted" in forfeit and "forfeit" in forfeit and "s0+s2 win by the forfeit of s3" in forfeit
    assert "random" in rows[0][3] and ">score<" in rows[0][3]
    for page in pages:
        assert embedded(page.read_text())["file"] == page.name.replace(".html", ".jsonl")


def test_records_of_one_name_in_two_folders_get_two_pages():
    names = page_names([Path("/r/two/hokm-5.jsonl"), Path("/r/three/hokm-5.jsonl.gz"), Path("/r/hokm-6.jsonl")])
    assert names == ["r-two-hokm-5.html", "r-three-hokm-5.html", "hokm-6.html"]


# -- the command ------------------------------------------------------------------------------


def test_the_command_writes_a_page_and_says_its_size(worked, tmp_path):
    done = waraq("replay", str(worked), "--html", str(tmp_path / "m.html"))
    assert done.returncode == 0, done.stderr
    size = (tmp_path / "m.html").stat().st_size
    assert done.stdout.strip() == f"{tmp_path / 'm.html'}: {size:,} bytes"


def test_the_command_writes_a_folder_of_pages(records, tmp_path):
    done = waraq("replay", str(records.root / "clean"), "--html", str(tmp_path / "pages"))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == ["hokm-1.html", "hokm-2.html", INDEX]


def test_the_command_writes_the_page_of_a_broken_record_and_says_what_is_wrong(records, tmp_path):
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(records.records("clean")[0].read_text().splitlines(keepends=True)[:25]))
    done = waraq("replay", str(cut), "--html", str(tmp_path / "cut.html"))
    assert done.returncode == 1 and (tmp_path / "cut.html").exists()
    assert done.stderr.strip().splitlines() == [
        f"error: {cut}: cut short: no result line; readable up to line 25 ({load(cut).steps[-1].where})"
    ]


def test_a_folder_with_a_broken_record_gets_every_page_and_names_the_broken_one(records, tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "hokm-1.jsonl").write_bytes(records.records("clean")[0].read_bytes())
    (folder / "hokm-2.jsonl").write_text('{"type":"match","format":"other"}\n')
    done = waraq("replay", str(folder), "--html", str(tmp_path / "pages"))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"error: {folder / 'hokm-2.jsonl'}: corrupt: line 1: format 'other', expected 'waraq.record.v1'"
    ]
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == ["hokm-1.html", "hokm-2.html", INDEX]


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (("--json",), "--json and --html do not go together"),
        (("--step",), "--step and --html do not go together"),
        (("--verify",), "--verify and --html do not go together"),
        (("--ask", "random"), "--ask and --html do not go together"),
        (("--seat", "1"), "--seat, --round and --trick are for the terminal"),
    ],
)
def test_html_with_another_mode_is_a_usage_error(worked, tmp_path, extra, says):
    done = waraq("replay", str(worked), "--html", str(tmp_path / "m.html"), *extra)
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {says}")
    assert not (tmp_path / "m.html").exists()


@pytest.mark.parametrize(
    ("out", "says"),
    [
        ("missing/m.html", "--html {tmp}/missing/m.html: no folder {tmp}/missing to write the page in"),
        ("worked/m.html", "--html {tmp}/worked/m.html: no folder {tmp}/worked to write the page in"),
        ("/proc/m.html", "--html /proc/m.html: cannot write the page: No such file or directory"),
    ],
)
def test_a_page_that_cannot_be_written_is_a_usage_error(worked, tmp_path, out, says):
    (tmp_path / "worked").write_text("a file, not a folder")
    target = out if out.startswith("/") else str(tmp_path / out)
    done = waraq("replay", str(worked), "--html", target)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["error: " + says.format(tmp=tmp_path)]


def test_a_folder_without_records_and_a_record_that_is_not_there_are_usage_errors(tmp_path):
    (tmp_path / "empty").mkdir()
    done = waraq("replay", str(tmp_path / "empty"), "--html", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: no records (*.jsonl, *.jsonl.gz) in {tmp_path / 'empty'}"
    done = waraq("replay", str(tmp_path / "gone.jsonl"), "--html", str(tmp_path / "out.html"))
    assert done.returncode == 2 and done.stderr.strip() == f"error: no record at {tmp_path / 'gone.jsonl'}"
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.html").exists()
