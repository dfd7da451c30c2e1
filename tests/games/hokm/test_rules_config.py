"""The rules config (docs/rules.md variant table; docs/records.md `rules`, `rules_hash`):
every key checked with a clear message, impossible combinations refused,
presets, overrides, TOML files and the canonical form."""

from __future__ import annotations

import hashlib

import pytest

from waraq.referee.games.cards import parse_card
from waraq.referee.games.hokm.rules import KEYS, PRESETS, HokmRules, RulesError, load_rules

DEFAULTS = {
    "players": 4,
    "target_score": 7,
    "kot_points": 2,
    "hakem_kot_points": 3,
    "void_rule": "free",
    "hakem_rotation": "on_loss",
    "max_redeals": 0,
    "bam": False,
    "removed_cards": [],
    "burn_visible": False,
}


def error_of(raw):
    with pytest.raises(RulesError) as error:
        HokmRules.from_dict(raw)
    return str(error.value)


# -- every key, every kind of bad value --------------------------------------------


@pytest.mark.parametrize(
    "key, value, shown, allowed",
    [
        ("players", 5, "5", ["4", "3", "2"]),
        ("players", "4", '"4"', ["4", "3", "2"]),
        ("players", True, "true", ["4", "3", "2"]),
        ("target_score", 0, "0", ["integer", "1"]),
        ("target_score", 2.5, "2.5", ["integer", "1"]),
        ("target_score", "7", '"7"', ["integer", "1"]),
        ("target_score", 10**20, "100000000000000000000", ["an integer from 1 to 100"]),
        ("target_score", 101, "101", ["an integer from 1 to 100"]),
        ("kot_points", 0, "0", ["integer", "1"]),
        ("kot_points", 2**31, "2147483648", ["an integer from 1 to 100"]),
        ("hakem_kot_points", 101, "101", ["an integer from 1 to 100"]),
        ("max_redeals", 101, "101", ["an integer from 0 to 100"]),
        ("hakem_kot_points", -3, "-3", ["integer", "1"]),
        ("void_rule", "must", '"must"', ['"free"', '"must_trump"']),
        (
            "hakem_rotation",
            "clockwise",
            '"clockwise"',
            ['"on_loss"', '"every_round"', '"on_loss_previous"'],
        ),
        ("max_redeals", -1, "-1", ["integer", "0"]),
        ("max_redeals", True, "true", ["integer", "0"]),
        ("bam", "yes", '"yes"', ["true", "false"]),
        ("bam", 1, "1", ["true", "false"]),
        ("burn_visible", 0, "0", ["true", "false"]),
        ("removed_cards", "2D", '"2D"', ["list of cards"]),
        ("removed_cards", ["2X"], '["2X"]', ["'2X' is not a card"]),
        ("removed_cards", ["2D", "2d"], '["2D", "2d"]', ["twice"]),
    ],
)
def test_a_bad_value_names_the_key_the_value_and_what_is_allowed(key, value, shown, allowed):
    message = error_of({key: value})
    assert f"'{key}'" in message
    assert f"= {shown} " in message
    for fragment in allowed:
        assert fragment in message


def test_every_key_has_a_bad_value_test():
    checked = {
        "players",
        "target_score",
        "kot_points",
        "hakem_kot_points",
        "void_rule",
        "hakem_rotation",
        "max_redeals",
        "bam",
        "burn_visible",
        "removed_cards",
    }
    assert set(KEYS) == checked == set(DEFAULTS)


def test_an_unknown_key_is_named_and_the_valid_keys_listed():
    message = error_of({"player": 3})
    assert "'player'" in message
    for key in KEYS:
        assert key in message


def test_bad_values_are_refused_by_the_constructor_too():
    with pytest.raises(RulesError, match="'players'"):
        HokmRules(players=5)


def test_rules_for_another_game_are_refused():
    assert "hand" in error_of({"game": "hand"})
    assert HokmRules.from_dict({"game": "hokm"}) == HokmRules()


# -- impossible combinations -----------------------------------------------------


