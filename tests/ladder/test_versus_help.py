"""`waraq versus --help` gives the fewest boards the default SPRT can stop after, as the
test's own code counts them (issue 32: about 35 boards even for a 500 Elo gap)."""

from __future__ import annotations

import argparse

from waraq.ladder.commands import versus
from waraq.ladder.stats.sprt import Decision, Sprt, fewest_boards


def help_text() -> str:
    commands = argparse.ArgumentParser(prog="waraq").add_subparsers()
    versus.register(commands)
    return " ".join(commands.choices["versus"].format_help().split())


def test_the_sprt_help_says_after_how_many_boards_the_default_can_accept_h1_at_the_fewest():
    default = Sprt(*versus.DEFAULT_SPRT)
    assert fewest_boards(default) == 36  # ln 19 / ln(2 × 0.543066) = 35.6 (tests/ladder/test_sprt.py)
    said = help_text()
    assert "default: 0 30 0.05 0.05; 30 Elo is a 54 % score" in said
    assert "the default accepts H1 after 36 boards at the fewest, when A wins every one" in said
    assert f"(H0: {fewest_boards(default, Decision.H0)} boards, every one lost)" in said
