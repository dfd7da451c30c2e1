"""A person sits at ``waraq match`` only: where a bot is asked unattended, 'human' is refused in one line."""

from __future__ import annotations

import pytest

from waraq.referee.cli.main import main


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["check-bot", "human"], "check-bot asks a bot, not a person"),
        (["replay", "records", "--ask", "human"], "replay --ask asks a bot, not a person"),
        (["ladder", "add", "me", "human"], "a person takes no ladder seat"),
    ],
)
def test_a_person_is_refused_where_only_a_bot_is_asked(argv, words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["ladder", "init", "."]) == 0
    (tmp_path / "records").mkdir(exist_ok=True)  # a ladder folder holds one
    capsys.readouterr()
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert words in error and "Traceback" not in error and len(error.strip().splitlines()) == 1
    assert "human" not in (tmp_path / "ladder.toml").read_text()
