"""The environments' libraries stay optional: only referee/env imports gymnasium, pettingzoo, numpy or OpenSpiel."""

from __future__ import annotations

import ast

from tests.support import ROOT

OPTIONAL = ("gymnasium", "pettingzoo", "numpy", "pyspiel", "open_spiel")


def imports_of(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def test_no_module_outside_referee_env_imports_the_environments_libraries():
    wrong = sorted(
        (str(path.relative_to(ROOT)), name)
        for folder in ("referee", "ladder", "sample_bots")
        for path in (ROOT / folder).rglob("*.py")
        if "node_modules" not in path.parts and not path.is_relative_to(ROOT / "referee" / "env")
        for name in imports_of(path.read_text(encoding="utf-8"))
        if name in OPTIONAL
    )
    assert wrong == []
    assert {"gymnasium", "numpy"} <= imports_of((ROOT / "referee/env/seat_env.py").read_text())
