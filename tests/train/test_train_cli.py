"""`codegym train` through the real CLI: every mistake is one line before anything heavy starts (the
config with TRL's own fields, the run directory, the model), a run directory never mixes two runs,
and the output is a progress display with the libraries' warnings in the run's log file."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from typer.testing import CliRunner

from codegym.cli.app import app
from tests.conftest import REPO_ROOT
from tests.train.conftest import small_config_dict

runner = CliRunner()


def write_config(tmp_path: Path, run_dir: Path, model: str = "tiny", **sections: object) -> Path:
    path = tmp_path / "train.yaml"
    data = small_config_dict(model, run_dir, **sections)
    path.write_text(yaml.safe_dump(data))
    return path


def train(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["train", *args])
    return result.exit_code, result.output


def error_line(output: str) -> str:
    """The one error line (and assert there is exactly one, and no traceback)."""
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in output, output
    return errors[0]


def earlier_run(run_dir: Path) -> None:
    """What a finished run leaves behind (as far as these checks look)."""
    (run_dir / "checkpoint-7").mkdir(parents=True)
    (run_dir / "checkpoint-7" / "trainer_state.json").write_text('{"global_step": 7}')
    (run_dir / "final-model").mkdir()
    (run_dir / "samples.jsonl").write_text('{"step": 7, "task_id": "old run"}\n')
    (run_dir / "summary.json").write_text(json.dumps({"status": "completed", "run_dir": str(run_dir)}))


# -- the run directory -------------------------------------------------------------------------------


def test_a_second_run_into_the_same_directory_is_refused_naming_resume_and_overwrite(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    earlier_run(run_dir)
    before = sorted(p.name for p in run_dir.iterdir())
    code, output = train(str(write_config(tmp_path, run_dir)))
    line = error_line(output)
    assert code == 2 and "already holds a training run" in line
    assert "--resume auto" in line and "--overwrite" in line
    assert sorted(p.name for p in run_dir.iterdir() if not p.name.startswith(".")) == before
    assert (run_dir / "samples.jsonl").read_text() == '{"step": 7, "task_id": "old run"}\n'


def test_overwrite_leaves_a_folder_with_files_codegym_did_not_write(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    earlier_run(run_dir)
    (run_dir / "notes.txt").write_text("mine")
    (run_dir / "README.md").write_text("my own readme")  # not TRL's model card
    config = str(write_config(tmp_path, run_dir))
    code, output = train(config, "--overwrite")
    line = error_line(output)
    assert code == 2 and "did not write" in line and "notes.txt" in line and "README.md" in line
    assert (run_dir / "notes.txt").read_text() == "mine" and (run_dir / "checkpoint-7").is_dir()
    code, output = train(config, "--overwrite", "--resume", "auto")
    assert code == 2 and "pass one of them" in error_line(output)
    # a folder of someone else's files is not a run to resume or overwrite
    other = tmp_path / "other"
    other.mkdir()
    (other / "data.csv").write_text("1,2\n")
    code, output = train(config, "--output-dir", str(other))
    assert code == 2 and "data.csv" in error_line(output)


def test_a_run_directory_in_use_names_the_other_process(tmp_path: Path) -> None:
    from codegym.train.preflight import run_lock

    run_dir = tmp_path / "run"
    with run_lock(run_dir):
        code, output = train(str(write_config(tmp_path, run_dir)))
    line = error_line(output)
    assert code == 2 and "in use by another codegym train" in line and f"pid {os.getpid()}" in line


def test_unusable_output_dirs_are_one_line_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = str(write_config(tmp_path, tmp_path / "run"))
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    code, output = train(config, "--output-dir", str(a_file))
    assert code == 2 and "is a file" in error_line(output)
    code, output = train(config, "--output-dir", str(a_file / "run"))
    assert code == 2 and f"{a_file} is a file, not a folder" in error_line(output)
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    read_only.chmod(0o555)
    if os.geteuid() == 0:  # root writes anywhere: answer as the kernel would for anyone else
        real_access = os.access
        monkeypatch.setattr(
            os, "access", lambda p, mode, **kw: False if Path(p) == read_only else real_access(p, mode, **kw)
        )
    code, output = train(config, "--output-dir", str(read_only / "run"))
    assert code == 2 and "read-only" in error_line(output)
    assert not (read_only / "run").exists()


# -- the config ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "fragments"),
    [
        ("trl.max_steps=eight", ["trl.max_steps", "must be an integer", "'eight'"]),
        ("trl.learning_rate=fast", ["trl.learning_rate", "must be a number", "'fast'"]),
        ("trl.learnig_rate=1e-5", ["trl.learnig_rate", "did you mean 'learning_rate'"]),
        ("trl.num_generations=3", ["trl", "GRPOConfig", "divisible by num_generations"]),
        ("grpo.reward_layout=both", ["grpo.reward_layout", "joint"]),
        ("model.sft_warmup_steps=ten", ["model.sft_warmup_steps", "must be an integer"]),
    ],
)
def test_config_mistakes_stop_before_any_work(tmp_path: Path, override: str, fragments: list[str]) -> None:
    run_dir = tmp_path / "run"
    config = write_config(tmp_path, run_dir)
    code, output = train(str(config), override)
    line = error_line(output)
    assert code == 2 and str(config) in line
    for fragment in fragments:
        assert fragment in line
    assert not run_dir.exists(), "nothing may start before the config is valid"


@pytest.mark.parametrize("steps", ["-1", "0"])
def test_max_steps_below_one_is_refused(tmp_path: Path, steps: str) -> None:
    code, output = train(str(write_config(tmp_path, tmp_path / "run")), "--max-steps", steps)
    assert code == 2 and f"--max-steps must be >= 1, got {steps}" in error_line(output)


@pytest.mark.parametrize("text", ["", "# nothing but a comment\n"])
def test_an_empty_config_file_is_an_error(tmp_path: Path, text: str) -> None:
    config = tmp_path / "train.yaml"
    config.write_text(text)
    code, output = train(str(config))
    assert code == 2 and "is empty" in error_line(output) and str(config) in output


def test_relative_paths_resolve_beside_the_config_then_in_the_bundled_configs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codegym.reward.config import RewardConfig
    from codegym.train.config import ConfigError, load_train_config

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    copied = tmp_path / "quickstart.yaml"  # copied out of configs/: `reward: reward/default.yaml`
    copied.write_text((REPO_ROOT / "configs" / "quickstart.yaml").read_text())
    bundled = RewardConfig.from_yaml(REPO_ROOT / "configs" / "reward" / "default.yaml")
    assert load_train_config(copied).reward == bundled
    (tmp_path / "reward").mkdir()  # a reward file beside the config comes first
    (tmp_path / "reward" / "default.yaml").write_text("weights: {style: 0.5}\n")
    assert load_train_config(copied).reward.weights.style == 0.5
    with pytest.raises(ConfigError, match=r"quickstart\.yaml\.reward: no such file 'reward/nope\.yaml'"):
        load_train_config(copied, ["reward=reward/nope.yaml"])


# -- the model -----------------------------------------------------------------------------------------


def test_a_missing_local_model_fails_fast(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    config = str(write_config(tmp_path, run_dir, model=str(tmp_path / "models" / "mine")))
    code, output = train(config)
    assert code == 2 and "no such folder" in error_line(output)
    (tmp_path / "not-a-model").mkdir()
    code, output = train(config, f"model.name_or_path={tmp_path / 'not-a-model'}")
    assert code == 2 and "no config.json" in error_line(output)
    assert not (run_dir / "config.json").exists()


def test_a_hub_model_offline_fails_fast(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    config = str(write_config(tmp_path, tmp_path / "run", model="Qwen/Qwen2.5-Coder-0.5B"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    code, output = train(config)
    line = error_line(output)
    assert code == 2 and "not in the local hub cache" in line and "HF_HUB_OFFLINE" in line
    # no network: nothing listens on port 9, so the hub cannot be reached
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")
    code, output = train(config)
    assert code == 2 and "cannot be reached" in error_line(output)


def test_a_cached_hub_model_without_a_network_loads_from_the_cache_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    from codegym.train.config import ModelConfig
    from codegym.train.preflight import check_model_source

    repo = tmp_path / "cache" / "models--Qwen--Qwen2.5-Coder-0.5B"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("abc123")
    (repo / "snapshots" / "abc123").mkdir(parents=True)
    (repo / "snapshots" / "abc123" / "config.json").write_text("{}")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    notice = check_model_source(ModelConfig(name_or_path="Qwen/Qwen2.5-Coder-0.5B"), "train.yaml")
    assert notice and "loads from the local hub cache" in notice
    assert constants.HF_HUB_OFFLINE and os.environ["HF_HUB_OFFLINE"] == "1"  # no minute of retries


# -- what a run shows ----------------------------------------------------------------------------------


def _state(step: int, total: int) -> SimpleNamespace:
    return SimpleNamespace(is_world_process_zero=True, global_step=step, max_steps=total)


GRPO_LOGS = {
    "loss": 1e-8,
    "grad_norm": 0.7,
    "learning_rate": 0.01,
    "codegym/lr_scale": 1.0,
    "num_tokens": 2476.0,
    **{f"completions/{k}": 24.0 for k in ("mean_length", "min_length", "max_length", "clipped_ratio")},
    **{
        f"rewards/{c}/{s}": 0.1
        for c in ("joint", "tests", "coverage", "style", "complexity", "efficiency", "hacks")
        for s in ("mean", "std")
    },
    "reward": 0.41,
    "reward_std": 0.05,
    "frac_reward_zero_std": 0.0,
    "codegym/hack_rate": 0.0,
    "codegym/pass_rate": 0.25,
    "codegym/sandbox_error_rate": 0.0,
    "codegym/tests_passed_fraction": 0.3,
    "entropy": 6.37,
    **{f"clip_ratio/{k}": 0.0 for k in ("low_mean", "high_mean", "region_mean", "low_min", "high_max")},
    "step_time": 0.64,
    "epoch": 0.25,
}


def test_the_progress_panel_fits_a_24_line_terminal() -> None:
    import io

    from rich.console import Console

    from codegym.train.progress import ProgressPanel

    terminal = Console(file=io.StringIO(), width=80, height=24, force_terminal=True)
    panel = ProgressPanel("GRPO", console=terminal)
    panel.on_train_begin(None, _state(0, 40), None)
    panel.on_step_end(None, _state(3, 40), None)
    panel.on_log(None, _state(3, 40), None, logs=dict(GRPO_LOGS))
    panel.on_train_end(None, _state(3, 40), None)
    shown = Console(file=io.StringIO(), width=80, height=24)
    shown.print(panel.renderable())
    lines = shown.file.getvalue().splitlines()
    assert len(lines) <= 24 - ProgressPanel.RESERVED_LINES, "\n".join(lines)
    assert all(len(line) <= 80 for line in lines)
    text = "\n".join(lines)
    assert "step 3/40" in text and "reward" in text and "pass rate" in text


def test_progress_lines_off_a_terminal_come_every_tenth_of_the_run() -> None:
    from codegym.train.progress import ProgressLines

    said: list[str] = []
    lines = ProgressLines("SFT warm-up", said.append)
    lines.on_train_begin(None, _state(0, 90), None)
    for step in range(1, 91):
        lines.on_step_end(None, _state(step, 90), None)
        lines.on_log(None, _state(step, 90), None, logs={"loss": 3.0 - step / 90})
    lines.on_train_end(None, _state(90, 90), None)
    assert len(said) == 10, said
    assert said[0].startswith("SFT warm-up: step 9/90 (10%), loss 2.9")
    assert said[-1].startswith("SFT warm-up: step 90/90 (100%), loss 2")


def test_library_warnings_go_to_the_run_log_not_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from codegym.train.logs import library_output_to_log

    with library_output_to_log(tmp_path) as log:
        warnings.warn("`gradient_checkpointing` is deprecated", FutureWarning, stacklevel=1)
        logging.getLogger("transformers.modeling_utils").warning("mtime may not be reliable")
        logging.getLogger("trl.trainer.sft_trainer").warning("Mismatch between tokenized prompt")
        log.note("SFT warm-up: 2 steps")
    assert capfd.readouterr().err == ""
    text = (tmp_path / "train.log").read_text()
    for fragment in ("FutureWarning", "mtime may not be reliable", "Mismatch", "SFT warm-up"):
        assert fragment in text
    assert log.warnings == 3
    assert logging.getLogger("transformers").handlers != [], "transformers' own handler is back"


def test_overwrite_starts_over_and_the_run_shows_progress_not_warnings(
    tiny_model_path: str, tmp_path: Path
) -> None:
    """The real CLI, off a terminal: an earlier run is cleared (its checkpoint would be the one
    `--resume auto` picks), the warm-up and RL print progress lines, stderr stays clean."""
    run_dir = tmp_path / "run"
    earlier_run(run_dir)
    config = write_config(
        tmp_path,
        run_dir,
        model=tiny_model_path,
        trl={"max_steps": 1, "max_completion_length": 16},
        output={"dir": str(run_dir), "cache": "memory", "plot": False},
    )
    data = yaml.safe_load(config.read_text())
    data["model"]["sft_warmup_steps"] = 2
    config.write_text(yaml.safe_dump(data))
    command = [sys.executable, "-m", "codegym.cli.app", "train", str(config)]
    done = subprocess.run(
        [*command, "--overwrite"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not (run_dir / "checkpoint-7").exists() and (run_dir / "checkpoint-1").is_dir()
    assert "old run" not in (run_dir / "samples.jsonl").read_text()
    assert "SFT warm-up: step 2/2 (100%), loss" in done.stdout
    assert "GRPO: step 1/1 (100%)" in done.stdout and "{'loss'" not in done.stdout
    assert "Warning" not in done.stderr and "%|" not in done.stderr, done.stderr[-3000:]
    assert (run_dir / "train.log").exists()
    again = runner.invoke(app, ["train", str(config)])
    assert again.exit_code == 2 and "--resume auto" in error_line(again.output)


def test_resume_auto_without_a_checkpoint_never_mixes_a_new_run_into_an_old_one(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "samples.jsonl").write_text('{"step": 1, "task_id": "killed before its first checkpoint"}\n')
    code, output = train(str(write_config(tmp_path, run_dir)), "--resume", "auto")
    line = error_line(output)
    assert code == 2 and "no complete checkpoint" in line and "--overwrite" in line
    assert (run_dir / "samples.jsonl").read_text().count("\n") == 1
    code, output = train(str(write_config(tmp_path, run_dir)), "--resume", str(run_dir / "checkpoint-9"))
    assert code == 2 and "not a complete checkpoint" in error_line(output)
