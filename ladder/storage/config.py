"""``ladder.toml``: what a ladder plays and how. Read, validated, written back.

A ladder is a folder::

    ladder.toml      this file: game, rules, time control, faults, matchmaking, the bots
    ladder.sqlite    every match planned and played, its result and the ratings (store.py)
    ladder.key       the secret the decks and match ids are drawn under, mode 0600 (key_file.py)
    records/         one match record per match (docs/records.md)

Every key is checked on reading, and a bad one is named with its table, its
value and what is allowed: ``ladder.toml: [matchmaking] batch = 0: expected an
integer >= 1``. The file is written with a comment on every key, so a person
can edit it by hand.
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from waraq.ladder.stats.ratings import Layout, TrueSkillSettings
from waraq.ladder.stats.sequential import DEFAULT_MARGIN
from waraq.referee.common.digits import ascii_digits
from waraq.referee.games import registry
from waraq.referee.games.options import (
    BadValue,
    RulesError,
    TomlProblem,
    boolean,
    integer,
    integer_between,
    one_of,
    quote,
    toml_of,
    toml_value,
)
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec, SpecKind
from waraq.referee.lobby.lobby import GRACE_S
from waraq.referee.match.play import POLICIES, TimeControl

CONFIG = "ladder.toml"
DATABASE = "ladder.sqlite"
RECORDS = "records"
FORMAT = "waraq.ladder.v1"
PARTNERS = ("mixed", "self")
NEW_VERSION = ("new_entry", "same_entry")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}$")


class ConfigError(ValueError):
    """A ladder folder or ``ladder.toml`` that cannot be used: the message says where and why."""


# --- the settings ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Faults:
    policy: str = "forfeit"
    max_faults: int = 3
    suspend_after: int = 3
    start_attempts: int = 2


@dataclass(frozen=True)
class Matchmaking:
    duplicate: bool = True
    partners: str = "mixed"
    batch: int = 16
    candidates: int = 256
    uncertainty_weight: float = 1.0
    quality_weight: float = 1.0
    order_weight: float = 1.0
    balance_weight: float = 1.0


@dataclass(frozen=True)
class RunSettings:
    concurrency: int = 8
    confidence: float = 0.95
    margin: float = DEFAULT_MARGIN
    max_matches: int = 2000
    gzip: bool = False


@dataclass(frozen=True)
class LobbySettings:
    """Where dial-in bots dial (waraq.referee.lobby), and how long a dropped bot's seat is held."""

    address: str = ""  # "": 127.0.0.1 on a free port, printed by `ladder run`
    grace_s: float = GRACE_S


# The [sandbox] keys that are sandbox.Limits' limits: each checked against sandbox.LIMIT_RANGES, their one owner.
LIMITS = ("memory_mb", "cpu_seconds", "processes", "file_mb", "scratch_mb", "cpus")


@dataclass(frozen=True)
class SandboxSettings:
    """How launched bots are confined (waraq.referee.launch.sandbox), and the limits of sandbox.Limits."""

    mode: str = sandbox.Isolation.AUTO.value
    memory_mb: int = sandbox.Limits.memory_mb
    cpu_seconds: int = sandbox.Limits.cpu_seconds
    processes: int = sandbox.Limits.processes
    file_mb: int = sandbox.Limits.file_mb
    scratch_mb: int = sandbox.Limits.scratch_mb
    cpus: int = sandbox.Limits.cpus

    def confinement(self, hidden: tuple[Path, ...]) -> sandbox.Config:
        limits = sandbox.Limits(**{name: getattr(self, name) for name in LIMITS})
        return sandbox.Config(sandbox.Isolation(self.mode), limits, hidden)


@dataclass(frozen=True)
class Bot:
    """A bot as ladder.toml names it; its versions are entries in the database."""

    name: str
    spec: str
    cwd: str = ""  # a command runs here, and its relative paths are read from here
    on_new_version: str = "new_entry"

    @property
    def bot_spec(self) -> BotSpec:
        return BotSpec.parse(self.spec)


