"""Mixed precision and LoRA on CPU with the tiny model: trained weights are fp32 master weights (a
bf16 checkpoint at lr 1e-6 still moves), frozen ones follow `model.dtype`; LoRA adapters train,
checkpoint, resume, and merge into a plain exported model."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback

from codegym.train.checkpoints import is_valid_checkpoint
from codegym.train.config import ConfigError, LoraSettings, ModelConfig, TrainConfig, load_train_config
from codegym.train.model_setup import (
    ADAPTER_DIR,
    ADAPTER_WEIGHTS,
    load_policy,
    load_reference,
    load_value_model,
    lora_config,
    reference_init_kwargs,
)
from codegym.train.run import run_training
from tests.train.conftest import small_config

LORA = LoraSettings(r=4, alpha=8, dropout=0.0, target_modules=("q_proj", "v_proj", "up_proj"))


def run_config(model_path: str, run_dir: Path, algorithm: str, model: ModelConfig, **trl: Any) -> TrainConfig:
    """`small_config` with these model settings."""
    return replace(small_config(model_path, run_dir, algorithm, trl=trl), model=model)


@pytest.fixture(scope="module")
def bf16_model_path(tiny_model_path: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The tiny model saved in bf16, as a user's bf16 checkpoint is."""
    target = tmp_path_factory.mktemp("tiny-bf16")
    AutoModelForCausalLM.from_pretrained(tiny_model_path, dtype=torch.bfloat16).save_pretrained(target)
    AutoTokenizer.from_pretrained(tiny_model_path).save_pretrained(target)
    assert json.loads((target / "config.json").read_text())["dtype"] == "bfloat16"
    return str(target)


def weights(path: str | Path) -> dict[str, torch.Tensor]:
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


@pytest.mark.parametrize(
    ("lora", "fragment"),
    [
        ({"r": -1}, "model.lora.r must be an integer >= 0"),
        ({"r": 2.5}, "model.lora.r: must be an integer, got 2.5"),
        ({"r": 8, "alpha": 0}, "model.lora.alpha must be a number > 0"),
        ({"r": 8, "dropout": 1.0}, "model.lora.dropout must be a number in [0, 1)"),
        ({"r": 8, "target_modules": []}, "model.lora.target_modules must be a non-empty list"),
        ({"r": 8, "target_modules": ["all-linear", "q_proj"]}, "all-linear stands alone"),
        ({"rank": 8}, "model.lora.rank: unknown field"),
    ],
)
def test_bad_lora_settings_name_the_file_and_field(tmp_path: Path, lora: dict, fragment: str) -> None:
    path = tmp_path / "train.yaml"
    path.write_text(json.dumps({"model": {"lora": lora}}))
    with pytest.raises(ConfigError) as info:
        load_train_config(path)
    assert str(path) in str(info.value) and fragment in str(info.value)


def test_lora_settings_become_a_peft_config() -> None:
    assert lora_config(ModelConfig()) is None, "LoRA is off by default (r = 0)"
    everything = lora_config(ModelConfig(lora=LoraSettings(r=8)))
    assert everything.r == 8 and everything.lora_alpha == 32 and everything.target_modules == "all-linear"
    named = lora_config(ModelConfig(lora=LoraSettings(r=4, alpha=8, dropout=0.1, target_modules=("q_proj",))))
    assert named.target_modules == {"q_proj"} and named.lora_dropout == 0.1 and named.task_type == "CAUSAL_LM"


def test_trained_models_load_in_fp32_and_frozen_ones_in_model_dtype(bf16_model_path: str) -> None:
    bf16 = ModelConfig(name_or_path=bf16_model_path, dtype="bfloat16")
    assert load_policy(bf16_model_path, bf16).dtype == torch.float32
    assert load_value_model(bf16_model_path, pad_token_id=0).dtype == torch.float32
    assert load_reference(bf16_model_path, bf16).dtype == torch.bfloat16
    # GRPO/RLOO build their own reference from model_init_kwargs, only when there is one
    assert reference_init_kwargs(bf16, beta=0.05) == {"dtype": torch.bfloat16}
    assert reference_init_kwargs(bf16, beta=0.0) is None
    assert reference_init_kwargs(ModelConfig(dtype="float32"), beta=0.05) is None
    # with LoRA the base is frozen: it stays in model.dtype, and disabling the adapters is the reference
    lora = ModelConfig(name_or_path=bf16_model_path, dtype="bfloat16", lora=LoraSettings(r=4))
    assert load_policy(bf16_model_path, lora).dtype == torch.bfloat16
    assert load_reference(bf16_model_path, lora) is None and reference_init_kwargs(lora, beta=0.05) is None


