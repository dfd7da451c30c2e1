"""`waraq replay --verify`: each record re-played through the engine, each problem one clear line.

A corrupt, a cut-short and a tampered record each give their own verdict,
naming the record line where the problem is. Records come from the real
referee (tests/support/replay_records.py); each test damages a copy. Line numbers
are worked out from the record's layout: line 1 is the header, 2 the ace
draw, 3 the first deal, 4 the hakem's TRUMP (no redeals in these rules), then
one line per play, so line 5 + k is the (k+1)-th card of round 1.
"""

from __future__ import annotations

import gzip
import json

import pytest

from tests.support.replay_records import hand_worked, played, read_events, waraq, write_events
from waraq.referee.replay.verify import verify, verify_record
from waraq.referee.replay.walk import load


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return played(tmp_path_factory)


@pytest.fixture
def events(records):
    return read_events(records.records("clean")[0])


def index_of(events, kind: str) -> int:
    return next(i for i, e in enumerate(events) if e["type"] == kind)


def test_every_record_the_referee_wrote_verifies(records, tmp_path):
    names = ("clean", "two", "three", "faults", "forfeit", "timeout", "lost_before")
    paths = [p for name in names for p in records.records(name)]
    verdicts = list(verify([*paths, hand_worked(tmp_path / "hand.jsonl")]))
    assert [v.status for v in verdicts] == ["ok"] * 9, [v.problem for v in verdicts]


# -- corrupt -------------------------------------------------------------------------------


def test_a_line_that_is_not_json_is_corrupt_and_says_how_far_the_record_reads(events, tmp_path):
    path = write_events(tmp_path / "r.jsonl", events)
    lines = path.read_text().splitlines(keepends=True)
    lines[9] = '{"type": "decision", "round": 1,\n'  # line 10
    path.write_text("".join(lines))
    verdict = verify_record(path)
    assert verdict.status == "corrupt"
    # Lines 5-9 are the first five plays: the last one read is trick 2's lead.
    assert verdict.problem.startswith("line 10 is not JSON: ")
    assert verdict.problem.endswith("; readable up to line 9 (round 1, trick 2)")


def test_a_file_that_is_not_a_record_is_corrupt(events, tmp_path):
    assert verify_record(write_events(tmp_path / "a.jsonl", events[1:])).problem == "line 1 is not the 'match' header"
    wrong = [{**events[0], "format": "waraq.record.v9"}, *events[1:]]
    verdict = verify_record(write_events(tmp_path / "b.jsonl", wrong))
    assert (verdict.status, verdict.problem) == (
        "corrupt",
        "line 1: format 'waraq.record.v9', expected 'waraq.record.v1'",
    )


@pytest.mark.parametrize(
    "field, value, problem",
    [
        ("seed", "x", "line 1: seed 'x' is not an integer"),
        ("seed", True, "line 1: seed True is not an integer"),
        ("seed", 1.5, "line 1: seed 1.5 is not an integer"),
        ("seats", "four", "line 1: seats 'four' is not a list of {seat, bot, version}"),
    ],
)
def test_a_header_field_of_the_wrong_type_is_corrupt_and_named(events, tmp_path, field, value, problem):
    # The decks are in the record, so the play re-plays without them: the header must still be right.
    verdict = verify_record(write_events(tmp_path / "h.jsonl", [{**events[0], field: value}, *events[1:]]))
    assert (verdict.status, verdict.problem) == ("corrupt", problem)


def test_a_seat_entry_that_is_not_its_seat_is_corrupt_and_named(events, tmp_path):
    seats = [*events[0]["seats"]]
    seats[2] = {"seat": 3, "bot": "random"}
    verdict = verify_record(write_events(tmp_path / "s.jsonl", [{**events[0], "seats": seats}, *events[1:]]))
    assert verdict.status == "corrupt"
    assert verdict.problem == "line 1: seats[2] = {'seat': 3, 'bot': 'random'} is not {seat: 2, bot: a name, …}"


def test_a_missing_file_is_unreadable(tmp_path):
    verdict = verify_record(tmp_path / "none.jsonl")
    assert (verdict.status, verdict.problem) == ("unreadable", "No such file or directory")


# -- cut short -------------------------------------------------------------------------------


def test_a_record_killed_mid_line_is_cut_short_and_says_where_it_stops(events, tmp_path):
    path = write_events(tmp_path / "r.jsonl", events)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:10]) + lines[10][:20])
    verdict = verify_record(path)
    assert verdict.status == "cut short"
    assert verdict.problem == "line 11 is cut short; readable up to line 10 (round 1, trick 2)"


def test_a_record_that_stops_after_a_whole_line_is_cut_short_without_its_result(events, tmp_path):
    end = index_of(events, "round_end")
    tricks = sum(events[end]["tricks"])  # the round's last decision was a play of its last trick
    verdict = verify_record(write_events(tmp_path / "r.jsonl", events[: end + 1]))
    assert verdict.status == "cut short"
    assert verdict.problem == f"no result line; readable up to line {end + 1} (round 1, trick {tricks})"