@dataclass(frozen=True)
class LadderConfig:
    seed: int
    rules: Any  # the game's rules type: HokmRules, HandRules
    time_control: TimeControl = TimeControl()
    faults: Faults = Faults()
    matchmaking: Matchmaking = Matchmaking()
    run: RunSettings = RunSettings()
    sandbox: SandboxSettings = SandboxSettings()
    lobby: LobbySettings = LobbySettings()
    trueskill: TrueSkillSettings = TrueSkillSettings()
    bots: tuple[Bot, ...] = field(default=())
    game: str = ""  # "" is the game of ``rules``; a game given must be theirs

    def __post_init__(self) -> None:
        game = registry.game_of_rules(self.rules)
        if self.game and self.game != game:
            raise ValueError(f"a {self.game} ladder cannot play {game} rules")
        object.__setattr__(self, "game", game)

    @property
    def layout(self) -> Layout:
        """The matches' sides (teams or each seat alone) and which way their scores count."""
        return Layout.of(self.rules)

    def bot(self, name: str) -> Bot | None:
        return next((b for b in self.bots if b.name == name), None)

    def with_bot(self, bot: Bot) -> LadderConfig:
        """This config with ``bot`` added, or replacing the bot of the same name in its place."""
        if self.bot(bot.name) is None:
            return replace(self, bots=(*self.bots, bot))
        return replace(self, bots=tuple(bot if b.name == bot.name else b for b in self.bots))

    def without_bot(self, name: str) -> LadderConfig:
        return replace(self, bots=tuple(b for b in self.bots if b.name != name))


# --- checking values -------------------------------------------------------------------------

Check = Callable[[Any], Any]


def _number(low: float, high: float, *, open_low: bool = False, open_high: bool = False) -> Check:
    def check(value: Any) -> float:
        if type(value) in (int, float) and math.isfinite(value):
            above = value > low if open_low else value >= low
            below = value < high if open_high else value <= high
            if above and below:
                return float(value)
        if high == INF:
            if low == -INF:
                raise BadValue("expected a number")
            raise BadValue(f"expected a number {'>' if open_low else '>='} {toml_value(low)}")
        left, right = "(" if open_low else "[", ")" if open_high else "]"
        raise BadValue(f"expected a number in {left}{toml_value(low)}, {toml_value(high)}{right}")

    return check


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise BadValue("expected a string")


def _lobby_address(value: Any) -> str:
    text = _text(value)
    host, colon, port = text.rpartition(":")
    if text and not (colon and host and ascii_digits(port) and int(port) < 65536):
        raise BadValue('expected HOST:PORT (e.g. "0.0.0.0:7070"), or "" for 127.0.0.1 on a free port')
    return text


def _bot_name(value: Any) -> str:
    if isinstance(value, str) and NAME.match(value):
        return value
    raise BadValue("expected a name of 1 to 40 letters, digits and _ . + - (starting with a letter or digit)")


def _bot_spec(value: Any) -> str:
    if not isinstance(value, str):
        raise BadValue("expected a string")
    try:
        spec = BotSpec.parse(value)
    except ValueError as error:
        raise BadValue(str(error)) from None
    if spec.kind is SpecKind.HUMAN:
        raise BadValue(
            "a person takes no ladder seat (a ladder's matches are rated and unattended): play one with "
            "`waraq match --bots human BOT`"
        )
    if spec.name:
        raise BadValue(f"{value!r}: a ladder names each bot by its entry, so a spec takes no NAME= ({spec.name!r})")
    return value.strip()


def _limit(name: str) -> Check:
    """The check of a [sandbox] limit: the range sandbox.LIMIT_RANGES gives it."""
    return integer_between(*sandbox.LIMIT_RANGES[name])