@pytest.mark.parametrize(
    "raw, fragments",
    [
        ({"players": 3, "bam": True}, ["'bam'", "2 or 4 players"]),
        ({"burn_visible": True}, ["'burn_visible'", "2 players", "4"]),
        ({"players": 3, "burn_visible": True}, ["'burn_visible'", "2 players", "3"]),
        ({"players": 4, "removed_cards": ["2D"]}, ["'removed_cards'", "4 players", "52"]),
        ({"players": 3, "removed_cards": []}, ["'removed_cards'", "3 players", "51"]),
        ({"players": 2, "removed_cards": ["2D", "2C"]}, ["'removed_cards'", "2 players", "51"]),
    ],
)
def test_impossible_combinations_say_why(raw, fragments):
    message = error_of(raw)
    for fragment in fragments:
        assert fragment in message


def test_bam_and_burn_visible_are_allowed_where_they_make_sense():
    assert HokmRules.from_dict({"players": 2, "bam": True, "burn_visible": True}).bam
    assert HokmRules.from_dict({"players": 4, "bam": True}).bam


# -- defaults, removed cards and the deck --------------------------------------------


def test_defaults():
    assert HokmRules().to_dict() == DEFAULTS


@pytest.mark.parametrize("players, removed, size", [(4, (), 52), (3, ("2D",), 51), (2, ("2D",), 51)])
def test_removed_cards_default_follows_the_player_count(players, removed, size):
    r = HokmRules.from_dict({"players": players})
    assert r.removed_cards == removed
    assert len(r.deck) == size
    assert (parse_card("2D") in r.deck) == (players == 4)


def test_another_removed_card_and_its_spelling():
    r = HokmRules.from_dict({"players": 3, "removed_cards": ["2c"]})
    assert r.removed_cards == ("2C",)
    assert parse_card("2C") not in r.deck and parse_card("2D") in r.deck


# -- presets and overrides ---------------------------------------------------------


def test_presets():
    assert set(PRESETS) == {"classic", "short", "three", "two"}
    assert PRESETS["classic"].to_dict() == DEFAULTS
    assert PRESETS["short"].to_dict() == {**DEFAULTS, "target_score": 3}
    assert PRESETS["three"].to_dict() == {**DEFAULTS, "players": 3, "removed_cards": ["2D"]}
    assert PRESETS["two"].to_dict() == {**DEFAULTS, "players": 2, "removed_cards": ["2D"]}


def test_unknown_preset_lists_the_presets():
    with pytest.raises(RulesError) as error:
        HokmRules.from_dict({"preset": "long"})
    message = str(error.value)
    assert "'long'" in message
    for name in ("classic", "short", "three", "two"):
        assert name in message


@pytest.mark.parametrize(
    "raw, expected",
    [
        ({"preset": "three", "target_score": 5}, {"players": 3, "removed_cards": ["2D"], "target_score": 5}),
        (
            {"preset": "two", "burn_visible": True},
            {"players": 2, "removed_cards": ["2D"], "burn_visible": True},
        ),
        ({"preset": "short", "void_rule": "must_trump"}, {"target_score": 3, "void_rule": "must_trump"}),
        # Overriding the player count brings its own removed-cards default.
        ({"preset": "three", "players": 4}, {"players": 4, "removed_cards": []}),
        ({"preset": "classic", "players": 2}, {"players": 2, "removed_cards": ["2D"]}),
    ],
)
def test_preset_with_overrides(raw, expected):
    assert HokmRules.from_dict(raw).to_dict() == {**DEFAULTS, **expected}


def test_an_override_is_checked_with_its_preset():
    assert "'bam'" in error_of({"preset": "three", "bam": True})
    assert "'target_score'" in error_of({"preset": "short", "target_score": 0})


# -- TOML files ------------------------------------------------------------------


def test_rules_from_a_toml_file(tmp_path):
    path = tmp_path / "three.toml"
    path.write_text(
        '# a short 3-player game\npreset = "three"\ntarget_score = 5\n'
        'void_rule = "must_trump"\nhakem_rotation = "every_round"\n'
    )
    expected = {
        **DEFAULTS,
        "players": 3,
        "removed_cards": ["2D"],
        "target_score": 5,
        "void_rule": "must_trump",
        "hakem_rotation": "every_round",
    }
    assert HokmRules.from_toml(path).to_dict() == expected
    assert load_rules(path).to_dict() == expected
    assert load_rules(str(path)).to_dict() == expected


