"""``waraq match`` with a person at a seat: a real command, its real page over HTTP, the real record.

The person here is the test, answering through the page's own routes as the
page's script does (tests/browser/test_human_seat.py clicks the real page).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support import ROOT
from tests.support.human import first_legal, play, same_questions, seated

pytestmark = pytest.mark.slow


def _header(record: Path) -> dict:
    return json.loads(record.read_text().splitlines()[0])


def _verify(record: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "replay", str(record), "--verify"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip


TABLES = [  # game, rules (a preset, shortened), the bots by seat (filled in turn), the person's seats
    ("hokm", "short", ("human", "random"), {0, 2}),
    ("hokm", "two", ("human", "random"), {0}),  # the draw and the discard
    ("hokm", "three", ("human", "random", "heuristic"), {0}),
    ("hand", "short", ("human", "random"), {0, 2}),
    ("hand", "partners", ("random", "human"), {1, 3}),
    ("hand", "three", ("heuristic", "random", "human"), {2}),
]
SHORTER = {"hokm": "target_score = 1", "hand": "rounds = 1"}  # one point, one round: the whole table, quickly


@pytest.mark.parametrize(("game", "rules", "bots", "seats"), TABLES, ids=[f"{t[0]}-{t[1]}" for t in TABLES])
def test_a_person_plays_a_whole_match_through_the_page_and_the_record_verifies(tmp_path, game, rules, bots, seats):
    (tmp_path / "rules.toml").write_text(f'preset = "{rules}"\n{SHORTER[game]}\n')
    run = seated("--bots", *bots, "--game", game, "--rules", "rules.toml", "--record", "rec", cwd=tmp_path)
    events = play(run.pages["human"], first_legal, until=lambda _: run.process.poll() is not None)
    status, output = run.finish()
    assert status == 0, output
    (record,) = (tmp_path / "rec").glob(f"{game}-1.jsonl")
    vias = [seat["via"] for seat in _header(record)["seats"]]
    assert vias == ["human" if seat in seats else "launched" for seat in range(len(vias))]
    assert same_questions(events, record, seats) >= 1  # as many as the deal asks the person: each compared
    assert _verify(record).returncode == 0
    # The page was told the end, then offered the match's replay, and nothing of any other seat.
    assert any("end" in e.get("message", {}) for e in events)
    assert any(e.get("door") == "replay" for e in events)
    assert {e["seat"] for e in events} == seats
    # "What would my bot have played here?": the person's decisions re-asked of a bot.
    reask = subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "replay", str(record), "--ask", "heuristic",
         "--seat", str(min(seats))],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert reask.returncode in (0, 1) and "heuristic agrees on" in reask.stdout, reask.stdout + reask.stderr


def test_a_person_who_does_not_answer_times_out_as_a_bot_would(tmp_path):
    run = seated(
        "--bots", "human", "random", "--rules", "short", "--decision-ms", "300", "--bank-ms", "200",
        "--record", "rec", cwd=tmp_path,
    )  # fmt: skip
    events = play(run.pages["human"], lambda *_: None, until=lambda _: run.process.poll() is not None)
    status, output = run.finish()
    assert status == 1
    assert "no_reply" in output or "no reply within 500 ms" in output, output
    (record,) = (tmp_path / "rec").glob("hokm-1.jsonl")
    end = json.loads(record.read_text().splitlines()[-1])
    assert end["reason"] == "forfeit" and set(end["faulty"]) & {0, 2}
    assert any(e.get("door") == "lost" for e in events)


def test_a_page_never_opened_is_a_startup_failure_named_in_one_line(tmp_path):
    run = seated("--bots", "human", "random", "--startup-ms", "300", "--record", "rec", cwd=tmp_path)
    status, output = run.finish()
    assert status == 1
    assert "human's page was not opened within 300 ms" in output


def test_the_page_answers_only_its_person_its_host_and_json(tmp_path):
    run = seated("--bots", "human", "random", "--rules", "short", "--record", "rec", cwd=tmp_path)
    page = run.pages["human"]
    base, token = page.rsplit("/p/", 1)
    try:
        with httpx.Client(timeout=30) as client:
            shell = client.get(page)
            assert shell.status_code == 200 and "script-src 'self'" in shell.headers["content-security-policy"]
            assert shell.headers["referrer-policy"] == "no-referrer" and shell.headers["cache-control"] == "no-store"
            assert client.get(f"{base}/p/{token[:-2]}xx/events").status_code == 404
            assert client.get(page, headers={"Host": "evil.example:80"}).status_code == 421
            assert client.get(f"{base}/assets/desk.py").status_code == 404
            assert client.get(f"{base}/assets/human.js").status_code == 200
            assert client.get(page + "/replay/m-0000").status_code == 404
            form = client.post(page + "/reply", content="match_id=x", headers={"Content-Type": "text/plain"})
            assert form.status_code == 415
            nobody = client.post(page + "/reply", json={"match_id": "m-x", "seat": 0, "message": {}})
            assert nobody.status_code == 404 and "no seat 0" in nobody.json()["error"]
            for body in (b"{", b"[" * 30_000 + b"]" * 30_000):  # the second within the size limit, too deep
                garbage = client.post(page + "/turn", content=body, headers={"Content-Type": "application/json"})
                assert garbage.status_code == 400 and "JSON" in garbage.json()["error"]
    finally:
        play(page, first_legal, until=lambda _: run.process.poll() is not None)
        status, output = run.finish()
    assert status == 0, output


def test_a_page_kept_after_the_run_serves_its_replay_until_ctrl_c_and_the_results_follow(tmp_path):
    run = seated("--bots", "human", "random", "--rules", "short", "--keep-page", "300", "--record", "rec", cwd=tmp_path)
    page = run.pages["human"]
    events = play(page, first_legal, until=lambda seen: any(e.get("door") == "over" for e in seen))
    over = next(e for e in events if e.get("door") == "over")
    assert over["keep_s"] == 300 and run.process.poll() is None  # the run is over, the page still served
    match = next(e["match_id"] for e in events if e.get("door") == "replay")
    with httpx.Client(timeout=30) as client:
        replay = client.get(f"{page}/replay/{match}")
    assert replay.status_code == 200 and "waraq-data" in replay.text
    run.process.send_signal(signal.SIGINT)  # ends the wait, not the command: its results are printed
    status, output = run.finish(timeout=60)
    assert status == 0, output
    assert "keeps its matches' replays for 5 min more" in output and "records in rec/" in output
