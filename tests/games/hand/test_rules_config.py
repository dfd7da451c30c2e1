"""Hand's rules config (docs/rules.md "Hand variants"; hand_spec "Rules config"): every key
checked with a clear message, partnership only with 4 players, presets, overrides,
TOML files, the canonical form and its hash, and the registry's view of them."""

from __future__ import annotations

import hashlib

import pytest

from waraq.referee.games import registry
from waraq.referee.games.hand.rules import PRESETS, HandRules, RulesError, load_rules

DEFAULTS = {"players": 4, "partnership": False, "rounds": 5, "opening_points": 51}


def error_of(raw):
    with pytest.raises(RulesError) as error:
        HandRules.from_dict(raw)
    return str(error.value)


# -- every key, every kind of bad value --------------------------------------------


@pytest.mark.parametrize(
    "key, value, shown, allowed",
    [
        ("players", 5, "5", ["2", "3", "4"]),
        ("players", 1, "1", ["2", "3", "4"]),
        ("players", "4", '"4"', ["2", "3", "4"]),
        ("players", True, "true", ["2", "3", "4"]),
        ("partnership", "yes", '"yes"', ["true", "false"]),
        ("partnership", 1, "1", ["true", "false"]),
        ("rounds", 0, "0", ["1", "20"]),
        ("rounds", 21, "21", ["1", "20"]),
        ("rounds", 2.5, "2.5", ["integer"]),
        ("rounds", "5", '"5"', ["integer"]),
        ("rounds", False, "false", ["integer"]),
        ("opening_points", 0, "0", ["1", "500"]),
        ("opening_points", 501, "501", ["1", "500"]),
        ("opening_points", 51.0, "51.0", ["integer"]),
    ],
)
def test_a_bad_value_names_the_key_the_value_and_what_is_allowed(key, value, shown, allowed):
    message = error_of({key: value})
    assert f"'{key}'" in message
    assert f"= {shown} " in message
    for fragment in allowed:
        assert fragment in message


@pytest.mark.parametrize(
    "key, value",
    [("rounds", 1), ("rounds", 20), ("opening_points", 1), ("opening_points", 500), ("players", 2), ("players", 3)],
)
def test_the_ends_of_each_range_are_allowed(key, value):
    assert getattr(HandRules.from_dict({key: value}), key) == value


def test_an_unknown_key_is_named_with_a_guess_and_the_valid_keys():
    message = error_of({"opening_point": 40})
    assert "'opening_point'" in message
    assert "did you mean 'opening_points'" in message
    for key in DEFAULTS:
        assert key in message


def test_a_hokm_key_is_not_a_hand_key():
    message = error_of({"target_score": 3})
    assert "'target_score'" in message and "hand" in message


def test_bad_values_are_refused_by_the_constructor_too():
    with pytest.raises(RulesError, match="'rounds'"):
        HandRules(rounds=0)


def test_rules_for_another_game_are_refused():
    assert "hokm" in error_of({"game": "hokm"})
    assert HandRules.from_dict({"game": "hand"}) == HandRules()


# -- partnership needs four players --------------------------------------------------


@pytest.mark.parametrize("players", [2, 3])
def test_partnership_needs_four_players_and_says_why(players):
    message = error_of({"players": players, "partnership": True})
    assert "'partnership'" in message
    assert "4 players" in message
    assert str(players) in message


def test_partnership_with_four_players():
    rules = HandRules.from_dict({"partnership": True})
    assert rules.partnership and rules.teams == 2


# -- defaults, teams and the deck -------------------------------------------------------


def test_defaults():
    assert HandRules().to_dict() == DEFAULTS


@pytest.mark.parametrize("raw, teams", [({}, 4), ({"players": 3}, 3), ({"players": 2}, 2), ({"partnership": True}, 2)])
def test_teams_are_players_alone_or_two_partnerships(raw, teams):
    assert HandRules.from_dict(raw).teams == teams


def test_the_deck_is_106_cards_two_copies_and_two_jokers():
    # A card is copy * 53 + face: 0..52 the first copy (52 its joker), 53..105 the second.
    assert HandRules().deck == tuple(range(106))
    assert HandRules.from_dict({"players": 2}).deck == tuple(range(106))


# -- presets and overrides ---------------------------------------------------------


def test_presets():
    assert set(PRESETS) == {"classic", "partners", "three", "two", "short"}
    assert PRESETS["classic"].to_dict() == DEFAULTS
    assert PRESETS["partners"].to_dict() == {**DEFAULTS, "partnership": True}
    assert PRESETS["three"].to_dict() == {**DEFAULTS, "players": 3}
    assert PRESETS["two"].to_dict() == {**DEFAULTS, "players": 2}
    assert PRESETS["short"].to_dict() == {**DEFAULTS, "rounds": 1}