class _ComputeDtypes(TrainerCallback):
    """Records (weight dtype, output dtype) of one of the policy's linear layers in every forward."""

    def __init__(self) -> None:
        self.seen: set[tuple[torch.dtype, torch.dtype]] = set()

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        policy = getattr(model, "policy", model)  # PPO's trainer wraps policy and value model
        layer = policy.model.layers[0].self_attn.q_proj
        layer.register_forward_hook(
            lambda module, _, output: self.seen.add((module.weight.dtype, output.dtype))
        )
        return control


def test_one_bf16_step_at_lr_1e_6_moves_most_weights(bf16_model_path: str, tmp_path: Path) -> None:
    """A bf16 checkpoint with `model.dtype: bfloat16` and `trl.bf16: true` (autocast, on CPU too):
    trained as pure bf16, an lr 1e-6 step left ~99% of weights unchanged; with fp32 master weights
    every weight that gets a gradient moves."""
    bf16 = ModelConfig(name_or_path=bf16_model_path, dtype="bfloat16")
    config = run_config(
        bf16_model_path, tmp_path, "grpo", bf16, max_steps=1, learning_rate=1e-6, bf16=True, beta=0.04
    )
    compute = _ComputeDtypes()
    result = run_training(config, extra_callbacks=[compute])
    assert result.status == "completed" and result.steps == 1
    assert compute.seen == {(torch.float32, torch.bfloat16)}, "fp32 weights, bf16 compute (autocast)"
    final = tmp_path / "final-model"
    assert json.loads((final / "config.json").read_text())["dtype"] == "float32", "master weights are fp32"
    before, after = weights(bf16_model_path), weights(final)
    changed = sum(int((before[k] != after[k]).sum()) for k in before)
    total = sum(v.numel() for v in before.values())
    assert changed / total > 0.5, f"only {changed / total:.2%} of weights changed"


class _AdapterAtStart(TrainerCallback):
    """Records the adapter weights the (resumed) policy starts training with."""

    def __init__(self) -> None:
        self.weights: dict[str, torch.Tensor] = {}

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        from peft import get_peft_model_state_dict

        policy = getattr(model, "policy", model)
        self.weights = {k: v.detach().clone() for k, v in get_peft_model_state_dict(policy).items()}
        return control


def test_grpo_lora_saves_adapters_resumes_and_exports_a_merged_model(
    tiny_model_path: str, tmp_path: Path
) -> None:
    lora = ModelConfig(name_or_path=tiny_model_path, lora=LORA)
    config = run_config(tiny_model_path, tmp_path, "grpo", lora)
    assert run_training(config).steps == 2
    checkpoint = tmp_path / "checkpoint-2"
    assert is_valid_checkpoint(checkpoint)
    assert (checkpoint / ADAPTER_WEIGHTS).exists() and not (checkpoint / "model.safetensors").exists()
    saved = load_file(checkpoint / ADAPTER_WEIGHTS)
    assert saved and all("lora_" in key for key in saved)

    start = _AdapterAtStart()
    longer = run_config(tiny_model_path, tmp_path, "grpo", lora, max_steps=3)
    result = run_training(longer, resume=str(checkpoint), extra_callbacks=[start])
    assert result.steps == 3 and result.resumed_from == str(checkpoint)
    assert start.weights.keys() == saved.keys()
    assert all(torch.equal(start.weights[k], saved[k]) for k in saved), "resume did not load the adapter"

    from peft import PeftModel

    final, adapter = tmp_path / "final-model", tmp_path / ADAPTER_DIR
    assert not (final / "adapter_config.json").exists(), "final-model is a plain model"
    merged = AutoModelForCausalLM.from_pretrained(final).eval()
    adapted = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_model_path), adapter).eval()
    base = AutoModelForCausalLM.from_pretrained(tiny_model_path).eval()
    ids = AutoTokenizer.from_pretrained(final)("def add(a, b):\n    return", return_tensors="pt")["input_ids"]
    with torch.no_grad():
        merged_logits, adapted_logits, base_logits = (m(ids).logits for m in (merged, adapted, base))
    assert not torch.allclose(adapted_logits, base_logits, atol=1e-4), "the adapter learned nothing"
    torch.testing.assert_close(merged_logits, adapted_logits, atol=1e-5, rtol=1e-5)


