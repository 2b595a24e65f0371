"""Training configuration: every bundled config loads; bad input names file and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegym.train.config import ConfigError, load_train_config, parse_override
from tests.conftest import REPO_ROOT

TRAIN_CONFIGS = sorted(p for p in (REPO_ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", TRAIN_CONFIGS, ids=lambda p: p.name)
def test_bundled_train_configs_load_and_validate(path: Path) -> None:
    from codegym.train.config import TRL_DEFAULTS, build_trl_config, trl_config_class, validate_trl_section

    config = load_train_config(path)  # TRL's own config class is built and checked here too
    assert config.algorithm in ("grpo", "rloo", "ppo")
    trl_class = trl_config_class(config.algorithm)
    validate_trl_section(trl_class, {**TRL_DEFAULTS, **config.trl}, str(path))
    assert isinstance(build_trl_config(config, config.output_dir), trl_class)


def test_quickstart_is_cpu_offline_and_short() -> None:
    config = load_train_config(REPO_ROOT / "configs" / "quickstart.yaml")
    assert config.model.name_or_path == "tiny" and config.sandbox.backend == "local"
    assert config.trl["max_steps"] <= 60 and config.trl["save_steps"] <= config.trl["max_steps"]
    # it ends by measuring what RL did: pass@1 before and after, with a confidence interval
    assert config.evaluation.enabled and config.evaluation.samples_per_task >= 50


def test_overrides_apply_with_yaml_values() -> None:
    config = load_train_config(
        REPO_ROOT / "configs" / "quickstart.yaml",
        [
            "trl.learning_rate=1e-4",
            "data.packs=[basics, repo]",
            "feedback.turns=2",
            "trl.max_completion_length=320",
        ],
    )
    assert config.trl["learning_rate"] == 1e-4 and config.data.packs == ("basics", "repo")
    assert config.feedback.turns == 2
    assert parse_override("a.b=[1, 2]") == ("a.b", [1, 2])
    with pytest.raises(ConfigError, match="expected key=value"):
        parse_override("nonsense")


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("algorithm: dqn\n", ["algorithm", "grpo"]),
        ("model:\n  name_or_pth: x\n", ["model.name_or_pth", "did you mean 'name_or_path'"]),
        ("data:\n  packs: []\n", ["data.packs must name at least one"]),
        ("feedback:\n  turns: 3\nalgorithm: ppo\n", ["feedback.turns > 1"]),
        ("stability:\n  adaptive_lr:\n    factor: 2\n", ["adaptive_lr", "factor"]),
        ("reward:\n  weights:\n    speed: 1\n", ["reward", "unknown weights ['speed']"]),
        ("data:\n  prompt:\n    style: poem\n", ["data.prompt.style", "completion"]),
        ("- just a list\n", ["must be a mapping"]),
    ],
)
def test_bad_config_names_file_and_field(tmp_path: Path, text: str, fragments: list[str]) -> None:
    path = tmp_path / "train.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_train_config(path)
    message = str(info.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message


def test_unknown_trl_field_is_caught_before_loading_a_model(tmp_path: Path) -> None:
    from trl import GRPOConfig

    from codegym.train.config import validate_trl_section

    with pytest.raises(
        ConfigError, match=r"trl\.learnig_rate: not a field of GRPOConfig \(did you mean 'learning_rate'"
    ):
        validate_trl_section(GRPOConfig, {"learnig_rate": 1.0}, "x.yaml")
