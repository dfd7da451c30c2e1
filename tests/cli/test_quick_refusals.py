"""A check-bot option that used to pass on a typo now refuses it (issue 30, item 8).

``check-bot --only CASE`` with no such case checked nothing and exited 0, so a
typo in CI always passed: now it is exit status 2 and one line naming it and
the cases there are.
"""

from __future__ import annotations

from waraq.referee.cli.main import main
from waraq.referee.conformance.check import case_ids, unknown_cases


def test_an_unknown_only_case_is_exit_2_naming_it_and_listing_the_cases(tmp_path, capsys):
    folder = tmp_path / "check"
    status = main(["check-bot", "random", "--only", "timing.", "--only", "hokm-4.bamm", "--record", str(folder)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(lines) == 1, lines
    assert lines[0] == (
        "error: --only hokm-4.bamm: matches no case (give a case id or its beginning); the cases: "
        + ", ".join(case_ids())
    )
    assert not folder.exists()  # refused before the bot or its records folder


def test_several_unknown_cases_are_named_together(capsys):
    assert main(["check-bot", "random", "--only", "hokm-5.", "--only", "Timing."]) == 2
    assert capsys.readouterr().err.startswith("error: --only hokm-5., Timing.: match no case ")


def test_the_known_cases_are_every_game_count_and_kind_and_a_beginning_of_one_is_known():
    known = case_ids()
    assert {"startup.ready", "hello.games", "end.sigterm", "notes.size", "timing.deadline", "compat.unknown-fields",
            "hokm-4.bam", "hokm-2.draw-visible", "hokm-3.redeal", "hand-2.turn-swap", "hand-4.take"} <= set(known)
    assert not any(case.startswith(("hokm-4.discard", "hand-4.trump", "hokm-3.bam")) for case in known)
    assert unknown_cases(["timing.", "hokm-4.", "hand-", "hokm-4.bam", "end.sigterm", ""]) == []
    assert unknown_cases(["hokm-4.bamm", "timing", "hokm-1."]) == ["hokm-4.bamm", "hokm-1."]
