"""Validation of a game's rule keys, shared by every game.

A game declares its keys as :class:`Option` values; :func:`validate` checks a
mapping against them and says exactly what is wrong: an unknown key is named
with the list of valid keys, a wrong value names the key, the value and what
is allowed. Rules have one canonical JSON form, and its sha256 is the
``rules_hash`` of a match record (docs/records.md).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import Field, asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Self

from waraq.referee.games.cards import CardError, card_name, parse_card


class RulesError(ValueError):
    """A rules config that cannot be played: the message says why."""


class BadValue(ValueError):
    """Raised by a checker with what is allowed; the caller adds the key and the value."""


Checker = Callable[[Any], Any]


@dataclass(frozen=True)
class Option:
    name: str
    check: Checker
    doc: str


def one_of(*allowed: Any) -> Checker:
    def check(value: Any) -> Any:
        # bool is an int in Python; `True in (1, 2)` must not pass for an int key.
        if any(type(value) is type(a) and value == a for a in allowed):
            return value
        raise BadValue("expected one of " + ", ".join(toml_value(a) for a in allowed))

    return check


def integer_between(low: int, high: int) -> Checker:
    def check(value: Any) -> int:
        # bool is an int in Python: `true` must not pass for a count.
        if type(value) is int and low <= value <= high:
            return value
        raise BadValue(f"expected an integer from {low} to {high}")

    return check


def integer(minimum: int) -> Checker:
    def check(value: Any) -> int:
        if type(value) is int and value >= minimum:
            return value
        raise BadValue(f"expected an integer >= {minimum}")

    return check


def boolean(value: Any) -> bool:
    if type(value) is bool:
        return value
    raise BadValue("expected true or false")


def card_list(value: Any) -> tuple[str, ...]:
    """A list of distinct card names, normalised to their canonical spelling."""
    if not isinstance(value, (list, tuple)):
        raise BadValue('expected a list of cards such as ["2D"]')
    try:
        cards = [parse_card(v) for v in value]
    except CardError as error:
        raise BadValue(str(error)) from None
    if len(set(cards)) != len(cards):
        raise BadValue("a card is listed twice")
    return tuple(card_name(c) for c in cards)


def validate(game: str, options: Sequence[Option], raw: Mapping[str, Any]) -> dict[str, Any]:
    """Check every key of ``raw``; return the checked values (defaults are the caller's)."""
    known = {o.name: o for o in options}
    checked: dict[str, Any] = {}
    for key, value in raw.items():
        option = known.get(key)
        if option is None:
            raise RulesError(_unknown_key(game, key, sorted(known)))
        try:
            checked[key] = option.check(value)
        except BadValue as error:
            raise RulesError(f"{game} rule {key!r} = {quote(value)} is not allowed: {error}") from None
    return checked


def _unknown_key(game: str, key: object, valid: list[str]) -> str:
    hint = ""
    if isinstance(key, str):
        close = difflib.get_close_matches(key, valid, n=1)
        if close:
            hint = f" (did you mean {close[0]!r}?)"
    return f"unknown {game} rule key {key!r}{hint}; valid keys: {', '.join(valid)}"


def toml_value(value: Any) -> str:
    """A value in TOML spelling: how config files write it and how error messages quote it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return f'"{escaped}"'
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def quote(value: Any, limit: int = 80, spell: Callable[[Any], str] = toml_value) -> str:
    """A value as an error message quotes it: spelled by ``spell`` (TOML's, for config files),
    cut after ``limit`` characters (a stranger's file may hold a value of any size or depth)."""
    try:
        text = spell(value)
    except RecursionError:
        return "(a value nested too deeply to show)"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def canonical_json(rules: Mapping[str, Any]) -> str:
    """The one JSON spelling of a rules mapping: sorted keys, no spaces, lists not tuples."""
    return json.dumps(rules, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def rules_hash(rules: Mapping[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(rules).encode()).hexdigest()


def read_toml(path: str | Path) -> dict[str, Any]:
    """A TOML rules file as a dict; an unreadable or malformed file names the file and the problem."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RulesError(f"rules file {str(path)!r} does not exist") from None
    except OSError as error:
        raise RulesError(f"rules file {str(path)!r} cannot be read: {error.strerror}") from None
    try:
        return toml_of(data)
    except TomlProblem as problem:
        raise RulesError(f"rules file {str(path)!r} is not valid TOML: {problem}") from None


class TomlProblem(ValueError):
    """Bytes that are not a TOML document: the message says why, for the caller to name the file."""


def toml_of(data: bytes) -> dict[str, Any]:
    """A TOML document as a dict; :class:`TomlProblem` if it is not UTF-8 (as TOML must be), nests
    deeper than tomllib's recursion can read, or is not valid TOML (tomllib's own message)."""
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise TomlProblem(f"not UTF-8 (byte {error.object[error.start]:#04x} at offset {error.start})") from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        raise TomlProblem("its arrays or tables are nested too deeply") from None
    except tomllib.TOMLDecodeError as error:
        raise TomlProblem(str(error)) from None


class GameRules:
    """What every game's rules config shares: building it and its canonical form.

    A game's rules are a frozen dataclass of its keys deriving from this, with
    ``GAME``, ``OPTIONS`` and its presets (:meth:`presets`). Built from a dict
    (``{"preset": "three", "target_score": 5}``: a preset, then overrides), a
    TOML file or a preset name; every key checked, then whatever combination
    the game cannot play refused by the dataclass's own ``__post_init__``.
    """

    GAME: ClassVar[str]
    OPTIONS: ClassVar[tuple[Option, ...]]
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # each game's rules are a dataclass (above)
    LOWER_SCORE_WINS: ClassVar[bool] = False  # a score counts against its side (Hand's penalties)

    @classmethod
    def presets(cls) -> Mapping[str, Self]:
        raise NotImplementedError

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Self:
        raw = dict(raw)
        game = raw.pop("game", cls.GAME)
        if game != cls.GAME:
            raise RulesError(f"these are rules for game {game!r}, not {cls.GAME!r}")
        base: dict[str, Any] = {}
        preset_name = raw.pop("preset", None)
        if preset_name is not None:
            base = cls.preset(preset_name).to_dict()
        return cls(**cls._merged(base, validate(cls.GAME, cls.OPTIONS, raw)))

    @classmethod
    def _merged(cls, base: dict[str, Any], checked: dict[str, Any]) -> dict[str, Any]:
        """A preset's (or the defaults') values overridden by the checked ones."""
        return {**base, **checked}

    @classmethod
    def from_toml(cls, path: str | Path) -> Self:
        raw = read_toml(path)
        try:
            return cls.from_dict(raw)
        except RulesError as error:
            raise RulesError(f"{path}: {error}") from None

    @classmethod
    def preset(cls, name: str) -> Self:
        try:
            return cls.presets()[name]
        except (KeyError, TypeError):
            raise RulesError(f"unknown {cls.GAME} preset {name!r}; presets: {', '.join(cls.presets())}") from None

    @classmethod
    def load(cls, spec: str | Path | Mapping[str, Any] | Self) -> Self:
        """Rules from a preset name, a TOML file path, a dict or rules already built."""
        if isinstance(spec, cls):
            return spec
        if isinstance(spec, GameRules):
            raise RulesError(f"these are rules for game {spec.GAME!r}, not {cls.GAME!r}")
        if isinstance(spec, Mapping):
            return cls.from_dict(spec)
        presets = cls.presets()
        if isinstance(spec, str) and spec in presets:
            return presets[spec]
        path = Path(spec)
        if path.suffix == ".toml" or path.exists():
            return cls.from_toml(path)
        raise RulesError(f"{str(spec)!r} is neither a {cls.GAME} preset ({', '.join(presets)}) nor a .toml rules file")

    # -- canonical form ---------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Every key with its value, defaults included, JSON-ready (docs/records.md ``rules``)."""
        return dict(self._as_dict)

    @cached_property
    def _as_dict(self) -> dict[str, Any]:
        # Views carry the rules at every decision: build the dict once per rules object.
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    def canonical_json(self) -> str:
        return self._canonical_json

    @cached_property
    def _canonical_json(self) -> str:
        return canonical_json(self.to_dict())

    @cached_property
    def rules_hash(self) -> str:
        return rules_hash(self.to_dict())

    def describe(self) -> str:
        """The game and its rules in a few words, as the ladder names a ladder's game."""
        return f"{self.GAME.capitalize()}, {getattr(self, 'players', '?')} players"

    def replace(self, **changes: Any) -> Self:
        """These rules with some keys changed, checked like any config."""
        return type(self).from_dict({**self.to_dict(), **changes})
