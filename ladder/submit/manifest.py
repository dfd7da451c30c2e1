"""``waraq-bot.toml``, at the top of an upload: what the bot is called, plays, and how it is built and run.

    name = "mybot"                     # as a ladder.toml bot's name: 1 to 40 letters, digits and _ . + -
    games = ["hokm"]                   # the games it plays: hokm, hand
    build = "sh build.sh"              # optional: a shell command, run offline in the sandbox (build.py)
    run = "python3 bot.py --port {port}"   # how the referee starts it, with {port} or {socket}
    description = "Counts trumps."     # optional, at most 500 characters

``run`` is a bot spec's command (docs/bots.md), run in the bot's folder. Its
program is one of the interpreters of :class:`Interpreter` found on this
machine, with its script inside the upload (``python3 bot.py``, ``node
bot.js``, ``java -jar bot.jar``), or a program of the upload itself, named
as a path (``./bot``, ``bin/bot``: one the build makes). No word may name a
path outside the upload (absolute, or through ``..``), and an interpreter's
inline code (``python3 -c``, ``node -e``, ``sh -c``) is refused: what runs
is a file the author sent. The sandbox confines the bot whatever it runs;
these checks keep a manifest saying what it does, and say at upload, not at
its first match, what is wrong.

A Python bot runs on the referee's own Python (:data:`sys.executable`),
whose packages (grpcio, protobuf, ``waraq.v1``) the sandbox shows a Python
bot: ``python3`` and ``python`` in ``run`` name it. The sandbox shows a bot
the folder of the file its command names: a script at the top of the
upload sees the whole upload (``node_modules`` beside ``bot.js``), one in a
subfolder sees that subfolder.

Every error is a :class:`ManifestError`, one line naming the key and what
is allowed, as ladder.toml's are.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from waraq.ladder.play import bot_code
from waraq.ladder.storage.config import BOT_KEYS, Bot
from waraq.referee.games import registry
from waraq.referee.games.options import BadValue, TomlProblem, quote, toml_of

MANIFEST = "waraq-bot.toml"
MANIFEST_BYTES = 64 * 1024
DESCRIPTION_CHARS = 500
COMMAND_CHARS = 2000
KEYS = ("name", "games", "build", "run", "description")
REQUIRED = {
    "name": 'the bot\'s name (name = "mybot")',
    "games": 'the games it plays (games = ["hokm"])',
    "run": 'the command that starts it, with {port} or {socket} (run = "python3 bot.py --port {port}")',
}
DOTTED = re.compile(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*")  # a Python module's or a Java class's name
PLAIN = re.compile(r"[\w@%+=:,./{}-]+")  # a word shlex would not need to quote, placeholders kept bare


class ManifestError(ValueError):
    """A manifest that is refused; the one-line message names the key and what is allowed."""


class Interpreter(StrEnum):
    """The programs a ``run`` command may start other than the upload's own: each with a script of the upload."""

    PYTHON3 = "python3"
    PYTHON = "python"
    NODE = "node"
    SH = "sh"
    BASH = "bash"
    JAVA = "java"

    @property
    def kind(self) -> str:
        """Its name in the table of interpreters' options (:data:`bot_code.INTERPRETERS`)."""
        return "python" if self in (Interpreter.PYTHON3, Interpreter.PYTHON) else self.value

    def program(self) -> str | None:
        """What the bot's spec starts: the referee's own Python, or the interpreter on PATH; None if missing."""
        if self.kind == "python":
            return sys.executable
        return self.value if shutil.which(self.value) else None


@dataclass(frozen=True)
class Manifest:
    name: str
    games: tuple[str, ...]
    run: str  # as the manifest gives it
    build: str = ""  # "" when the upload is run as it is
    description: str = ""
    spec: str = ""  # the ladder's spec: ``run`` with its interpreter as this machine starts it
    runs: str = ""  # the upload's file the command starts (script or program); "" for a module or class
    program: bool = False  # ``runs`` is the program itself (made executable), not an interpreter's script

    def bot(self, folder: Path, name: str = "") -> Bot:
        """The ladder's bot: the spec, run in ``folder`` (the built upload), named ``name`` or its own."""
        return Bot(name or self.name, self.spec, cwd=str(folder))


