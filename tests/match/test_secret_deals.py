"""Secret deals in ``waraq match``: nothing a bot is sent predicts a card it has not seen.

The attacks are the ones a bot author would try, run against real runs of
``waraq match`` (random bots, one-point 2-player Hokm): search seeds for a
match id, and rebuild the first decks from the seeds with the engine, with no
key or an empty one. With every run dealt under a fresh secret key nothing is
found; the control shows that the same search finds keyless play's deals
(where the attack worked). The key the run prints, with the seed, plays the
same deals again, and every record still verifies.
tests/ladder/test_secret_deals.py does the same for a ladder.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support import TEST_BOTS
from tests.support.deals import PYTHON, deck_dealt, first_deck, records_of, verified, waraq
from waraq.referee.games import registry
from waraq.referee.match import secret_deals
from waraq.referee.run.runner import match_id

SNOOPING = TEST_BOTS / "snooping.py"
KEY_PRINTED = re.compile(r"WARAQ_DEAL_KEY=([0-9a-f]{64})")
TIMES = ("ms", "bot_ms", "started")


def without_times(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k not in TIMES} for e in events]


def old_hmac(key: str, message: str) -> str:
    return hmac.new(key.encode(), message.encode(), hashlib.sha256).hexdigest()


# --- waraq match ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """Four runs of ``waraq match``, 4 matches each from seed 3: two with no key given; one with the
    key the first printed, in the environment; one with it on the command line. Seat 1 snoops."""
    work = tmp_path_factory.mktemp("runs")
    rules = work / "rules.toml"
    rules.write_text('preset = "two"\ntarget_score = 1\n')
    snoop = f"{PYTHON} {SNOOPING} --port {{port}}"

    def play(name: str, *extra: str, env: dict[str, str] | None = None) -> tuple[Path, str]:
        out = work / name
        result = waraq(
            "match",
            "--bots",
            "random",
            snoop,
            "--rules",
            str(rules),
            "--games",
            "4",
            "--seed",
            "3",
            "--concurrency",
            "2",
            "--record",
            str(out),
            *extra,
            env=env,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return out, result.stdout

    found = {"fresh": play("fresh"), "fresh-again": play("fresh-again")}
    printed = KEY_PRINTED.search(found["fresh"][1])
    key = printed.group(1) if printed else "none-was-printed"  # the test below says so
    found["env"] = play("env", env={"WARAQ_DEAL_KEY": key})
    found["flag"] = play("flag", "--deal-key", key)
    return found


@pytest.mark.slow
def test_the_printed_key_and_the_seed_play_the_same_deals_and_match_ids_again(runs):
    assert KEY_PRINTED.search(runs["fresh"][1]), "a run with no key given prints its key: " + runs["fresh"][1]
    first = records_of(runs["fresh"][0])
    assert len(first) == 4 and all(events[0]["deal_key"] is True for events in first)
    for again in ("env", "flag"):
        # The same match ids, decks and therefore the same decisions of the seeded random bots.
        assert [without_times(e) for e in records_of(runs[again][0])] == [without_times(e) for e in first]
        assert not KEY_PRINTED.search(runs[again][1]), "a key given is not printed back"
    for name in runs:
        assert verified(runs[name][0]), name


def test_two_runs_with_no_key_given_deal_one_seed_differently(runs):
    one, two = records_of(runs["fresh"][0]), records_of(runs["fresh-again"][0])
    assert [e[0]["seed"] for e in one] == [e[0]["seed"] for e in two] == [3, 4, 5, 6]
    assert not {json.dumps(first_deck(e)) for e in one} & {json.dumps(first_deck(e)) for e in two}
    assert not {e[0]["match_id"] for e in one} & {e[0]["match_id"] for e in two}


def test_no_seed_searched_gives_a_runs_match_id_or_first_deck(runs):
    played = records_of(runs["fresh"][0]) + records_of(runs["fresh-again"][0])
    rules = registry.rules_from_dict("hokm", played[0][0]["rules"])
    ids = {e[0]["match_id"] for e in played}
    decks = {json.dumps(first_deck(e)) for e in played}
    searched_ids, searched_decks = set(), set()
    for seed in range(2000):
        # The id and decks a match of this seed gets with no key, or with an empty one.
        searched_ids |= {match_id(seed), "m-" + old_hmac("", f"waraq-match/match/{seed}")[:16]}
        for dealt in (seed, f"/{seed}", "k-" + old_hmac("", f"waraq-deal/{seed}")):
            searched_decks.add(json.dumps(deck_dealt(rules, dealt)))
    assert not ids & searched_ids
    assert not decks & searched_decks
    # The control: the search does find keyless play's deals (seed 3's).
    assert json.dumps(deck_dealt(rules, 3)) in searched_decks


def test_a_launched_bot_does_not_inherit_the_deal_key(runs):
    for name in runs:
        for events in records_of(runs[name][0]):
            assert events[0]["seats"][1]["bot"] == "snoop-saw-nothing", name


@pytest.mark.parametrize(
    ("flag", "variable", "taken"),
    [
        ("a" * 64, "b" * 64, "a" * 64),  # the flag wins over the variable
        (None, "b" * 64, "b" * 64),
        (None, "", None),
        (None, None, None),
    ],
)
def test_the_given_key_is_the_flag_else_the_variable_and_the_variable_is_taken_away(
    monkeypatch: pytest.MonkeyPatch, flag: str | None, variable: str | None, taken: str | None
) -> None:
    if variable is None:
        monkeypatch.delenv(secret_deals.ENVIRONMENT, raising=False)
    else:
        monkeypatch.setenv(secret_deals.ENVIRONMENT, variable)
    assert secret_deals.take_given_key(flag) == taken
    assert secret_deals.ENVIRONMENT not in os.environ  # a bot launched afterwards cannot inherit it


def test_a_key_pasted_with_its_line_break_is_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(secret_deals.ENVIRONMENT, "c3" * 32 + "\n")
    assert secret_deals.take_given_key(None) == "c3" * 32
    assert secret_deals.take_given_key("c3" * 16 + "\r\n") == "c3" * 16


# Keys a person could give that are easy to guess, or not what the tool prints: (where, key, what is said).
GUESSABLE = {
    "one letter": ("--deal-key", "a", "is 1 hex digit long"),
    "a space": ("--deal-key", " ", "holds whitespace"),
    "a line break": ("--deal-key", "\n", "is 0 hex digits long"),
    "a space inside": ("--deal-key", "5a" * 16 + " " + "5a" * 16, "holds whitespace"),
    "31 digits": ("--deal-key", "7" * 31, "is 31 hex digits long"),
    "129 digits": ("--deal-key", "7" * 129, "is 129 hex digits long"),
    "a word": ("$WARAQ_DEAL_KEY", "my-secret-key", "holds 'm', which is no lower-case hex digit"),
    "upper case": ("$WARAQ_DEAL_KEY", "5A" * 32, "holds 'A', which is no lower-case hex digit"),
    "a tab": ("$WARAQ_DEAL_KEY", "5a" * 32 + "\t", "holds whitespace"),
}


@pytest.mark.slow
@pytest.mark.parametrize("command", ["match", "versus"])
@pytest.mark.parametrize("case", list(GUESSABLE))
def test_a_key_easy_to_guess_is_refused_in_one_line_before_anything_is_made(tmp_path, command, case):
    where, key, said = GUESSABLE[case]
    args = ["--bots", "random"] if command == "match" else ["random", "random"]
    flag = ["--deal-key", key] if where == "--deal-key" else []
    env = {k: v for k, v in os.environ.items() if k != secret_deals.ENVIRONMENT} | {"COLUMNS": "200", "NO_COLOR": "1"}
    if where != "--deal-key":
        env[secret_deals.ENVIRONMENT] = key
    refused = subprocess.run(
        [PYTHON, "-m", "waraq.referee.cli.main", command, *args, "--rules", "short", *flag],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith(f"error: {where} {said}: "), refused.stderr
    assert "a deal key is 32 to 128 hex digits (0-9, a-f)" in refused.stderr
    if len(key) > 8:
        assert key[:8] not in refused.stderr  # never the key: a key mistyped is most of a key
    assert list(tmp_path.iterdir()) == [] and refused.stdout == ""  # no records, no folder: nothing was played
