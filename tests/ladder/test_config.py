"""ladder.toml: written with every key, read back the same, and every bad key named with its value."""

from __future__ import annotations

import tomllib

import pytest

from waraq.ladder.play import folder
from waraq.ladder.storage import config as cfg
from waraq.ladder.storage.config import Bot, ConfigError
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.launch import sandbox


def write(tmp_path, text: str) -> None:
    (tmp_path / cfg.CONFIG).write_text(text)


def base(extra: str = "") -> str:
    return 'format = "waraq.ladder.v1"\nseed = 5\n' + extra


def test_init_makes_the_folder_and_its_config_reads_back_the_same(tmp_path):
    where = tmp_path / "lad"
    folder.init(where, PRESETS["three"].replace(target_score=2), seed=11, duplicate=False)
    assert {p.name for p in where.iterdir()} >= {"ladder.toml", "ladder.sqlite", "records"}
    config = cfg.load(where)
    assert config.seed == 11 and config.rules == PRESETS["three"].replace(target_score=2)
    assert config.matchmaking.duplicate is False and config.bots == ()
    config = config.with_bot(Bot("mine", "python bot.py --port {port}", "/somewhere"))
    cfg.save(where, config)
    assert cfg.load(where) == config
    # Every rule key is written out, so a later default cannot change the ladder's game.
    assert set(tomllib.loads((where / cfg.CONFIG).read_text())["rules"]) == set(PRESETS["classic"].to_dict())


def test_init_refuses_a_folder_that_holds_a_ladder(tmp_path):
    folder.init(tmp_path, PRESETS["classic"], seed=1)
    with pytest.raises(ConfigError, match="holds a ladder already"):
        folder.init(tmp_path, PRESETS["classic"], seed=1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (base("[matchmaking]\nbatch = 0\n"), "[matchmaking] batch = 0: expected an integer >= 1"),
        (base("[matchmaking]\nbatchh = 4\n"), "unknown key 'batchh' (did you mean 'batch'?)"),
        (base("[run]\nconfidence = 1.5\n"), "[run] confidence = 1.5: expected a number in [0.5, 1)"),
        (
            base('[faults]\npolicy = "lenient"\n'),
            '[faults] policy = "lenient": expected one of "forfeit", "substitute"',
        ),
        (base("[time_control]\ndecision_ms = -1\n"), "[time_control] decision_ms = -1: expected a number > 0"),
        (base("[rules]\nplayers = 5\n"), "[rules] hokm rule 'players' = 5 is not allowed"),
        (base('[rules]\nplayers = 3\n[matchmaking]\npartners = "self"\n'), 'partners = "self" needs 4 players'),
        (base('[[bots]]\nname = "a"\nspec = "no such thing"\n'), '[[bots]] number 1: spec = "no such thing": bot'),
        (
            base('[[bots]]\nname = "a"\nspec = "random"\n[[bots]]\nname = "a"\nspec = "heuristic"\n'),
            "is used by an earlier bot",
        ),
        (base('[[bots]]\nname = "a b"\nspec = "random"\n'), 'name = "a b": expected a name'),
        (base('[[bots]]\nname = "a"\nspec = "mine=random"\n'), "a spec takes no NAME= ('mine')"),
        ('format = "waraq.ladder.v1"\n', "seed is missing"),
        (base('game = "chess"\n'), 'game = "chess": expected one of "hokm", "hand"'),
        (base("[matchmaking\n"), "is not valid TOML"),
    ],
)
def test_a_bad_config_is_named_with_its_table_key_and_value(tmp_path, text, message):
    write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        cfg.load(tmp_path)
    assert message in str(error.value)
    assert str(tmp_path / cfg.CONFIG) in str(error.value)


def test_a_folder_without_a_ladder_says_how_to_make_one(tmp_path):
    with pytest.raises(ConfigError, match="waraq ladder init"):
        cfg.load(tmp_path)


def test_rules_changed_after_matches_were_planned_are_refused(tmp_path):
    from waraq.ladder.storage.store import Planned

    folder.init(tmp_path, PRESETS["classic"].replace(target_score=1), seed=1)
    with folder.open_ladder(tmp_path) as ladder:
        store = ladder.store
        with store.transaction():
            a = store.add_entry("a", "a", "random", (None, None, None))
            store.plan([Planned(1, 0, 0, 0, 1, (a, a, a, a), "records/x.jsonl")])
    config = cfg.load(tmp_path)
    cfg.save(tmp_path, cfg.LadderConfig(seed=1, rules=config.rules.replace(target_score=3)))
    with pytest.raises(ConfigError, match=r"\[rules\] changed since this ladder's 1 matches"):
        folder.open_ladder(tmp_path)


@pytest.mark.parametrize("name", cfg.LIMITS)
def test_each_sandbox_limit_takes_its_range_from_the_sandbox_and_names_it(tmp_path, name):
    low, high = sandbox.LIMIT_RANGES[name]
    for value in (low, high):
        write(tmp_path, base(f"[sandbox]\n{name} = {value}\n"))
        assert getattr(cfg.load(tmp_path).sandbox.confinement(()).limits, name) == value
    for value in (low - 1, high + 1, 10**20):
        write(tmp_path, base(f"[sandbox]\n{name} = {value}\n"))
        with pytest.raises(ConfigError) as error:
            cfg.load(tmp_path)
        assert str(error.value) == (
            f"{tmp_path / cfg.CONFIG}: [sandbox] {name} = {value}: expected an integer from {low} to {high}"
        )


def test_cpus_is_a_sandbox_key_written_with_its_default_and_carried_to_the_limits(tmp_path):
    folder.init(tmp_path, PRESETS["classic"], seed=1)
    written = tomllib.loads((tmp_path / cfg.CONFIG).read_text())["sandbox"]
    assert written["cpus"] == sandbox.Limits.cpus
    (tmp_path / cfg.CONFIG).write_text((tmp_path / cfg.CONFIG).read_text().replace("cpus = 1 ", "cpus = 3 "))
    assert cfg.load(tmp_path).sandbox.confinement(()).limits.cpus == 3