def test_a_toml_file_with_a_list_of_removed_cards(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text('players = 2\nremoved_cards = ["AC"]\nburn_visible = true\n')
    r = load_rules(path)
    assert (r.players, r.removed_cards, r.burn_visible) == (2, ("AC",), True)


def test_a_malformed_toml_file_says_so(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("players = \n")
    with pytest.raises(RulesError) as error:
        load_rules(path)
    assert "broken.toml" in str(error.value) and "TOML" in str(error.value)


@pytest.mark.parametrize(
    "content, problem",
    [
        (b'target_score = 5\nvoid_rule = "\xff"\n', "not UTF-8 (byte 0xff at offset 30)"),
        (b"removed_cards = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
        (b"x = " + b"{a = " * 3000 + b"1" + b"}" * 3000 + b"\n", "nested too deeply"),
    ],
    ids=["not-utf8", "deep-arrays", "deep-tables"],
)
def test_a_toml_file_that_is_not_utf8_or_nests_too_deeply_is_named_with_the_problem(tmp_path, content, problem):
    path = tmp_path / "house.toml"
    path.write_bytes(content)
    with pytest.raises(RulesError) as error:
        load_rules(path)
    assert str(error.value).startswith(f"rules file {str(path)!r} is not valid TOML: ")
    assert str(error.value).endswith(problem)


def test_a_huge_bad_value_is_quoted_cut_short():
    message = error_of({"target_score": "7" * 10_000})
    assert len(message) < 200 and message.endswith("is not allowed: expected an integer from 1 to 100")


def test_a_missing_toml_file_says_so(tmp_path):
    path = tmp_path / "absent.toml"
    with pytest.raises(RulesError) as error:
        load_rules(path)
    assert "absent.toml" in str(error.value) and "does not exist" in str(error.value)


def test_a_bad_value_in_a_toml_file_names_the_file_and_the_key(tmp_path):
    path = tmp_path / "five.toml"
    path.write_text("players = 5\n")
    with pytest.raises(RulesError) as error:
        load_rules(path)
    assert "five.toml" in str(error.value) and "'players' = 5" in str(error.value)


def test_load_rules_by_preset_name_or_refuses_clearly():
    assert load_rules("three") == PRESETS["three"]
    assert load_rules({"players": 2}) == PRESETS["two"]
    with pytest.raises(RulesError) as error:
        load_rules("nonsense")
    assert "'nonsense'" in str(error.value) and "classic" in str(error.value)


# -- the canonical form and its hash ------------------------------------------------

CLASSIC_JSON = (
    '{"bam":false,"burn_visible":false,"hakem_kot_points":3,"hakem_rotation":"on_loss",'
    '"kot_points":2,"max_redeals":0,"players":4,"removed_cards":[],"target_score":7,'
    '"void_rule":"free"}'
)
THREE_JSON = CLASSIC_JSON.replace('"players":4', '"players":3').replace('"removed_cards":[]', '"removed_cards":["2D"]')


def test_canonical_json_is_sorted_and_compact():
    assert HokmRules().canonical_json() == CLASSIC_JSON
    assert PRESETS["three"].canonical_json() == THREE_JSON


def test_rules_hash_is_the_sha256_of_the_canonical_json():
    assert HokmRules().rules_hash == "sha256:" + hashlib.sha256(CLASSIC_JSON.encode()).hexdigest()
    assert PRESETS["three"].rules_hash == "sha256:" + hashlib.sha256(THREE_JSON.encode()).hexdigest()


def test_the_same_rules_spelled_differently_have_the_same_hash():
    a = HokmRules.from_dict({"preset": "three", "target_score": 7})
    b = HokmRules.from_dict({"players": 3, "removed_cards": ["2d"]})
    assert a == b and a.rules_hash == b.rules_hash
    assert a.rules_hash != HokmRules.from_dict({"players": 3, "target_score": 5}).rules_hash
