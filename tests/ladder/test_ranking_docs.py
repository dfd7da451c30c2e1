"""docs/ranking.md does not overstate (issue 32): each measured figure names the command that measured it, what
boards alone save is told apart from what the whole design saves, and where ``--partners self`` is recommended the
page says why copies need it, with the cap the code has."""

from __future__ import annotations

import re
from pathlib import Path

from waraq.ladder.commands import versus
from waraq.ladder.stats.sprt import Decision, Sprt, fewest_boards
from waraq.ladder.storage.config import RunSettings

RANKING = Path(__file__).resolve().parents[2] / "docs" / "ranking.md"


def section(title: str) -> str:
    """A ``## `` section of the page, its title line left out."""
    text = RANKING.read_text(encoding="utf-8")
    begin = text.index(f"\n## {title}\n")
    end = text.find("\n## ", begin + 1)
    return text[begin + len(title) + 5 : end if end >= 0 else None]


def blocks(text: str) -> list[str]:
    """Its paragraphs and list items, each on one line."""
    out = []
    for paragraph in re.split(r"\n\s*\n", text):
        items = re.split(r"\n(?=- )", paragraph.strip())
        out += [" ".join(item.split()) for item in items if item.strip()]
    return out


def test_every_measured_figure_names_its_command_or_the_review():
    # A block that gives a median or a range gives a measured figure.
    measured = [b for b in blocks(section("Measured")) if re.search(r"median|\d to \d", b)]
    assert len(measured) >= 7
    for block in measured:
        assert "`python bench/ranking.py " in block or "review" in block, block


def test_what_boards_alone_save_is_told_apart_from_the_whole_design():
    said = " ".join(section("Measured").split())
    assert "**Boards alone.** The same bots, the same batch rating, the same `--until-stable` rule" in said
    assert "`python bench/ranking.py boards-alone --seeds 30`" in said
    assert "**Boards and the batch rating together, against single matches and TrueSkill per match**" in said
    assert "0.83 (0.71 to 1.35), ρ 0.185" in said  # the review's figures beside this page's own


def test_where_partners_self_is_recommended_the_copies_cap_is_said_with_the_codes_default():
    partners = [b for b in blocks(section("When `--until-stable` stops")) if "5,000" in b]
    assert len(partners) == 1
    said = partners[0]
    assert f"default cap of {RunSettings().max_matches:,}" in said
    assert "`waraq ladder init --partners self`" in said and "higher `--cap`" in said
    assert "issue 32's review, not measured again here" in said


def test_the_versus_section_gives_the_fewest_boards_the_code_gives():
    said = " ".join(section("`waraq versus A B`").split())
    default = Sprt(*versus.DEFAULT_SPRT)
    assert f"the default accepts H1 after {fewest_boards(default)} boards at the fewest" in said
    assert f"H0 takes {fewest_boards(default, Decision.H0)} boards at the fewest" in said
    assert f"`--sprt 0 100 0.05 0.05` needs {fewest_boards(Sprt(0.0, 100.0))} boards at the fewest" in said
