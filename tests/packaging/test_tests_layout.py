"""The tests are laid out like the code, and share helpers only through tests/support."""

from __future__ import annotations

import ast

from tests.support import ROOT, TESTS

# Test folders that check the project as a whole rather than one package; starters/ plays the kits
# of sample_bots/starters/, which are no Python packages, as copies outside the repository; browser/
# opens the pages of several packages (replays, ladder reports) in one Chromium of its own.
CROSS_CUTTING = {"browser", "docs", "packaging", "starters"}
# Packages of the code, by the folder a test of them lives in.
CODE = {"ladder": ROOT / "ladder", "sample_bots": ROOT / "sample_bots"} | {
    p.name: p for p in (ROOT / "referee").iterdir() if (p / "__init__.py").exists()
}


def modules_of_tests() -> list:
    return sorted(TESTS.rglob("test_*.py"))


def test_no_test_module_imports_another():
    imports = [
        (path.relative_to(TESTS), node.module)
        for path in modules_of_tests()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[-1].startswith("test_")
    ]
    assert len(modules_of_tests()) > 50 and imports == []


def test_every_test_folder_is_named_after_a_package_of_the_code():
    folders = {path.relative_to(TESTS).parts[0] for path in modules_of_tests() if path.parent != TESTS}
    assert folders - CROSS_CUTTING <= set(CODE), sorted(folders - CROSS_CUTTING - set(CODE))
    for path in modules_of_tests():
        parts = path.relative_to(TESTS).parts
        if len(parts) > 2 and parts[0] in CODE:  # tests/games/hokm/test_x.py tests referee/games/hokm/
            assert (CODE[parts[0]].joinpath(*parts[1:-1]) / "__init__.py").exists(), path


def test_no_test_module_sits_at_the_top_of_tests():
    assert [p.name for p in TESTS.glob("test_*.py")] == []
