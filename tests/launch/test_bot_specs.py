"""A bot spec, and the name a user may give it in front: ``NAME=SPEC``."""

from __future__ import annotations

import pytest

from waraq.referee.launch.bots import BotSpec, SpecKind, partners_served_together


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


ADDRESS, OTHER = BotSpec.parse("127.0.0.1:50051"), BotSpec.parse("unix:/tmp/other.sock")
RANDOM = BotSpec.parse("random")


@pytest.mark.parametrize(
    ("per_seat", "teams", "partners"),
    [
        ([ADDRESS, RANDOM, ADDRESS, RANDOM], 2, ["0 and 2"]),  # --bots ADDRESS random: a team
        ([ADDRESS, ADDRESS, ADDRESS, ADDRESS], 2, ["0, 1, 2 and 3"]),  # it plays itself
        ([ADDRESS, OTHER, ADDRESS, OTHER], 2, ["0 and 2", "1 and 3"]),
        ([ADDRESS, RANDOM, OTHER, RANDOM], 2, []),  # two servers, one seat each
        ([RANDOM, RANDOM, RANDOM, RANDOM], 2, []),  # launched: a process a seat
        ([ADDRESS, RANDOM, ADDRESS, RANDOM], 4, []),  # Hand classic: each seat alone, no partners
        ([ADDRESS, ADDRESS], 2, []),  # two seats against each other: no partners
    ],
)
def test_an_address_holding_partner_seats_is_named_with_them(per_seat, teams, partners):
    lines = partners_served_together(per_seat, teams)
    assert [line.split("partner seats ")[1].split(":")[0] for line in lines] == partners
    assert all("one server is sent both partners' hands" in line for line in lines)
