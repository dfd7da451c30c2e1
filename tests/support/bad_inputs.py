"""Bad inputs a user would plausibly give to every ``waraq`` command, each with what it must answer.

Each :class:`Case` is one command line run as a real process in a folder of
its own (made by its ``setup``), with what the answer must be: its exit
status, and the fragments its one error line must hold (the file, key or
value, and what is allowed). ``tests/cli/test_bad_input.py`` runs them all; the
count of cases is the count of bad inputs tried, and every one that passes
gave no traceback.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.ladders import make
from tests.support.replay_records import hand_worked

Setup = Callable[[Path], None]


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]
    status: int  # the exit status it must give
    says: tuple[str, ...] = ()  # fragments of its stderr (the error line)
    setup: Setup | None = None
    one_line: bool = True  # stderr is that one error line
    stdin: str = ""
    port: bool = False  # {port} in args is a port in use, held while the case runs
    env: dict[str, str] = field(default_factory=dict)
    # Parts of the machine it needs (tests/support/system.py): a case that launches a bot prints one
    # line more, the unconfined warning, where there is no sandbox.
    system: tuple[str, ...] = ()


# -- what the cases stand on --------------------------------------------------------------------


def write(name: str, content: bytes | str) -> Setup:
    def setup(here: Path) -> None:
        path = here / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())

    return setup


def record(name: str = "r.jsonl", change: Callable[[list[dict]], list[dict]] | None = None) -> Setup:
    """The hand-worked record (tests/support/replay_records.py), changed by ``change``."""

    def setup(here: Path) -> None:
        path = hand_worked(here / name)
        if change is not None:
            events = [json.loads(line) for line in path.read_text().splitlines()]
            path.write_text("".join(json.dumps(e) + "\n" for e in change(events)))

    return setup


def ladder(toml: Callable[[str], str] | None = None, database: bytes | None = None) -> Setup:
    """A ladder in ``L/`` with three random bots; its ladder.toml or database replaced if given."""

    def setup(here: Path) -> None:
        path = make(here / "L", THREE_RANDOM)
        if toml is not None:
            config = path / "ladder.toml"
            config.write_text(toml(config.read_text()))
        if database is not None:
            (path / "ladder.sqlite").write_bytes(database)

    return setup


def append(name: str, text: str) -> Setup:
    def setup(here: Path) -> None:
        with (here / name).open("a") as file:
            file.write(text)

    return setup


def both(*setups: Setup) -> Setup:
    def setup(here: Path) -> None:
        for each in setups:
            each(here)

    return setup


def a_folder(name: str) -> Setup:
    return lambda here: (here / name).mkdir(parents=True)


DEEP_TOML = "x = " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_LINE = '{"type": "x", "a": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
NOT_UTF8 = b'target_score = 5\nvoid_rule = "\xff\xfe"\n'
ANOTHER_DB = bytes.fromhex("53514c69746520666f726d6174203300") + bytes(4096 - 16)  # an SQLite header, nothing else
SHORT = ("--rules", "short", "--startup-ms", "20000")
SANDBOX = ("sandbox",)
THREE_RANDOM = {"a": "random", "b": "random", "c": "random"}


def seat_bot(name: str) -> Callable[[list[dict]], list[dict]]:
    def change(events: list[dict]) -> list[dict]:
        events[0]["seats"][1]["bot"] = name
        return events

    return change


def header(**fields: object) -> Callable[[list[dict]], list[dict]]:
    def change(events: list[dict]) -> list[dict]:
        events[0].update(fields)
        return events

    return change


# -- the cases ------------------------------------------------------------------------------------

MATCH = [
    Case("match-games-0", ("match", "--bots", "random", "--games", "0"), 2, ("argument --games: 0", "integer >= 1")),
    Case("match-games-negative", ("match", "--bots", "random", "--games", "-3"), 2, ("--games: -3", ">= 1")),
    Case(
        "match-games-word", ("match", "--bots", "random", "--games", "many"), 2, ("--games: 'many' is not an integer",)
    ),
    Case("match-concurrency-0", ("match", "--bots", "random", "--concurrency", "0"), 2, ("--concurrency: 0", ">= 1")),
    Case("match-max-faults-0", ("match", "--bots", "random", "--max-faults", "0"), 2, ("--max-faults: 0", ">= 1")),
    Case(
        "match-decision-ms-negative",
        ("match", "--bots", "random", "--decision-ms", "-5"),
        2,
        ("--decision-ms: -5", "> 0"),
    ),
    Case(
        "match-decision-ms-inf",
        ("match", "--bots", "random", "--decision-ms", "inf"),
        2,
        ("--decision-ms: inf", "finite"),
    ),
    Case("match-bank-ms-nan", ("match", "--bots", "random", "--bank-ms", "nan"), 2, ("--bank-ms: nan", "finite")),
    Case("match-startup-ms-0", ("match", "--bots", "random", "--startup-ms", "0"), 2, ("--startup-ms: 0", "> 0")),
    Case("match-seed-word", ("match", "--bots", "random", "--seed", "x"), 2, ("--seed", "'x'")),
    Case(
        "match-five-bots-four-seats",
        ("match", "--bots", *["random"] * 5),
        2,
        ("--bots: 5 bots for 4 seats", "at most 4"),
    ),
    Case(
        "match-three-bots-two-seats",
        ("match", "--rules", "two", "--bots", "random", "heuristic", "random"),
        2,
        ("3 bots for 2 seats",),
    ),
    Case("match-empty-bot", ("match", "--bots", ""), 2, ("bot '' is none of",)),
    Case("match-bot-no-port", ("match", "--bots", "my bot.py"), 2, ("bot 'my bot.py' is none of", "{port}")),
    # '²' is a digit to str.isdigit(), not to int() or gRPC: an address needs ASCII digits.
    Case("match-bot-superscript-port", ("match", "--bots", "127.0.0.1:²"), 2, ("bot '127.0.0.1:²' is none of",)),
    Case(
        "match-page-superscript-port",
        ("match", "--bots", "human", "random", "--page", "127.0.0.1:²"),
        2,
        ("--page '127.0.0.1:²'", "expected HOST:PORT"),
    ),
    Case("match-unknown-game", ("match", "--bots", "random", "--game", "poker"), 2, ("--game", "'poker'")),
    Case("match-unknown-policy", ("match", "--bots", "random", "--policy", "lenient"), 2, ("--policy", "'lenient'")),
    Case("match-unknown-preset", ("match", "--bots", "random", "--rules", "quick"), 2, ("'quick'", "classic, short")),
    Case(
        "match-rules-missing", ("match", "--bots", "random", "--rules", "none.toml"), 2, ("'none.toml' does not exist",)
    ),
    Case(
        "match-rules-folder",
        ("match", "--bots", "random", "--rules", "house"),
        2,
        ("'house'", "Is a directory"),
        a_folder("house"),
    ),
    Case(
        "match-rules-not-utf8",
        ("match", "--bots", "random", "--rules", "h.toml"),
        2,
        ("'h.toml'", "not UTF-8"),
        write("h.toml", NOT_UTF8),
    ),
    Case(
        "match-rules-deep",
        ("match", "--bots", "random", "--rules", "h.toml"),
        2,
        ("'h.toml'", "nested too deeply"),
        write("h.toml", DEEP_TOML),
    ),
    Case(
        "match-rules-huge-target",
        ("match", "--bots", "random", "--rules", "h.toml"),
        2,
        ("h.toml", "'target_score' = 100000000000000000000", "from 1 to 100"),
        write("h.toml", "target_score = 100000000000000000000\n"),
    ),
    Case(
        "match-rules-bad-key",
        ("match", "--bots", "random", "--rules", "h.toml"),
        2,
        ("h.toml", "'trump_rule'", "valid keys"),
        write("h.toml", "trump_rule = 1\n"),
    ),
    Case(
        "match-rules-binary",
        ("match", "--bots", "random", "--rules", "h.toml"),
        2,
        ("'h.toml'", "not valid TOML"),
        write("h.toml", bytes(range(256))),
    ),
    Case(
        "match-record-is-a-file",
        ("match", "--bots", "random", *SHORT, "--record", "out"),
        2,
        ("--record out", "is a file"),
        write("out", "x"),
    ),
    Case(
        "match-record-under-a-file",
        ("match", "--bots", "random", *SHORT, "--record", "out/records"),
        1,
        ("cannot write out/records/waraq-hokm-run.json",),
        write("out", "x"),
    ),
    Case(
        "match-record-unwritable",
        ("match", "--bots", "random", *SHORT, "--record", "/proc/waraq-records"),
        1,
        ("cannot write /proc/waraq-records/waraq-hokm-run.json",),
    ),
    Case(
        "match-record-another-run",
        ("match", "--bots", "random", *SHORT, "--record", "old"),
        2,
        ("old/ holds 1 hokm record(s) of another run", "--overwrite"),
        record("old/hokm-1.jsonl"),
    ),
    Case(
        "match-bot-does-not-start",
        ("match", "--bots", "false {port}", "random", *SHORT, "--games", "2", "--record", "out"),
        1,
        ("bot false {port} failed to start",),
        system=SANDBOX,
    ),
    Case(
        "match-bot-command-missing",
        ("match", "--bots", "no-such-program --port {port}", *SHORT, "--record", "out"),
        1,
        ("bot no-such-program --port {port} failed to start",),
        system=SANDBOX,
    ),
]

PLAY_AND_RULES = [
    Case("play-unknown-preset", ("play", "--rules", "quick"), 2, ("'quick'",)),
    Case("play-seed-word", ("play", "--seed", "seven"), 2, ("--seed", "'seven'")),
    Case("play-hand-tricks", ("play", "--game", "hand", "--tricks"), 2, ("--tricks is for Hokm",)),
    Case("play-rules-deep", ("play", "--rules", "h.toml"), 2, ("nested too deeply",), write("h.toml", DEEP_TOML)),
    Case("rules-unknown", ("rules", "quick"), 2, ("'quick' is neither a hokm preset",)),
    Case("rules-folder", ("rules", "house"), 2, ("Is a directory",), a_folder("house")),
    Case("rules-not-utf8", ("rules", "h.toml"), 2, ("'h.toml'", "not UTF-8 (byte 0xff"), write("h.toml", NOT_UTF8)),
    Case(
        "rules-deep-tables",
        ("rules", "h.toml"),
        2,
        ("'h.toml'", "nested too deeply"),
        write("h.toml", "x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n"),
    ),
    Case(
        "rules-huge-kot",
        ("rules", "h.toml"),
        2,
        ("'kot_points' = 4294967296", "from 1 to 100"),
        write("h.toml", "kot_points = 4294967296\n"),
    ),
    Case(
        "rules-hand-bad-value",
        ("rules", "--game", "hand", "h.toml"),
        2,
        ("'rounds' = 0", "from 1 to 20"),
        write("h.toml", "rounds = 0\n"),
    ),
    Case(
        "rules-hokm-file-for-hand",
        ("rules", "--game", "hand", "h.toml"),
        2,
        ("unknown hand rule key 'target_score'",),
        write("h.toml", "target_score = 3\n"),
    ),
    Case(
        "rules-bad-preset-in-file",
        ("rules", "h.toml"),
        2,
        ("unknown hokm preset 'fast'",),
        write("h.toml", 'preset = "fast"\n'),
    ),
]

REPLAY = [
    Case("replay-missing", ("replay", "none.jsonl"), 1, ("none.jsonl: unreadable: No such file or directory",)),
    Case("replay-a-folder", ("replay", "recs"), 2, ("give one record to show",), a_folder("recs")),
    Case(
        "replay-binary",
        ("replay", "r.jsonl"),
        1,
        ("r.jsonl: corrupt: line 1 is not JSON",),
        write("r.jsonl", bytes(range(256)) * 4),
    ),
    Case(
        "replay-not-gzip",
        ("replay", "r.jsonl.gz"),
        1,
        ("r.jsonl.gz", "gzip stream damaged"),
        write("r.jsonl.gz", '{"type": "match"}\n'),
    ),
    Case(
        "replay-gzip-cut",
        ("replay", "r.jsonl.gz"),
        1,
        ("r.jsonl.gz",),
        write("r.jsonl.gz", gzip.compress(b'{"type": "match"}\n' * 50)[:30]),
    ),
    Case(
        "replay-deep-line",
        ("replay", "r.jsonl"),
        1,
        ("line 35 is nested too deeply", "readable up to line 34"),
        both(record(), append("r.jsonl", DEEP_LINE)),
    ),
    Case(
        "replay-huge-number",
        ("replay", "r.jsonl"),
        1,
        ("line 1 is not readable JSON", "4300 digits"),
        write("r.jsonl", '{"type": "match", "seed": ' + "9" * 5000 + "}\n"),
    ),
    Case("replay-empty", ("replay", "r.jsonl"), 1, ("r.jsonl: cut short",), write("r.jsonl", "")),
    Case(
        "replay-seat-out-of-range",
        ("replay", "r.jsonl", "--seat", "9"),
        2,
        ("no seat 9 in a 4-player match",),
        record(),
    ),
    Case("replay-seat-negative", ("replay", "r.jsonl", "--seat", "-1"), 2, ("no seat -1",), record()),
    Case("replay-round-missing", ("replay", "r.jsonl", "--round", "99"), 2, ("no round 99 in this record",), record()),
    Case("replay-trick-without-round", ("replay", "r.jsonl", "--trick", "2"), 2, ("--trick needs --round",), record()),
    Case(
        "replay-two-modes",
        ("replay", "r.jsonl", "--step", "--json"),
        2,
        ("--step and --json do not go together",),
        record(),
    ),
    Case(
        "replay-seed-word",
        ("replay", "r.jsonl"),
        1,
        ("line 1: seed 'x' is not an integer",),
        record(change=header(seed="x")),
    ),
    Case(
        "replay-header-rules-not-object",
        ("replay", "r.jsonl"),
        1,
        ("the header's rules are not an object",),
        record(change=header(rules=[1, 2])),
    ),
    Case(
        "replay-header-deep-rules",
        ("replay", "r.jsonl"),
        1,
        ("line 1: the header's rules are not valid",),
        record(change=header(rules={"target_score": [[[[[[[[[[[[[1]]]]]]]]]]]]]})),
    ),
    Case("verify-missing", ("replay", "--verify", "none.jsonl"), 1, (), one_line=False),
    Case("verify-empty-folder", ("replay", "--verify", "recs"), 1, (), a_folder("recs"), one_line=False),
    Case(
        "verify-binary",
        ("replay", "--verify", "r.jsonl"),
        1,
        (),
        write("r.jsonl", bytes(range(256)) * 4),
        one_line=False,
    ),
    Case(
        "verify-deep-line",
        ("replay", "--verify", "r.jsonl"),
        1,
        (),
        write("r.jsonl", '{"type": "match"}\n' + DEEP_LINE),
        one_line=False,
    ),
    Case("verify-seed-word", ("replay", "--verify", "r.jsonl"), 1, (), record(change=header(seed="x")), one_line=False),
    Case(
        "verify-not-gzip",
        ("replay", "--verify", "r.jsonl.gz"),
        1,
        (),
        write("r.jsonl.gz", "plain text\n"),
        one_line=False,
    ),
    Case(
        "ask-no-records",
        ("replay", "recs", "--ask", "random"),
        2,
        ("no records (*.jsonl, *.jsonl.gz) in recs",),
        a_folder("recs"),
    ),
    Case("ask-bad-bot", ("replay", "r.jsonl", "--ask", "no bot here"), 2, ("bot 'no bot here' is none of",), record()),
    Case(
        "ask-bot-does-not-start",
        ("replay", "r.jsonl", "--ask", "false {port}", "--startup-ms", "20000"),
        2,
        ("bot false {port} could not be made ready",),
        record(),
        system=SANDBOX,
    ),
    Case(
        "ask-startup-ms-0",
        ("replay", "r.jsonl", "--ask", "random", "--startup-ms", "0"),
        2,
        ("--startup-ms: 0",),
        record(),
    ),
]

BOT_SERVE = [
    Case(
        "serve-port-70000",
        ("bot", "serve", "random", "--port", "70000"),
        2,
        ("--port: 70000 is not a port", "0 to 65535"),
    ),
    Case("serve-port-negative", ("bot", "serve", "random", "--port", "-1"), 2, ("--port: -1 is not a port",)),
    Case("serve-port-word", ("bot", "serve", "random", "--port", "http"), 2, ("--port: 'http' is not a port",)),
    Case(
        "serve-port-in-use", ("bot", "serve", "random", "--port", "{port}"), 1, ("Address already in use",), port=True
    ),
    Case("serve-socket-no-folder", ("bot", "serve", "random", "--unix", "none/bot.sock"), 1, ("no folder none",)),
    Case("serve-unknown-bot", ("bot", "serve", "genius"), 2, ("'genius'",)),
]

LADDER = [
    Case("ladder-init-twice", ("ladder", "init", "L"), 2, ("L holds a ladder already",), ladder()),
    Case("ladder-init-a-file", ("ladder", "init", "L"), 2, ("L exists and is not a folder",), write("L", "x")),
    Case(
        "ladder-init-rules-deep",
        ("ladder", "init", "L", "--rules", "h.toml"),
        2,
        ("'h.toml'", "nested too deeply"),
        write("h.toml", DEEP_TOML),
    ),
    Case("ladder-init-seed-negative", ("ladder", "init", "L", "--seed", "-1"), 2, ("seed = -1", ">= 0")),
    Case("ladder-not-a-ladder", ("ladder", "show", "-C", "nothing"), 2, ("nothing/ladder.toml does not exist",)),
    Case("ladder-add-bad-name", ("ladder", "add", "my bot", "random", "-C", "L"), 2, ('name = "my bot"',), ladder()),
    Case("ladder-add-bad-spec", ("ladder", "add", "x", "my bot", "-C", "L"), 2, ("bot 'my bot' is none of",), ladder()),
    Case(
        "ladder-add-does-not-start",
        ("ladder", "add", "x", "false {port}", "-C", "L"),
        2,
        ("bot x (false {port}) did not start", "--no-check"),
        ladder(),
        system=SANDBOX,
    ),
    Case(
        "ladder-remove-unknown", ("ladder", "remove", "zed", "-C", "L"), 2, ("no bot 'zed'", "bots: a, b, c"), ladder()
    ),
    Case(
        "ladder-reinstate-unknown",
        ("ladder", "reinstate", "zed", "-C", "L"),
        2,
        ("'zed' is not a suspended bot",),
        ladder(),
    ),
    Case("ladder-run-matches-0", ("ladder", "run", "--matches", "0", "-C", "L"), 2, ("--matches 0", ">= 1"), ladder()),
    Case(
        "ladder-run-concurrency-0",
        ("ladder", "run", "--concurrency", "0", "-C", "L"),
        2,
        ("--concurrency 0",),
        ladder(),
    ),
    Case(
        "ladder-run-confidence-2",
        ("ladder", "run", "--until-stable", "--confidence", "2", "-C", "L"),
        2,
        ("--confidence 2.0", "[0.5, 1)"),
        ladder(),
    ),
    Case(
        "ladder-run-both-goals",
        ("ladder", "run", "--matches", "3", "--more", "2", "-C", "L"),
        2,
        ("not allowed with argument",),
        ladder(),
    ),
    Case(
        "ladder-export-missing-folder",
        ("ladder", "export", "--csv", "-o", "missing/x.csv", "-C", "L"),
        2,
        ("-o missing/x.csv: cannot write it: No such file or directory",),
        ladder(),
    ),
    Case(
        "ladder-export-to-a-folder",
        ("ladder", "export", "--json", "-o", "D", "-C", "L"),
        2,
        ("-o D: cannot write it: Is a directory",),
        both(ladder(), a_folder("D")),
    ),
    Case(
        "ladder-export-onto-the-ladder",
        ("ladder", "export", "--json", "-o", "L", "-C", "L"),
        2,
        ("-o L is the ladder folder: refusing to write there",),
        ladder(),
    ),
    Case(
        "ladder-export-over-the-key",
        ("ladder", "export", "--csv", "-o", "L/ladder.key", "-C", "L"),
        2,
        ("-o L/ladder.key is the ladder's deal key: refusing to write over an input",),
        ladder(),
    ),
    Case(
        "ladder-report-over-the-database",
        ("ladder", "report", "--html", "L/ladder.sqlite", "-C", "L"),
        2,
        ("--html L/ladder.sqlite is the ladder's database: refusing to write over an input",),
        ladder(),
    ),
    Case(
        "ladder-export-no-format",
        ("ladder", "export", "-C", "L"),
        2,
        ("one of the arguments --csv --json is required",),
        ladder(),
    ),
    Case(
        "ladder-toml-not-utf8",
        ("ladder", "show", "-C", "L"),
        2,
        ("L/ladder.toml is not valid TOML: not UTF-8",),
        both(ladder(), lambda here: (here / "L" / "ladder.toml").write_bytes(NOT_UTF8)),
    ),
    Case(
        "ladder-toml-deep",
        ("ladder", "run", "-C", "L"),
        2,
        ("L/ladder.toml is not valid TOML", "nested too deeply"),
        ladder(toml=lambda text: DEEP_TOML + text),
    ),
    Case(
        "ladder-toml-run-table",
        ("ladder", "run", "-C", "L"),
        2,
        ("[run] concurrency = 0", "integer >= 1"),
        ladder(toml=lambda text: text.replace("concurrency = 8", "concurrency = 0")),
    ),
    Case(
        "ladder-toml-bots-table",
        ("ladder", "show", "-C", "L"),
        2,
        ("[[bots]] number 4 has no spec",),
        ladder(toml=lambda text: text + '\n[[bots]]\nname = "d"\n'),
    ),
    Case(
        "ladder-toml-huge-target",
        ("ladder", "show", "-C", "L"),
        2,
        ("[rules]", "'target_score' = 100000000000000000000"),
        ladder(toml=lambda text: text.replace("target_score = 1", "target_score = 100000000000000000000")),
    ),
    Case(
        "ladder-database-missing",
        ("ladder", "show", "-C", "L"),
        2,
        ("L/ladder.sqlite is missing",),
        both(ladder(), lambda here: (here / "L" / "ladder.sqlite").unlink()),
    ),
    Case(
        "ladder-database-other-sqlite",
        ("ladder", "show", "-C", "L"),
        2,
        ("L/ladder.sqlite",),
        ladder(database=ANOTHER_DB),
    ),
    Case(
        "ladder-database-text",
        ("ladder", "run", "-C", "L"),
        2,
        ("L/ladder.sqlite is damaged",),
        ladder(database=b"not a database\n" * 100),
    ),
]

OTHERS = [
    Case(
        "replay-html-over-its-record",
        ("replay", "r.jsonl", "--html", "r.jsonl"),
        2,
        ("--html r.jsonl is the record read: refusing to write over an input",),
        record(),
    ),
    Case(
        "check-bot-only-unknown",
        ("check-bot", "random", "--only", "hokm-4.bamm"),
        2,
        ("--only hokm-4.bamm: matches no case", "hokm-4.bam,"),
    ),
    Case("no-command", (), 2, ("the following arguments are required: command",)),
    Case("unknown-command", ("duel",), 2, ("invalid choice: 'duel'",)),
    Case(
        "replay-trick-missing",
        ("replay", "r.jsonl", "--round", "1", "--trick", "99"),
        2,
        ("no trick 99 in round 1",),
        record(),
    ),
    Case(
        "play-hand-with-hokm-keys",
        ("play", "--game", "hand", "--rules", "h.toml"),
        2,
        ("h.toml", "unknown hand rule key 'void_rule'"),
        write("h.toml", 'void_rule = "free"\n'),
    ),
    Case("ladder-init-unknown-preset", ("ladder", "init", "L", "--rules", "quick"), 2, ("'quick'",)),
    Case(
        "ladder-run-cap-0",
        ("ladder", "run", "--until-stable", "--cap", "0", "-C", "L"),
        2,
        ("--cap 0", ">= 1"),
        ladder(),
    ),
    Case(
        "ladder-toml-a-folder",
        ("ladder", "show", "-C", "L"),
        2,
        ("L/ladder.toml cannot be read: Is a directory",),
        a_folder("L/ladder.toml"),
    ),
    Case("ladder-dir-a-file", ("ladder", "run", "-C", "L"), 2, ("L/ladder.toml",), write("L", "x")),
]

CASES = [*MATCH, *PLAY_AND_RULES, *REPLAY, *BOT_SERVE, *LADDER, *OTHERS]


def prepare(case: Case, here: Path) -> None:
    """The case's folder, made anew."""
    shutil.rmtree(here, ignore_errors=True)
    here.mkdir(parents=True)
    if case.setup is not None:
        case.setup(here)


def environment(case: Case) -> dict[str, str]:
    return {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **case.env}
