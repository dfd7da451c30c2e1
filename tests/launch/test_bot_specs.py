"""A bot spec, and the name a user may give it in front: ``NAME=SPEC``."""

from __future__ import annotations

import pytest

from waraq.referee.launch.bots import BotSpec, SpecKind


@pytest.mark.parametrize(
    ("text", "kind", "value", "name"),
    [
        ("random", SpecKind.BUILTIN, "random", ""),
        ("mine=random", SpecKind.BUILTIN, "random", "mine"),
        ("mine=node bot.js --port {port}", SpecKind.COMMAND, "node bot.js --port {port}", "mine"),
        ("v1.2_b-3=127.0.0.1:50051", SpecKind.ADDRESS, "127.0.0.1:50051", "v1.2_b-3"),
        (" mine=random ", SpecKind.BUILTIN, "random", "mine"),  # the spaces around, as a shell may leave them
        # An = inside a command's words is no name: the words before it hold a space.
        ("python bot.py --level=3 --port {port}", SpecKind.COMMAND, "python bot.py --level=3 --port {port}", ""),
        ("./bin/bot=2 {port}", SpecKind.COMMAND, "./bin/bot=2 {port}", ""),  # a path: a /
        ("unix:/tmp/a=b.sock", SpecKind.ADDRESS, "unix:/tmp/a=b.sock", ""),  # an address: a :
    ],
)
def test_a_spec_with_and_without_a_name(text, kind, value, name):
    assert BotSpec.parse(text) == BotSpec(kind, value, name)


def test_a_name_does_not_change_what_the_spec_is_written_as():
    # str() is the spec alone: what a records folder's manifest has always said of a bot.
    assert str(BotSpec.parse("mine=random")) == "random"


def test_the_same_spec_under_two_names_is_two_bots():
    assert BotSpec.parse("a=random") != BotSpec.parse("b=random") != BotSpec.parse("random")


@pytest.mark.parametrize("text", ["=random", "-x=random", "my bot=random"])
def test_a_name_starts_with_a_letter_or_digit_and_holds_no_space(text):
    with pytest.raises(ValueError, match=f"bot '{text}' is none of"):
        BotSpec.parse(text)


def test_a_name_before_nothing_says_which_name():
    with pytest.raises(ValueError, match=r"bot '' \(named 'mine'\) is none of"):
        BotSpec.parse("mine=")