def test_rloo_lora_trains_only_the_adapters(tiny_model_path: str, tmp_path: Path) -> None:
    lora = ModelConfig(name_or_path=tiny_model_path, lora=LORA)
    config = run_config(tiny_model_path, tmp_path, "rloo", lora, max_steps=1)
    assert run_training(config).steps == 1
    before, after = weights(tiny_model_path), weights(tmp_path / "final-model")
    moved = {k for k in before if not torch.equal(before[k], after[k])}
    assert moved, "the merged model equals the base"
    assert all(any(name in k for name in LORA.target_modules) for k in moved), sorted(moved)


def test_ppo_mixed_precision_is_set_only_while_the_trainer_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from codegym.train.model_setup import mixed_precision_for_ppo

    monkeypatch.delenv("ACCELERATE_MIXED_PRECISION", raising=False)
    with mixed_precision_for_ppo(SimpleNamespace(bf16=True, fp16=False)):
        assert os.environ["ACCELERATE_MIXED_PRECISION"] == "bf16"
    assert "ACCELERATE_MIXED_PRECISION" not in os.environ, "it would leak into later runs"
    with mixed_precision_for_ppo(SimpleNamespace(bf16=False, fp16=False)):
        assert "ACCELERATE_MIXED_PRECISION" not in os.environ
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "no")  # a launcher's choice is kept
    with mixed_precision_for_ppo(SimpleNamespace(bf16=True, fp16=False)):
        assert os.environ["ACCELERATE_MIXED_PRECISION"] == "no"


def test_ppo_bf16_step_trains_fp32_policy_and_value_under_autocast(
    bf16_model_path: str, tmp_path: Path
) -> None:
    bf16 = ModelConfig(name_or_path=bf16_model_path, dtype="bfloat16")
    config = run_config(bf16_model_path, tmp_path, "ppo", bf16, max_steps=1, learning_rate=1e-6, bf16=True)
    compute = _ComputeDtypes()
    assert run_training(config, extra_callbacks=[compute]).steps == 1
    assert (torch.float32, torch.bfloat16) in compute.seen, compute.seen
    before, after = weights(bf16_model_path), weights(tmp_path / "final-model")
    changed = sum(int((before[k] != after[k]).sum()) for k in before)
    assert changed / sum(v.numel() for v in before.values()) > 0.5


def test_ppo_lora_saves_adapters_resumes_and_exports_a_merged_model(
    tiny_model_path: str, tmp_path: Path
) -> None:
    lora = ModelConfig(name_or_path=tiny_model_path, lora=LORA)
    assert run_training(run_config(tiny_model_path, tmp_path, "ppo", lora)).steps == 2
    checkpoint = tmp_path / "checkpoint-2"
    assert is_valid_checkpoint(checkpoint) and (checkpoint / ADAPTER_WEIGHTS).exists()
    saved = load_file(checkpoint / ADAPTER_WEIGHTS)
    start = _AdapterAtStart()
    result = run_training(
        run_config(tiny_model_path, tmp_path, "ppo", lora, max_steps=3),
        resume=str(checkpoint),
        extra_callbacks=[start],
    )
    assert result.steps == 3
    assert all(torch.equal(start.weights[k], saved[k]) for k in saved), "resume did not load the adapter"
    before, after = weights(tiny_model_path), weights(tmp_path / "final-model")
    moved = {k for k in before if not torch.equal(before[k], after[k])}
    assert moved and all(any(name in k for name in LORA.target_modules) for k in moved), sorted(moved)
