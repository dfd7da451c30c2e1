"""Record files: one flushed line per event; a cut or damaged file is read up to its last whole line."""

from __future__ import annotations

import asyncio
import gzip
import os
import subprocess
import sys

import pytest

from waraq.referee.records.record_file import RecordError, RecordWriter, read_record

EVENTS = [{"type": "match", "format": "waraq.record.v1"}] + [
    {"type": "decision", "round": 1, "seat": i % 4, "kind": "PLAY", "action": "AS"} for i in range(200)
]


@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz"])
def test_each_line_is_readable_as_soon_as_it_is_written(tmp_path, name):
    writer = RecordWriter(tmp_path / name)
    for event in EVENTS[:50]:
        writer.write(event)
    # The writer is still open, as during a match: what is flushed reads back whole.
    record = read_record(tmp_path / name)
    assert record.events == EVENTS[:50]
    writer.close()


def test_a_plain_record_cut_mid_line_keeps_every_whole_line(tmp_path):
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as writer:
        for event in EVENTS:
            writer.write(event)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 20])  # a kill in the middle of the last line
    record = read_record(path)
    assert record.events == EVENTS[:-1]
    assert record.problem == f"line {len(EVENTS)} is cut short" and not record.complete


def test_a_gzip_record_cut_short_keeps_what_was_flushed(tmp_path):
    path = tmp_path / "r.jsonl.gz"
    with RecordWriter(path) as writer:
        for event in EVENTS:
            writer.write(event)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    record = read_record(path)
    assert 0 < len(record.events) < len(EVENTS)
    assert record.events == EVENTS[: len(record.events)]


def test_a_line_that_is_not_json_stops_the_reading_there(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"type":"match"}\n{"type":"deal"\n{"type":"decision"}\n')
    record = read_record(path)
    assert len(record.events) == 1 and record.problem.startswith("line 2 is not JSON")


def test_a_missing_file_is_a_problem_not_an_exception(tmp_path):
    record = read_record(tmp_path / "none.jsonl")
    assert record.events == [] and "cannot be read" in record.problem


def test_gzip_records_are_real_gzip(tmp_path):
    path = tmp_path / "r.jsonl.gz"
    with RecordWriter(path) as writer:
        writer.write(EVENTS[0])
    assert gzip.decompress(path.read_bytes()).decode() == '{"type":"match","format":"waraq.record.v1"}\n'


def test_lines_are_compact_utf8_json_whatever_the_values(tmp_path):
    path = tmp_path / "r.jsonl"
    events = [
        {"type": "match", "seed": 2**70},  # beyond orjson's 64 bits: the json module writes it
        {"type": "decision", "note": 'حکم \u2028 "quoted" é', "ms": 0.00001, "bot_ms": 1e16},
    ]
    with RecordWriter(path) as writer:
        for event in events:
            writer.write(event)
    assert read_record(path).events == events
    lines = path.read_bytes().split(b"\n")
    assert lines[0] == b'{"type":"match","seed":1180591620717411303424}'
    assert "حکم".encode() in lines[1] and b", " not in lines[1] and b'": ' not in lines[1]


def test_a_writer_flushes_every_line_in_one_event_loop_then_another_then_outside_any(tmp_path):
    path = tmp_path / "r.jsonl"
    writer = RecordWriter(path)

    async def write(events):
        for event in events:
            writer.write(event)
        await asyncio.sleep(0)  # the loop's next turn: the lines are flushed

    asyncio.run(write(EVENTS[:3]))
    asyncio.run(write(EVENTS[3:6]))  # the first loop is closed by now
    writer.write(EVENTS[6])  # no loop: written at once
    assert read_record(path).events == EVENTS[:7]
    writer.close()


def test_a_short_write_is_retried_not_dropped(tmp_path):
    """A file's write may take only part of the line (a full disk, a size limit): the rest
    is written again, so the writer fails loudly instead of losing the end of a line."""
    script = f"""
import resource, signal
from waraq.referee.records.record_file import RecordWriter
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit, write fails with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (40, 40))
writer = RecordWriter({str(tmp_path / "r.jsonl")!r})
try:
    writer.write({{"type": "note", "text": "x" * 60}})  # one line of 88 bytes: 40 fit
except OSError as error:
    print("failed:", error.strerror)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("failed: File too large")
    assert (tmp_path / "r.jsonl").read_bytes() == b'{"type":"note","text":"' + b"x" * 17


# --- a disk that fills up ---------------------------------------------------------------------


def test_a_full_disk_is_a_record_error_naming_the_file_and_keeps_every_whole_line(small_disk):
    path = small_disk.path / "r.jsonl"
    writer = RecordWriter(path)
    writer.write(EVENTS[0])
    small_disk.fill(leave=0)
    with pytest.raises(RecordError) as raised:
        for event in EVENTS[1:]:
            writer.write(event)
    assert str(raised.value) == f"disk full writing {path}" and raised.value.disk_full
    with pytest.raises(RecordError):  # it stays failed: nothing more is written
        writer.write(EVENTS[1])
    writer.close()  # the failure was told already
    small_disk.free_up()
    record = read_record(path)
    assert record.events == EVENTS[: len(record.events)] and len(record.events) >= 1


async def fill_between_writes(writer: RecordWriter, disk, then: list[dict]) -> None:
    """In a match's loop: a line written, the disk filled, a line too big for what is left
    written at the loop's next turn (random hex: gzip cannot shrink it), then ``then``."""
    writer.write(EVENTS[0])
    await asyncio.sleep(0)
    disk.fill(leave=0)
    writer.write({**EVENTS[1], "note": os.urandom(8192).hex()})
    await asyncio.sleep(0)
    for event in then:
        writer.write(event)


def test_inside_an_event_loop_a_failed_deferred_write_is_raised_by_the_next_call_not_logged(small_disk, capfd):
    path = small_disk.path / "r.jsonl"
    writer = RecordWriter(path)
    with pytest.raises(RecordError, match="disk full writing"):
        asyncio.run(fill_between_writes(writer, small_disk, [EVENTS[2]]))
    assert capfd.readouterr().err == ""  # not the loop's "Exception in callback" and a traceback
    assert read_record(path).events == EVENTS[:1]


def test_a_deferred_failure_no_later_write_raised_is_raised_by_close(small_disk):
    writer = RecordWriter(small_disk.path / "r.jsonl.gz")
    asyncio.run(fill_between_writes(writer, small_disk, []))
    with pytest.raises(RecordError, match="disk full writing"):
        writer.close()


def test_a_record_in_a_folder_that_is_a_file_is_a_record_error_naming_it(tmp_path):
    (tmp_path / "records").write_text("not a folder")
    with pytest.raises(RecordError, match=r"cannot write .*records/r.jsonl: (Not a directory|File exists)"):
        RecordWriter(tmp_path / "records" / "r.jsonl")


def test_a_line_nested_too_deeply_or_with_a_huge_number_stops_the_reading_there(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"type":"match"}\n{"type":"x","a":' + "[" * 100_000 + "]" * 100_000 + "}\n")
    assert read_record(path).problem == "line 2 is nested too deeply to be an event"
    path.write_text('{"type":"match"}\n{"type":"x","a":' + "9" * 5000 + "}\n")
    assert read_record(path).problem.startswith("line 2 is not readable JSON: Exceeds the limit")