def test_unknown_preset_lists_the_presets():
    message = error_of({"preset": "long"})
    assert "'long'" in message
    for name in PRESETS:
        assert name in message


@pytest.mark.parametrize(
    "raw, expected",
    [
        ({"preset": "partners", "rounds": 3}, {"partnership": True, "rounds": 3}),
        ({"preset": "two", "opening_points": 40}, {"players": 2, "opening_points": 40}),
        ({"preset": "short", "players": 3}, {"players": 3, "rounds": 1}),
        ({"preset": "three", "players": 4, "partnership": True}, {"partnership": True}),
    ],
)
def test_preset_with_overrides(raw, expected):
    assert HandRules.from_dict(raw).to_dict() == {**DEFAULTS, **expected}


def test_an_override_is_checked_with_its_preset():
    assert "'partnership'" in error_of({"preset": "three", "partnership": True})
    # The preset's partnership stays, and 3 players cannot have it.
    assert "'partnership'" in error_of({"preset": "partners", "players": 3})


# -- TOML files ------------------------------------------------------------------


def test_rules_from_a_toml_file(tmp_path):
    path = tmp_path / "partners.toml"
    path.write_text('# two teams, three rounds\npreset = "partners"\nrounds = 3\nopening_points = 60\n')
    expected = {**DEFAULTS, "partnership": True, "rounds": 3, "opening_points": 60}
    assert HandRules.from_toml(path).to_dict() == expected
    assert load_rules(path).to_dict() == expected
    assert load_rules(str(path)).to_dict() == expected


def test_a_bad_value_in_a_toml_file_names_the_file_and_the_key(tmp_path):
    path = tmp_path / "three.toml"
    path.write_text("players = 3\npartnership = true\n")
    with pytest.raises(RulesError) as error:
        load_rules(path)
    assert "three.toml" in str(error.value) and "'partnership'" in str(error.value)


def test_a_malformed_or_missing_toml_file_says_so(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("rounds = \n")
    with pytest.raises(RulesError, match="broken.toml.*TOML"):
        load_rules(broken)
    with pytest.raises(RulesError, match="absent.toml.*does not exist"):
        load_rules(tmp_path / "absent.toml")


def test_load_rules_by_preset_name_dict_or_rules_or_refuses_clearly():
    assert load_rules("partners") == PRESETS["partners"]
    assert load_rules({"players": 2}) == PRESETS["two"]
    rules = HandRules(rounds=2)
    assert load_rules(rules) is rules
    with pytest.raises(RulesError) as error:
        load_rules("nonsense")
    assert "'nonsense'" in str(error.value) and "classic" in str(error.value)


# -- the canonical form and its hash ------------------------------------------------

CLASSIC_JSON = '{"opening_points":51,"partnership":false,"players":4,"rounds":5}'
PARTNERS_JSON = '{"opening_points":51,"partnership":true,"players":4,"rounds":5}'


def test_canonical_json_is_sorted_and_compact():
    assert HandRules().canonical_json() == CLASSIC_JSON
    assert PRESETS["partners"].canonical_json() == PARTNERS_JSON


def test_rules_hash_is_the_sha256_of_the_canonical_json():
    assert HandRules().rules_hash == "sha256:" + hashlib.sha256(CLASSIC_JSON.encode()).hexdigest()
    assert PRESETS["partners"].rules_hash == "sha256:" + hashlib.sha256(PARTNERS_JSON.encode()).hexdigest()


def test_the_same_rules_spelled_differently_have_the_same_hash():
    a = HandRules.from_dict({"preset": "partners", "rounds": 5})
    b = HandRules.from_dict({"partnership": True})
    assert a == b and a.rules_hash == b.rules_hash
    assert a.rules_hash != HandRules().rules_hash


# -- the registry ------------------------------------------------------------------


def test_the_registry_knows_hand():
    assert registry.game_of_rules(HandRules()) == "hand"
    assert registry.presets("hand") is PRESETS
    assert registry.load_rules("hand", "short") == PRESETS["short"]
    assert registry.load_rules("hand", {"players": 3}) == PRESETS["three"]
    assert registry.rules_from_dict("hand", HandRules(rounds=2).to_dict()) == HandRules(rounds=2)
    assert registry.engine("hand").GAME == "hand"
    with pytest.raises(RulesError):
        registry.load_rules("hand", {"target_score": 3})