INF = math.inf
# Each table: key -> (check, comment written above it). Defaults come from the dataclasses.
TABLES: dict[str, tuple[type, dict[str, tuple[Check, str]]]] = {
    "time_control": (
        TimeControl,
        {
            "decision_ms": (_number(0, INF, open_low=True), "each decision's deadline"),
            "bank_ms": (_number(0, INF, open_low=True), "a seat's time bank for the match, spent past deadlines"),
            "startup_ms": (_number(0, INF, open_low=True), "time a bot has to start and answer Hello"),
        },
    ),
    "faults": (
        Faults,
        {
            "policy": (
                one_of(*POLICIES),
                "forfeit: a fault loses the match for the faulty side; "
                "substitute: a random legal action is played instead",
            ),
            "max_faults": (integer(1), "substitute: a seat's faults in one match that still forfeit it"),
            "suspend_after": (integer(1), "matches with a CRASH or STARTUP fault that suspend a bot"),
            "start_attempts": (integer(1), "tries to start a bot before it is suspended"),
        },
    ),
    "matchmaking": (
        Matchmaking,
        {
            "duplicate": (
                boolean,
                "play each deal once per seating, the bots moved on by one seat each time "
                "(same decks, same first hakem or first player)",
            ),
            "partners": (
                one_of(*PARTNERS),
                "teams: mixed = a bot partners other bots (rates each bot); self = a bot partners itself",
            ),
            "batch": (integer(1), "matches planned at once; a batch is planned from the ratings two batches back"),
            "candidates": (integer(1), "seatings weighed for each match when there are more than this many"),
            "uncertainty_weight": (_number(0, INF), "preference for bots with uncertain ratings (high sigma)"),
            "quality_weight": (_number(0, INF), "preference for close matches (trueskill's match quality)"),
            "order_weight": (_number(0, INF), "preference for opponents whose order is least certain"),
            "balance_weight": (_number(0, INF), "preference for even seats, partners and match counts"),
        },
    ),
    "run": (
        RunSettings,
        {
            "concurrency": (integer(1), "matches played at once"),
            "confidence": (
                _number(0.5, 1, open_high=True),
                "--until-stable: the chance that every verdict is right, over every pair of bots and every look",
            ),
            "margin": (
                _number(0, INF, open_low=True),
                "--until-stable: two bots closer than this many Elo are shown equal (100 Elo: a 64 % expected score)",
            ),
            "max_matches": (integer(1), "--until-stable: stop at this many matches in all if not stable"),
            "gzip": (boolean, "write records as .jsonl.gz"),
        },
    ),
    "sandbox": (
        SandboxSettings,
        {
            "mode": (
                one_of(*(m.value for m in sandbox.Isolation)),
                "auto: confine launched bots where the machine can (`waraq doctor`); "
                "on: or refuse to start them; off: never",
            ),
            "memory_mb": (_limit("memory_mb"), "memory of one bot process and its children (MiB)"),
            "cpu_seconds": (
                _limit("cpu_seconds"),
                "CPU time of one bot process over the whole run (its thinking is bounded by time_control)",
            ),
            "processes": (_limit("processes"), "processes and threads one bot may run at once"),
            "file_mb": (_limit("file_mb"), "largest file a bot may write (MiB)"),
            "scratch_mb": (_limit("scratch_mb"), "size of a bot's private /tmp (MiB), counted in its memory"),
            "cpus": (_limit("cpus"), "whole cores a bot's processes may take together at any moment"),
        },
    ),
    "lobby": (
        LobbySettings,
        {
            "address": (
                _lobby_address,
                'HOST:PORT dial-in bots dial ("": 127.0.0.1, a free port); not loopback needs TLS or --insecure',
            ),
            "grace_s": (
                _number(0, 3600, open_low=True),
                "seconds a dial-in bot's seat is held while it dials again after its connection dropped",
            ),
        },
    ),
    "trueskill": (
        TrueSkillSettings,
        {
            "mu": (_number(-INF, INF), "a new bot's rating"),
            "sigma": (_number(0, INF, open_low=True), "a new bot's uncertainty"),
            "beta": (_number(0, INF, open_low=True), "the spread of one match's performance"),
            "tau": (_number(0, INF), "uncertainty added before each match (skill may drift)"),
            "draw_probability": (_number(0, 1, open_high=True), "a Hokm match has a winner and Hand ties are rare: 0"),
            "board_draw_probability": (
                _number(0, 1, open_high=True),
                "duplicate deals: a board ties when its rooms split, half the time between equal bots",
            ),
        },
    ),
}
BOT_KEYS: dict[str, tuple[Check, str]] = {
    "name": (_bot_name, ""),
    "spec": (_bot_spec, ""),
    "cwd": (_text, ""),
    "on_new_version": (one_of(*NEW_VERSION), ""),
}
TOP_KEYS = {"format", "game", "seed", "rules", "bots", *TABLES}


# --- reading ---------------------------------------------------------------------------------


def load(folder: str | Path) -> LadderConfig:
    """The ladder.toml of ``folder``, every key checked."""
    path = Path(folder) / CONFIG
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(
            f"{path} does not exist: {Path(folder)} is not a ladder (make one with `waraq ladder init {folder}`)"
        ) from None
    except OSError as error:
        raise ConfigError(f"{path} cannot be read: {error.strerror}") from None
    try:
        raw = toml_of(data)
    except TomlProblem as problem:
        raise ConfigError(f"{path} is not valid TOML: {problem}") from None
    return parse(raw, where=str(path))


def parse(raw: Mapping[str, Any], where: str = CONFIG) -> LadderConfig:
    """A config from the mapping of a ladder.toml; errors start with ``where``."""
    for key in raw:
        if key not in TOP_KEYS:
            raise ConfigError(f"{where}: {_unknown(key, TOP_KEYS, 'key')}")
    if raw.get("format", FORMAT) != FORMAT:
        raise ConfigError(f"{where}: format = {quote(raw['format'])}: this Waraq reads {FORMAT!r}")
    game = _checked(where, "", "game", raw.get("game", registry.DEFAULT_GAME), one_of(*registry.GAMES))
    if "seed" not in raw:
        raise ConfigError(f"{where}: seed is missing: the ladder's seed (an integer) picks its deals and matches")
    seed = _checked(where, "", "seed", raw["seed"], integer(0))
    rules_raw = raw.get("rules", {})
    if not isinstance(rules_raw, dict):
        raise ConfigError(f"{where}: rules = {quote(rules_raw)}: expected a table [rules] of rule keys")
    try:
        rules = registry.load_rules(game, dict(rules_raw))
    except RulesError as error:
        raise ConfigError(f"{where}: [rules] {error}") from None
    tables = {name: _table(where, name, raw.get(name, {})) for name in TABLES}
    config = LadderConfig(seed=seed, rules=rules, bots=_bots(where, raw.get("bots", [])), game=game, **tables)
    if config.matchmaking.partners == "self" and not config.layout.teams:
        teams_need = registry.entry(game).teams_need or f"{game} in teams"
        raise ConfigError(
            f'{where}: [matchmaking] partners = "self" needs {teams_need} (teams); '
            f"these rules have {rules.players} players, each for himself"
        )
    return config


