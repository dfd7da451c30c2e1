"""The specifications in docs/ cover what the code enforces and writes.

Each check reads the real thing (the rules configs' options, the record lines the
code builds) and asks that docs/ names it, so a key or field added without its
documentation fails here.
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.support import ROOT
from waraq.referee.games import registry

RULES_DOC = (ROOT / "docs" / "rules.md").read_text()
RECORDS_DOC = (ROOT / "docs" / "records.md").read_text()
PROTOCOL_DOC = (ROOT / "docs" / "protocol.md").read_text()


def in_backticks(name: str, text: str) -> bool:
    return re.search(rf"`{re.escape(name)}`", text) is not None


@pytest.mark.parametrize("game", sorted(registry.GAMES))
def test_every_variant_key_and_preset_of_each_game_is_in_the_rules_document(game):
    rules_type = type(next(iter(registry.presets(game).values())))
    keys = [option.name for option in rules_type.OPTIONS]
    assert keys, f"{game} has no options: the check would prove nothing"
    missing = [k for k in keys if not in_backticks(k, RULES_DOC)]
    missing += [f"preset {p}" for p in registry.presets(game) if not in_backticks(p, RULES_DOC)]
    assert missing == [], f"docs/rules.md does not document {game}'s {missing}"


def written_lines() -> dict[str, set[str]]:
    """Every record line the referee builds, by ``type``: the keys of each dict literal with a literal ``type``."""
    lines: dict[str, set[str]] = {}
    for path in (ROOT / "referee").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Dict):
                continue
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if "type" not in keys:
                continue
            value = node.values[keys.index("type")] if len(keys) == len(node.keys) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                lines.setdefault(value.value, set()).update(keys)
    return lines


def test_the_scan_finds_the_lines_both_games_write():
    # A guard on the scan itself: these are written by the Hokm engine, the Hand engine and the match.
    assert {"match", "ace_draw", "deal", "decision", "restock", "fault", "round_end", "result"} <= set(written_lines())


def section(line_type: str) -> str:
    """The part of docs/records.md from the heading naming ``line_type`` to the next heading of its level."""
    heading = re.search(rf"^(#+) `{re.escape(line_type)}`.*$", RECORDS_DOC, re.M)
    assert heading, f"docs/records.md has no heading for the record line `{line_type}`"
    level = len(heading.group(1))
    end = re.compile(rf"^#{{1,{level}}} ", re.M).search(RECORDS_DOC, heading.end())
    return RECORDS_DOC[heading.start() : end.start() if end else len(RECORDS_DOC)]


@pytest.mark.parametrize("line_type", sorted(written_lines()))
def test_every_record_line_and_each_of_its_fields_is_in_the_records_document(line_type):
    text = section(line_type)
    missing = sorted(k for k in written_lines()[line_type] if not in_backticks(k, text))
    assert missing == [], f"docs/records.md's `{line_type}` section does not name the fields {missing}"


def test_every_citation_of_a_specification_names_a_document_in_the_repository():
    cited = re.compile(r"(?<![\w/.])(RULES|RECORDS|DESIGN)\.md")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("referee", "ladder", "sample_bots", "protocol", "bench", "docs")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (".py", ".md", ".proto", ".js") and "node_modules" not in path.parts
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if cited.search(line)
    ]
    found += [
        f"README.md:{n}"
        for n, line in enumerate((ROOT / "README.md").read_text().splitlines(), 1)
        if cited.search(line)
    ]
    assert found == [], "these cite a document outside the repository; cite docs/ instead:\n" + "\n".join(found)


HEADING_CITATION = re.compile(r"docs/(rules|records|protocol)\.md[,:]? \"(#+ [^\"]+)\"")


def test_every_heading_cited_in_the_code_exists():
    docs = {"rules": RULES_DOC, "records": RECORDS_DOC, "protocol": PROTOCOL_DOC}
    cited = [
        (path.relative_to(ROOT), doc, heading)
        for folder in ("referee", "ladder", "sample_bots", "bench", "tests")
        for path in (ROOT / folder).rglob("*.py")
        for doc, heading in HEADING_CITATION.findall(path.read_text())
    ]
    assert cited, "no citation found: the pattern is out of date"
    # "## Hand" cites the heading "## Hand (هاند, source 001)": a heading that begins with the words cited.
    missing = [c for c in cited if not re.search(rf"^{re.escape(c[2])}(\s|$)", docs[c[1]], re.M)]
    assert missing == []


README = (ROOT / "README.md").read_text()
REPO_PATH = re.compile(r"`((?:referee|ladder|sample_bots|protocol|tests|bench|docs)/[^`\s]*)`")


def test_every_path_the_readme_names_exists():
    named = set(REPO_PATH.findall(README))
    assert len(named) > 20
    assert sorted(p for p in named if not (ROOT / p).exists()) == []


def test_each_place_the_readme_map_points_to_holds_what_it_names():
    # Rows of "Where to find": | what | `path`: `Name`, `Other.name` (...) |
    rows = re.findall(r"^\| [^|]+ \| `([\w/.]+\.py)`: ([^|]+)\|$", README, re.M)
    assert len(rows) >= 6
    for path, cell in rows:
        text = (ROOT / path).read_text()
        for name in re.findall(r"`([A-Za-z_][\w.]*)`", cell):
            if "/" in name or name.endswith(".py") or name.isupper():
                continue  # another file, or a decision kind
            if "." in name:  # Class.method
                owner, member = name.rsplit(".", 1)
                assert re.search(rf"\bclass {owner}\b", text) and re.search(rf"\bdef {member}\b", text), (path, name)
            else:  # a function, or a variant key the code reads
                assert re.search(rf"\b{name}\b", text), (path, name)
