"""Which files are a bot's code: what its version identity hashes (``waraq.ladder.play.bots.files_hash``).

A new hash is a new version, rated from the start (``waraq ladder add``,
``run``), so the hash must change when the program changes and only then.
It used to take every argument that named an existing file, and a command
such as ``python bot.py --log bot.log`` became a new version at every run,
since the bot writes its log. Now the command says what it runs, read the
way its program reads its own command line:

* an interpreter (``python``, ``node``, ``ruby``, ``bash``, …): its script,
  the first argument that is not one of its own options or their values;
  ``python -m pkg.mod``: the module's file; ``java -jar x.jar``: the jar;
* ``env [VAR=value …] command``: the command's code;
* anything else is the program itself: the executable the command starts
  (a compiled bot, or a script run through its ``#!`` line).

Arguments after the program are the bot's own (ports, logs, options) and
are never hashed. A built-in bot is its modules: the bot server, its players'
modules as the table of built-in bots names them (:mod:`waraq.referee.common.built_in`),
and every module of the bots those import, found without importing any.
Code the program loads by itself (a script's imports, a binary's libraries)
is not seen: a bot whose version lives there says so in its ``Hello``.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from waraq.referee.common import built_in
from waraq.referee.launch.bots import BotSpec, SpecKind

BOTS_PACKAGE = "waraq.bots"


@dataclass(frozen=True)
class Interpreter:
    values: frozenset[str] = frozenset()  # its options that take the next argument as their value
    inline: frozenset[str] = frozenset()  # its options that give the code inline: no script file


# Interpreters by the name of their program.
INTERPRETERS: dict[str, Interpreter] = {
    "python": Interpreter(frozenset({"-W", "-X", "-Q"}), frozenset({"-c"})),
    "node": Interpreter(
        frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader", "--title", "-C"}),
        frozenset({"-e", "--eval", "-p", "--print"}),
    ),
    "deno": Interpreter(frozenset({"--config", "-c", "--import-map"}), frozenset({"eval"})),
    "bun": Interpreter(frozenset({"--config", "-r", "--preload"}), frozenset({"-e", "--eval", "-p", "--print"})),
    "ruby": Interpreter(frozenset({"-I", "-r", "-C", "-E", "-F"}), frozenset({"-e"})),
    "perl": Interpreter(frozenset({"-I"}), frozenset({"-e", "-E"})),
    "php": Interpreter(frozenset({"-c", "-d", "-z"}), frozenset({"-r"})),
    "lua": Interpreter(frozenset({"-l"}), frozenset({"-e"})),
    "Rscript": Interpreter(inline=frozenset({"-e"})),
    "julia": Interpreter(frozenset({"-J", "--project", "-L", "--load"}), frozenset({"-e", "--eval", "-E", "--print"})),
    "bash": Interpreter(frozenset({"-O", "+O", "-o", "+o"}), frozenset({"-c"})),
    "sh": Interpreter(frozenset({"-o", "+o"}), frozenset({"-c"})),
    "dash": Interpreter(frozenset({"-o", "+o"}), frozenset({"-c"})),
    "zsh": Interpreter(frozenset({"-o", "+o"}), frozenset({"-c"})),
    "java": Interpreter(frozenset({"-cp", "-classpath", "--class-path", "-p", "--module-path"})),
}
INTERPRETERS["nodejs"] = INTERPRETERS["node"]  # Debian's older name for it
_VERSIONED = re.compile(r"^(python|pypy)[0-9.]*$")  # python3, python3.11, pypy3: all read as python
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")  # env's VAR=value


def code_files(spec: BotSpec, folder: str = "") -> list[Path]:
    """The files that are the code of the bot ``spec`` (relative paths from ``folder``)."""
    if spec.kind == SpecKind.BUILTIN:
        return builtin_code(spec.value)
    if spec.kind != SpecKind.COMMAND:
        return []  # an address: only its Hello says what it is
    base = Path(folder or ".")
    try:
        argv = shlex.split(spec.value)
    except ValueError:  # unbalanced quotes: the command cannot run either
        return []
    return sorted({path.resolve() for path in _program_code(argv, base)})


def builtin_code(name: str) -> list[Path]:
    """The files of the built-in bot ``name``: the server, its players' modules, and the
    modules of the bots package that any of them imports (at the top or in a function),
    followed from module to module. Sorted, so the list is the same however it was found."""
    found: dict[str, Path] = {}
    todo = [built_in.SERVER, *built_in.get(name).modules]
    while todo:
        module = todo.pop()
        if module in found:
            continue
        path = _source_of(module)
        found[module] = path
        todo += _bots_imported(module, path)
    return sorted(found.values())


def _source_of(module: str) -> Path:
    spec = importlib.util.find_spec(module)  # imports the packages above it (waraq.bots), not the module
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        raise ValueError(f"built-in bot module {module!r} has no Python source file")
    return Path(spec.origin)


def _bots_imported(module: str, path: Path) -> list[str]:
    """The modules of the bots package that ``module``'s source imports, by their full names."""
    package = module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package if node.level else ""  # the bots are one package: level 1 at most
            origin = ".".join(part for part in (base, node.module or "") if part)
            names += [origin, *(f"{origin}.{alias.name}" for alias in node.names)]
    # `from waraq.bots import codec` names the module waraq.bots.codec; `from waraq.bots.codec
    # import x` names waraq.bots.codec and its attribute x. The bots package is flat, so its
    # modules are the names one level below it that find_spec finds (looking below a module
    # would import it).
    below = [n for n in names if n.startswith(BOTS_PACKAGE + ".") and "." not in n[len(BOTS_PACKAGE) + 1 :]]
    return [n for n in below if importlib.util.find_spec(n) is not None]


