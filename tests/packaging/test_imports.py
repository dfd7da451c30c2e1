"""Imports go one way: ladder -> referee -> bots never back, engines import no I/O, and no module circles.

The import graph is built from the source of every module the wheel holds,
named as pyproject.toml's package-dir installs it, from every import
statement anywhere in a file: at the top, inside functions (the lazy imports
that keep Hand out of a Hokm-only process) and under ``TYPE_CHECKING``. A
lazy import is still an edge: a circle through one is a circle.

The referee's folders are floors: none points back at one that points at it.
Under them all is the ground floor (``waraq.referee.common``), which the bots
and the ladder may use instead of the command line or the launcher. The
ladder's folders are floors in one order, the statistics at the bottom and the
commands at the top: each imports only the floors below it.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from tests.support import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PACKAGE_DIRS = PYPROJECT["tool"]["setuptools"]["package-dir"]  # package -> its folder

# Modules that reach files, clocks, processes or the network.
IO = (
    "time",
    "datetime",
    "asyncio",
    "os",
    "io",
    "shutil",
    "tempfile",
    "socket",
    "subprocess",
    "signal",
    "sqlite3",
    "threading",
    "pathlib",
)
# The referee's layers that a game's rules must not know, and I/O. The rules loaders read a rules
# file by its path, as `waraq rules FILE.toml` asks: pathlib there, and nowhere else in the games.
NOT_FOR_ENGINES = (
    *(f"waraq.referee.{layer}" for layer in ("wire", "match", "launch", "records", "replay", "cli")),
    "waraq.ladder",
    "waraq.bots",
    "waraq.v1",
    "grpc",
    "google.protobuf",
    *IO,
)
RULES_LOADERS = {  # may read a rules file: pathlib only
    "waraq.referee.games.options",
    "waraq.referee.games.registry",
    "waraq.referee.games.hokm.rules",
    "waraq.referee.games.hand.rules",
}


@cache
def modules() -> dict[str, Path]:
    """Every module of the project by its installed name, from its file in the checkout."""
    found = {}
    for package, folder in PACKAGE_DIRS.items():
        for path in (ROOT / folder).rglob("*.py"):
            if "node_modules" in path.parts:
                continue
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            name = ".".join((package, *(parts[:-1] if parts[-1] == "__init__" else parts)))
            found.setdefault(name, path)  # waraq.v1 is under waraq's folder and has its own entry
    return found


def imported(name: str, path: Path) -> Iterator[str]:
    """The names ``name``'s source imports, absolute; ``from pkg import mod`` gives ``pkg.mod``
    when that is a module of the project, else ``pkg``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:
                yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules() else base