def test_a_gzip_record_cut_short_is_read_up_to_its_last_whole_line(events, tmp_path):
    path = tmp_path / "r.jsonl.gz"
    data = gzip.compress("".join(json.dumps(e) + "\n" for e in events).encode())
    path.write_bytes(data[: len(data) // 2])
    replay = load(path)
    assert replay.status == "cut short" and replay.steps
    assert replay.steps[-1].line < len(events)


def test_an_empty_record_is_cut_short_before_its_header(tmp_path):
    (tmp_path / "e.jsonl").write_text("")
    verdict = verify_record(tmp_path / "e.jsonl")
    assert (verdict.status, verdict.problem) == ("cut short", "the record is empty: it stops before its header")


# -- inconsistent ------------------------------------------------------------------------------


def test_tampered_round_points_are_inconsistent_at_their_line(events, tmp_path):
    end = index_of(events, "round_end")
    true_points = list(events[end]["points"])
    events[end]["points"] = [p + 1 for p in true_points]
    verdict = verify_record(write_events(tmp_path / "r.jsonl", events))
    assert verdict.status == "inconsistent"
    assert verdict.problem == (
        f"line {end + 1} (round_end, round 1): record has points = {events[end]['points']}, "
        f"the rules give {true_points}"
    )


def test_a_tampered_result_is_inconsistent(events, tmp_path):
    true_score = events[-1]["score"]
    events[-1]["score"] = [true_score[1], true_score[0]]
    verdict = verify_record(write_events(tmp_path / "r.jsonl", events))
    assert verdict.status == "inconsistent"
    assert verdict.problem.startswith(f"line {len(events)} (result, round -): record has score = ")


def test_a_tampered_play_is_inconsistent_and_says_why(events, tmp_path):
    # Line 6 is the second card of trick 1: give that seat the card the leader just played.
    led = events[4]["action"]
    events[5]["action"] = led
    verdict = verify_record(write_events(tmp_path / "r.jsonl", events))
    assert verdict.status == "inconsistent"
    assert verdict.problem.startswith(f"line 6 (round 1): seat {events[5]['seat']} played '{led}' but does not hold it")


def test_a_rules_hash_that_is_not_the_rules_hash_is_inconsistent(events, tmp_path):
    events[0]["rules"]["target_score"] = 5  # the rules were edited, the hash was not
    verdict = verify_record(write_events(tmp_path / "r.jsonl", events))
    assert verdict.status == "inconsistent" and verdict.problem.startswith("line 1: rules_hash ")


def test_a_forfeit_with_the_wrong_winners_is_inconsistent(records, tmp_path):
    events = read_events(records.records("forfeit")[0])
    assert events[-1]["faulty"] == [3] and events[-1]["winners"] == [0, 2]
    events[-1]["winners"] = [1, 3]
    verdict = verify_record(write_events(tmp_path / "r.jsonl", events))
    assert verdict.status == "inconsistent"
    assert verdict.problem == f"line {len(events)}: record has winners = [1, 3], the forfeit gives [0, 2]"


def test_a_substitute_that_is_not_the_card_played_is_inconsistent(records, tmp_path):
    events = read_events(records.records("faults")[0])
    fault = next(i for i, e in enumerate(events) if e["type"] == "fault")
    events[fault]["substituted"] = "XX"
    verdict = verify_record(write_events(tmp_path / "r.jsonl", events))
    assert verdict.status == "inconsistent"
    assert verdict.problem.startswith(f"line {fault + 1}: the fault says 'XX' was substituted, line {fault + 2} plays ")


# -- the command -------------------------------------------------------------------------------


def test_the_command_gives_one_line_per_bad_record_and_exits_with_how_many_failed(records, events, tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    write_events(folder / "a-good.jsonl", events)
    corrupt = (folder / "a-good.jsonl").read_text().replace('"type": "deal"', '"type": ', 1)
    (folder / "b-corrupt.jsonl").write_text(corrupt)
    write_events(folder / "c-cut.jsonl", events[:12])
    tampered = [dict(e) for e in events]
    tampered[-1] = {**tampered[-1], "winners": [9]}
    write_events(folder / "d-tampered.jsonl", tampered)
    run = waraq("replay", "--verify", str(folder))
    assert run.returncode == 3, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert [line.split(": ")[1].split(",")[0] for line in lines[:4]] == ["ok", "corrupt", "cut short", "inconsistent"]
    assert lines[1].startswith(f"{folder / 'b-corrupt.jsonl'}: corrupt: line 3 is not JSON")
    assert lines[2] == f"{folder / 'c-cut.jsonl'}: cut short: no result line; readable up to line 12 (round 1, trick 2)"
    assert lines[4] == "4 records: 1 ok, 3 failed"
    assert "Traceback" not in run.stdout + run.stderr


def test_the_command_exits_0_when_every_record_verifies(records):
    run = waraq("replay", "--verify", str(records.root / "clean"), str(records.records("two")[0]))
    assert run.returncode == 0
    assert run.stdout.splitlines()[-1] == "3 records: 3 ok, 0 failed"


@pytest.mark.parametrize(
    "make, status",
    [
        (lambda p, lines: p.write_text("\n".join(lines)), "cut short"),  # no newline after the last line
        (lambda p, lines: p.write_text("\n".join([*lines[:2], "{not json", *lines[2:]]) + "\n"), "corrupt"),
        (lambda p, lines: None, "unreadable"),  # no file at all
    ],
    ids=["cut-short", "damaged", "missing"],
)
def test_replay_tells_why_reading_stopped_from_the_reader_not_its_words(events, tmp_path, monkeypatch, make, status):
    from waraq.referee.records import record_file
    from waraq.referee.replay import walk

    path = tmp_path / "r.jsonl"
    make(path, [json.dumps(e) for e in events])
    real = record_file.read_record

    def reworded(p):  # the same record, its problem told in other words
        record = real(p)
        record.problem = record.problem and f"[reworded] {record.problem.upper()}"
        return record

    monkeypatch.setattr(walk, "read_record", reworded)
    assert load(path).status == status