def _program_code(argv: list[str], base: Path) -> list[Path]:
    if not argv:
        return []
    program, arguments = argv[0], argv[1:]
    name = Path(program).name
    if name == "env":
        while arguments and (_ASSIGNMENT.match(arguments[0]) or arguments[0].startswith("-")):
            arguments = arguments[1:]
        return _program_code(arguments, base)
    kind = "python" if _VERSIONED.match(name) else name
    if kind not in INTERPRETERS:
        executable = _executable(program, base)
        return [executable] if executable else []
    interpreter = INTERPRETERS[kind]
    index = 0
    while index < len(arguments):
        token = arguments[index]
        if token in interpreter.inline:
            return []
        if kind == "python" and token == "-m" and index + 1 < len(arguments):
            return _module_file(arguments[index + 1], base)
        if kind == "java" and token == "-jar" and index + 1 < len(arguments):
            return _existing(arguments[index + 1], base)
        if token in interpreter.values:
            index += 2
            continue
        if token.startswith(("-", "+")) or (kind in ("deno", "bun") and token == "run"):
            index += 1
            continue
        return _existing(token, base)  # the script; what follows is the bot's own
    return []


def _existing(value: str, base: Path) -> list[Path]:
    if "{port}" in value or "{socket}" in value:
        return []
    path = base / value
    return [path] if path.is_file() else []


def _executable(program: str, base: Path) -> Path | None:
    """The file a command's first word starts: a path, or a name looked up on PATH."""
    if "/" in program:
        path = base / program
        return path if path.is_file() else None
    found = shutil.which(program)
    return Path(found) if found else None


def _module_file(module: str, base: Path) -> list[Path]:
    """Where ``python -m module`` would find the module, without importing anything
    (the folder it runs in first, then this interpreter's packages)."""
    parts = module.split(".")
    roots = [base]
    top = importlib.machinery.PathFinder.find_spec(parts[0]) or _quiet_find_spec(parts[0])
    if top is not None and top.submodule_search_locations:
        roots += [Path(p).parent for p in top.submodule_search_locations]
    elif top is not None and top.origin:
        roots.append(Path(top.origin).parent)
    for root in roots:
        stem = root.joinpath(*parts)
        for path in (stem.with_suffix(".py"), stem / "__main__.py"):
            if path.is_file():
                return [path]
    return []


def _quiet_find_spec(name: str) -> importlib.machinery.ModuleSpec | None:
    try:  # a top-level name: found by the import hooks (editable installs too), nothing imported
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