def load(folder: Path) -> Manifest:
    """The manifest at the top of the upload ``folder``, checked."""
    try:
        fd = os.open(folder / MANIFEST, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        found = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
        has = ", ".join(found[:10]) + (", …" if len(found) > 10 else "") if found else "nothing"
        raise ManifestError(f"the upload has no {MANIFEST} at its top (it has: {has})") from None
    except OSError as error:
        raise ManifestError(f"{MANIFEST} cannot be read: {error.strerror}") from None
    try:
        with open(fd, "rb") as file:
            data = file.read(MANIFEST_BYTES + 1)
    except OSError as error:  # a folder of that name
        raise ManifestError(f"{MANIFEST} cannot be read: {error.strerror}") from None
    if len(data) > MANIFEST_BYTES:
        raise ManifestError(f"{MANIFEST} is over {MANIFEST_BYTES // 1024} KiB: a manifest is a few lines")
    try:
        raw = toml_of(data)
    except TomlProblem as problem:
        raise ManifestError(f"{MANIFEST} is not valid TOML: {problem}") from None
    return parse(raw)


def parse(raw: Mapping[str, Any]) -> Manifest:
    """A manifest from the mapping of a ``waraq-bot.toml``."""
    for key in raw:
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ManifestError(f"{MANIFEST}: unknown key {str(key)[:80]!r}{hint}; valid: {', '.join(sorted(KEYS))}")
    for key, what in REQUIRED.items():
        if key not in raw:
            raise ManifestError(f"{MANIFEST} has no {key}: {what}")
    try:
        name = BOT_KEYS["name"][0](raw["name"])
    except BadValue as error:
        raise ManifestError(f"{MANIFEST}: name = {quote(raw['name'])}: {error}") from None
    build = _text("build", raw.get("build", ""), COMMAND_CHARS)
    if "build" in raw and not build.strip():
        raise ManifestError(f"{MANIFEST}: build = {quote(build)}: expected a command; leave the key out for none")
    run = _text("run", raw["run"], COMMAND_CHARS)
    spec, runs, program = _run(run)
    try:
        BOT_KEYS["spec"][0](spec)  # what a ladder.toml would take
    except BadValue as error:
        raise ManifestError(f"{MANIFEST}: run = {quote(run)}: {error}") from None
    description = _text("description", raw.get("description", ""), DESCRIPTION_CHARS)
    return Manifest(name, _games(raw["games"]), run, build, description, spec, runs, program)


def _text(key: str, value: Any, most: int) -> str:
    if not isinstance(value, str):
        raise ManifestError(f"{MANIFEST}: {key} = {quote(value)}: expected a string")
    if len(value) > most:
        raise ManifestError(f"{MANIFEST}: {key} is {len(value):,} characters: at most {most:,} are allowed")
    if "\0" in value:
        raise ManifestError(f"{MANIFEST}: {key} = {quote(value)}: holds a NUL character")
    return value


def _games(value: Any) -> tuple[str, ...]:
    known = ", ".join(registry.GAMES)
    if not isinstance(value, list) or not value or not all(isinstance(game, str) for game in value):
        raise ManifestError(f"{MANIFEST}: games = {quote(value)}: expected a list of one or more of {known}")
    for game in value:
        if game not in registry.GAMES:
            raise ManifestError(f"{MANIFEST}: games = {quote(value)}: {quote(game)} is no game here; expected {known}")
    if len(set(value)) < len(value):
        raise ManifestError(f"{MANIFEST}: games = {quote(value)}: a game is named twice")
    return tuple(value)


def _run(text: str) -> tuple[str, str, bool]:
    """The spec ``run`` makes on this machine, the file of the upload it starts, and whether that is the
    program itself."""
    said = f"{MANIFEST}: run = {quote(text)}"
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise ManifestError(f"{said}: {error} (quote words as a shell would)") from None
    if not any("{port}" in word or "{socket}" in word for word in words):
        raise ManifestError(f"{said}: the bot must listen on {{port}} or {{socket}}, e.g. --port {{port}}")
    for word in words:
        for path in (word, word.partition("=")[2]) if word.startswith("-") else (word,):
            _inside(said, path)
    program, *arguments = words
    try:
        interpreter = Interpreter(program)
    except ValueError:
        if "=" in program:
            raise ManifestError(f"{said}: its program {program!r} holds '=': the bot is named by name =") from None
        if "/" not in program:
            raise ManifestError(
                f"{said}: {program!r} is neither an interpreter this arena runs ({', '.join(Interpreter)}) "
                f"nor a program of the upload (write ./{program} for a file at its top)"
            ) from None
        return _join([program, *arguments]), _inside(said, program), True
    start = interpreter.program()
    if start is None:
        raise ManifestError(f"{said}: {program} is not installed on this arena; the interpreters here: {_here()}")
    return _join([start, *arguments]), _script(said, interpreter, arguments), False


def _script(said: str, interpreter: Interpreter, arguments: list[str]) -> str:
    """The upload's file the interpreter runs, read as bot_code reads a command; "" for a module or class."""
    grammar = bot_code.INTERPRETERS[interpreter.kind]
    index = 0
    while index < len(arguments):
        token = arguments[index]
        if token in grammar.inline:
            raise ManifestError(f"{said}: {token} gives {interpreter} its code inline; name a file of the upload")
        if token in grammar.values or token in RUNNING_OPTIONS.get(interpreter.kind, ()):
            if index + 1 == len(arguments):
                raise ManifestError(f"{said}: {token} is given no value")
            runs = _option(said, interpreter, token, arguments[index + 1])
            if runs is not None:
                return runs
            index += 2
        elif token.startswith(("-", "+")):
            index += 1
        elif interpreter is Interpreter.JAVA:
            if not DOTTED.fullmatch(token):
                raise ManifestError(f"{said}: {token!r} is not a Java class's name")
            return ""  # a class found on its class path
        elif "{port}" in token or "{socket}" in token:
            break
        else:
            return _inside(said, token)  # its script: what follows is the bot's own
    raise ManifestError(f"{said}: {interpreter} is given no script; name one of the upload (e.g. {interpreter} bot)")


# Options whose value is what the interpreter runs, beside those bot_code's table lists as taking a value.
RUNNING_OPTIONS = {"python": ("-m",), "java": ("-jar",)}


def _option(said: str, interpreter: Interpreter, token: str, value: str) -> str | None:
    """What ``token value`` runs ("" for a module), or None for an option that runs nothing, its value checked."""
    if token == "-m":
        if not DOTTED.fullmatch(value):
            raise ManifestError(f"{said}: -m {value!r} is not a module's name")
        return ""  # a module of the upload, found from its folder
    if token == "-jar":
        return _inside(said, value)
    for path in value.split(":") if interpreter is Interpreter.JAVA else (value,):  # a class path's parts
        _inside(said, path)
    return None


def _inside(said: str, path: str) -> str:
    """``path`` as a path inside the upload, or the refusal of one that leads out of it."""
    if path.startswith("/") or path.startswith("~"):
        raise ManifestError(f"{said}: {path!r} is a path outside the upload; every path must lie inside it")
    if ".." in path.split("/"):
        raise ManifestError(f"{said}: {path!r} leads out of the upload through '..'; every path must lie inside it")
    return os.path.normpath(path) if path else path


def _join(words: list[str]) -> str:
    return " ".join(word if PLAIN.fullmatch(word) else shlex.quote(word) for word in words)


def _here() -> str:
    return ", ".join(i.value for i in Interpreter if i.program() is not None) or "none"