def _table(where: str, name: str, raw: Any) -> Any:
    kind, keys = TABLES[name]
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: {name} = {quote(raw)}: expected a table [{name}]")
    values = {}
    for key, value in raw.items():
        if key not in keys:
            raise ConfigError(f"{where}: [{name}] {_unknown(key, keys, 'key')}")
        values[key] = _checked(where, f"[{name}] ", key, value, keys[key][0])
    return kind(**values)


def _bots(where: str, raw: Any) -> tuple[Bot, ...]:
    if not isinstance(raw, list):
        raise ConfigError(f"{where}: bots = {quote(raw)}: expected [[bots]] tables")
    bots: list[Bot] = []
    for number, entry in enumerate(raw, start=1):
        label = f"[[bots]] number {number}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: {label} is not a table")
        for key in entry:
            if key not in BOT_KEYS:
                raise ConfigError(f"{where}: {label}: {_unknown(key, BOT_KEYS, 'key')}")
        for key in ("name", "spec"):
            if key not in entry:
                raise ConfigError(f"{where}: {label} has no {key}")
        values = {k: _checked(where, f"{label}: ", k, v, BOT_KEYS[k][0]) for k, v in entry.items()}
        if any(b.name == values["name"] for b in bots):
            raise ConfigError(f"{where}: {label}: name = {quote(values['name'])} is used by an earlier bot")
        bots.append(Bot(**values))
    return tuple(bots)


def check_bot(where: str, name: Any, spec: Any) -> tuple[str, str]:
    """A bot's name and spec as ``waraq ladder add`` takes them, checked like [[bots]] keys."""
    return (
        _checked(where, "bot ", "name", name, BOT_KEYS["name"][0]),
        _checked(where, "bot ", "spec", spec, BOT_KEYS["spec"][0]),
    )


def _checked(where: str, prefix: str, key: str, value: Any, check: Check) -> Any:
    try:
        return check(value)
    except BadValue as error:
        raise ConfigError(f"{where}: {prefix}{key} = {quote(value)}: {error}") from None


def _unknown(key: str, valid: Any, what: str) -> str:
    close = difflib.get_close_matches(str(key), list(valid), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown {what} {key!r}{hint}; valid: {', '.join(sorted(valid))}"


# --- writing ---------------------------------------------------------------------------------


def save(folder: str | Path, config: LadderConfig) -> Path:
    """Write ``config`` as ladder.toml in ``folder`` (atomically: a reader never sees half a file)."""
    path = Path(folder) / CONFIG
    text = dumps(config)
    parse(tomllib.loads(text), where="the ladder.toml about to be written")  # never write what cannot be read
    partial = path.with_suffix(".toml.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
    return path


def dumps(config: LadderConfig) -> str:
    lines = [
        "# A Waraq ladder. `waraq ladder run` plays it; `waraq ladder show` shows the table.",
        "# Bots: `waraq ladder add NAME SPEC` and `waraq ladder remove NAME` (or edit [[bots]] below).",
        f"format = {toml_value(FORMAT)}",
        f"game = {toml_value(config.game)}"
        f"  # {' or '.join(map(toml_value, registry.GAMES))}: the game every match plays",
        f"seed = {config.seed}  # picks the deals and the matchmaking's choices",
        "",
        "[rules]  # every rule key of docs/rules.md; changing them after matches were played is refused",
    ]
    lines += [f"{key} = {toml_value(value)}" for key, value in config.rules.to_dict().items()]
    for name, (_, keys) in TABLES.items():
        lines += ["", f"[{name}]"]
        values = asdict(getattr(config, name))
        for key, (_, comment) in keys.items():
            lines.append(f"{key} = {toml_value(values[key])}  # {comment}")
    for bot in config.bots:
        lines += ["", "[[bots]]"]
        for item in fields(Bot):
            value = getattr(bot, item.name)
            if value != item.default or item.name in ("name", "spec"):
                lines.append(f"{item.name} = {toml_value(value)}")
    return "\n".join(lines) + "\n"