@cache
def graph() -> dict[str, frozenset[str]]:
    """Each module -> everything it imports (any name, the project's or not)."""
    return {name: frozenset(imported(name, path)) for name, path in modules().items()}


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def cycles(edges: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node, or with a self-edge (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in edges.get(node, ()):
            if target not in edges:
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in edges[node]:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_graph_holds_every_module_and_sees_imports_inside_functions():
    edges = graph()
    assert len(edges) > 70 and "waraq.referee.games.hokm.engine" in edges and "waraq.bots.codec" in edges
    # Both are imported inside a function only: a Hokm-only bot never loads Hand, and `replay`
    # loads the HTML page's writer only for --html.
    assert "waraq.bots.hand_codec" in edges["waraq.bots.codec"]
    assert "waraq.referee.replay.html.write" in edges["waraq.referee.cli.replay"]


def test_the_cycle_finder_finds_a_circle_through_a_lazy_import_and_no_other():
    made_up = {
        "a": frozenset({"b"}),
        "b": frozenset({"c", "os"}),
        "c": frozenset({"a"}),  # a -> b -> c -> a
        "d": frozenset({"a"}),
        "e": frozenset({"e"}),
        "f": frozenset(),
    }
    assert cycles(made_up) == [["a", "b", "c"], ["e"]]


def test_no_module_of_the_project_is_in_an_import_circle():
    project = {name: frozenset(t for t in targets if t in modules()) for name, targets in graph().items()}
    assert cycles(project) == []


def test_nothing_in_the_referee_imports_the_ladder_or_the_bots():
    wrong = sorted(
        (name, target)
        for name, targets in graph().items()
        if under(name, "waraq.referee")
        for target in targets
        if under(target, "waraq.ladder") or under(target, "waraq.bots")
    )
    assert wrong == []


def test_the_engines_import_no_other_layer_of_the_referee_and_no_io():
    engines = {name: targets for name, targets in graph().items() if under(name, "waraq.referee.games")}
    assert len(engines) > 10
    wrong = sorted(
        (name, target)
        for name, targets in engines.items()
        for target in targets
        if any(under(target, banned) for banned in NOT_FOR_ENGINES)
        and not (name in RULES_LOADERS and target == "pathlib")
    )
    assert wrong == []


def importers_of(package: str, banned: tuple[str, ...], allowed: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """Every (module of ``package``, import) that reaches under a ``banned`` name and no ``allowed`` one."""
    return sorted(
        (name, target)
        for name, targets in graph().items()
        if under(name, package)
        for target in targets
        if any(under(target, b) for b in banned) and not any(under(target, a) for a in allowed)
    )


def test_the_bots_import_of_the_referee_only_its_engines_and_its_ground_floor():
    assert importers_of("waraq.bots", ("waraq.referee",), ("waraq.referee.games", "waraq.referee.common")) == []


def test_the_ladder_does_not_reach_into_the_referees_command_line():
    assert importers_of("waraq.ladder", ("waraq.referee.cli",)) == []


def test_the_ground_floor_imports_of_the_referee_only_the_games():
    allowed = ("waraq.referee.common", "waraq.referee.games")
    assert importers_of("waraq.referee.common", ("waraq.referee",), allowed) == []


def floor_of(name: str, package: str = "waraq.referee") -> str:
    """The folder of ``package`` a module is in (``waraq.referee.match``), or the module itself elsewhere."""
    parts = name.split(".")
    depth = len(package.split(".")) + 1
    return ".".join(parts[:depth]) if under(name, package) and len(parts) > depth else name


def test_no_folder_of_the_referee_points_back_at_one_that_points_at_it():
    merged: dict[str, set[str]] = {}
    for name, targets in graph().items():
        if under(name, "waraq.referee"):
            merged.setdefault(floor_of(name), set()).update(
                floor_of(t) for t in targets if under(t, "waraq.referee") and t in modules()
            )
    floors = {floor: frozenset(targets - {floor}) for floor, targets in merged.items()}
    assert len(floors) > 8 and "waraq.referee.run" in floors["waraq.referee.cli"]
    assert cycles(floors) == []


# The ladder's floors, the lowest first (ladder/__init__.py says each one's job).
LADDER_FLOORS = tuple(
    f"waraq.ladder.{floor}" for floor in ("stats", "storage", "play", "present", "submit", "web", "commands")
)


def test_every_module_of_the_ladder_is_on_one_of_its_floors():
    # A new folder of the ladder (the lobby, the web service) takes its place in LADDER_FLOORS first.
    ladder = [name for name in modules() if under(name, "waraq.ladder") and name != "waraq.ladder"]
    assert len(ladder) > 30
    assert sorted(name for name in ladder if floor_of(name, "waraq.ladder") not in LADDER_FLOORS) == []
    assert all(name in modules() for name in LADDER_FLOORS)


def test_no_floor_of_the_ladder_imports_one_above_it_or_circles_back():
    for low, floor in enumerate(LADDER_FLOORS):
        assert importers_of(floor, LADDER_FLOORS[low + 1 :]) == [], floor
    merged: dict[str, set[str]] = {}
    for name, targets in graph().items():
        if under(name, "waraq.ladder"):
            merged.setdefault(floor_of(name, "waraq.ladder"), set()).update(
                floor_of(t, "waraq.ladder") for t in targets if under(t, "waraq.ladder") and t in modules()
            )
    floors = {floor: frozenset(targets - {floor}) for floor, targets in merged.items()}
    assert "waraq.ladder.stats" in floors["waraq.ladder.play"] and floors["waraq.ladder.stats"] == frozenset()
    assert cycles(floors) == []


def test_the_ladders_statistics_are_pure():
    # No file, clock or process: of the referee only the games (a board's dealer).
    assert importers_of("waraq.ladder.stats", ("waraq.referee", *IO), ("waraq.referee.games",)) == []


def test_the_built_in_bots_players_are_named_in_one_table():
    # pyproject.toml's entry points name each built-in bot's player modules; no source of the
    # referee or the ladder names one (the server's module, which launches any of them, is named once).
    table = PYPROJECT["project"]["entry-points"]["waraq.bots"]
    players = {value.partition(":")[0].rpartition(".")[2] for value in table.values()}
    assert players == {"hokm_random", "hand_random", "hokm_heuristic", "hand_heuristic", "hokm_greedy", "hokm_search"}
    naming = sorted(
        (str(path.relative_to(ROOT)), player)
        for name, path in modules().items()
        if under(name, "waraq.referee") or under(name, "waraq.ladder")
        for player in players
        if player in path.read_text(encoding="utf-8")
    )
    assert naming == []


def test_the_installed_table_of_built_in_bots_is_the_checkouts():
    # An editable install keeps the entry points of its last `pip install -e .`: a stale one
    # would launch bots this checkout no longer lists.
    from waraq.referee.common import built_in

    installed = {
        f"{bot.name}.{game}": f"{entry.module}:{entry.attr}"
        for bot in built_in.table().values()
        for game, entry in bot.players.items()
    }
    assert installed == PYPROJECT["project"]["entry-points"]["waraq.bots"]
