"""`codegym train` configuration: dataclasses with help text, loaded from YAML, overridable from
the command line (`trl.learning_rate=1e-5`), validated before anything heavy is loaded.

Layout of a config file:

    algorithm: grpo | rloo | ppo
    model:     what to train (a hub id, a local path, or `tiny` built offline)
    data:      task packs and prompt style
    sandbox:   backend and workers
    reward:    a reward YAML path or an inline mapping (codegym.reward.RewardConfig)
    feedback:  multi-turn self-correction (GRPO)
    stability: adaptive LR, KL/entropy alarms, hack-rate stop, checkpoints
    output:    run directory, logging
    grpo | rloo | ppo:  codegym's per-algorithm options (GRPOOptions, RLOOOptions, PPOOptions)
    trl:       passed through to TRL's GRPOConfig / RLOOConfig / PPOConfig (any of their fields)

`load_train_config` builds all of it, TRL's config object included, and type-checks every field:
a mistake is a ConfigError naming the file and the field, before any model, sandbox or warm-up.
Relative paths (`reward:`, `data.tasks_dirs`, a local model) are read beside the config file first.
"""

from __future__ import annotations

import copy
import enum
import importlib.util
import types
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, Union, get_args, get_origin, get_type_hints

import yaml

from codegym._yaml import load_yaml, yaml_problem
from codegym.errors import CodegymError, did_you_mean
from codegym.reward.config import RewardConfig, RewardConfigError, bundled_config
from codegym.rollout.prompts import PromptConfig
from codegym.train.tiny import TinyModelSpec

Algorithm = Literal["grpo", "rloo", "ppo"]
ALGORITHMS = ("grpo", "rloo", "ppo")


class ConfigError(CodegymError, ValueError):
    """A configuration value is invalid; the message names the file and the field."""


LORA_ALL_LINEAR = "all-linear"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class LoraSettings:
    r: int = field(
        default=0,
        metadata={"help": "LoRA rank: adapters of this rank are trained, the base is frozen (0 = off)."},
    )
    alpha: float = field(
        default=32.0, metadata={"help": "LoRA alpha: the adapters' update is scaled by alpha / r."}
    )
    dropout: float = field(default=0.05, metadata={"help": "Dropout on the adapters' input, in [0, 1)."})
    target_modules: tuple[str, ...] = field(
        default=(LORA_ALL_LINEAR,),
        metadata={
            "help": "Modules that get adapters: names such as [q_proj, v_proj], or all-linear (every linear "
            "layer but the output head)."
        },
    )

    @property
    def enabled(self) -> bool:
        return self.r > 0

    def __post_init__(self) -> None:
        if not isinstance(self.r, int) or isinstance(self.r, bool) or self.r < 0:
            raise ValueError(f"model.lora.r must be an integer >= 0 (0 = no LoRA), got {self.r!r}")
        if not _is_number(self.alpha) or self.alpha <= 0:
            raise ValueError(f"model.lora.alpha must be a number > 0, got {self.alpha!r}")
        if not _is_number(self.dropout) or not 0 <= self.dropout < 1:
            raise ValueError(f"model.lora.dropout must be a number in [0, 1), got {self.dropout!r}")
        names = self.target_modules
        if not names or not all(isinstance(name, str) and name for name in names):
            raise ValueError(
                f"model.lora.target_modules must be a non-empty list of module names, got {names!r}"
            )
        if LORA_ALL_LINEAR in names and len(names) > 1:
            raise ValueError(f"model.lora.target_modules: {LORA_ALL_LINEAR} stands alone, got {list(names)}")
        if self.enabled and importlib.util.find_spec("peft") is None:
            # fail at load time, before a model is downloaded, rather than inside TRL
            raise ValueError("model.lora.r > 0 needs the peft package: pip install 'codegym[train]'")


@dataclass(frozen=True)
class ModelConfig:
    name_or_path: str = field(
        default="tiny", metadata={"help": "Hub id, local directory, or `tiny` (a small Qwen2 built offline)."}
    )
    tiny: TinyModelSpec = field(
        default_factory=TinyModelSpec, metadata={"help": "Shape of the `tiny` model."}
    )
    sft_warmup_steps: int = field(
        default=0, metadata={"help": "Supervised steps on reference solutions before RL (0 = none)."}
    )
    sft_learning_rate: float = field(default=3e-3, metadata={"help": "Learning rate of the SFT warm-up."})
    cpu_threads: int = field(
        default=1,
        metadata={"help": "torch threads when training on CPU (the sandbox needs the other cores)."},
    )
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = field(
        default="auto",
        metadata={
            "help": "dtype of the frozen weights: the reference model and, with LoRA, the base model "
            "(auto: bf16 on a GPU that has it, else fp32). Trained weights (policy, PPO value model, LoRA "
            "adapters) keep fp32 master weights; trl.bf16 / trl.fp16 make the compute mixed precision."
        },
    )
    lora: LoraSettings = field(
        default_factory=LoraSettings,
        metadata={"help": "LoRA adapters instead of full fine-tuning (GRPO, RLOO, PPO's policy)."},
    )

    def __post_init__(self) -> None:
        if self.sft_warmup_steps < 0:
            raise ValueError("model.sft_warmup_steps must be >= 0")
        if self.cpu_threads < 0:
            raise ValueError("model.cpu_threads must be >= 0 (0 = torch's default)")


@dataclass(frozen=True)
class DataConfig:
    packs: tuple[str, ...] = field(default=("basics",), metadata={"help": "Task packs to train on."})
    tasks: tuple[str, ...] = field(default=(), metadata={"help": "Only these task ids (empty = all)."})
    tasks_dirs: tuple[str, ...] = field(default=(), metadata={"help": "Extra task-pack directories."})
    max_tasks: int = field(default=0, metadata={"help": "Use at most this many tasks (0 = all)."})
    prompt: PromptConfig = field(default_factory=PromptConfig, metadata={"help": "Prompt style and context."})

    def __post_init__(self) -> None:
        if not self.packs:
            raise ValueError("data.packs must name at least one task pack")
        if self.max_tasks < 0:
            raise ValueError("data.max_tasks must be >= 0")


@dataclass(frozen=True)
class SandboxSettings:
    backend: str = field(
        default="local",
        metadata={
            "help": "Sandbox backend: local, docker, ray, or http://host:port (a `codegym serve` judge)."
        },
    )
    workers: int = field(
        default=0, metadata={"help": "Sandbox workers (0 = the backend's default; ray: per actor)."}
    )
    # the ray backend's settings (codegym.sandbox.ray.RaySandboxConfig has the rest)
    address: str | None = field(
        default=None,
        metadata={
            "help": "ray: null starts a local Ray instance, auto joins the running cluster, or host:port."
        },
    )
    actors_per_node: int = field(default=1, metadata={"help": "ray: sandbox actors per matching node."})
    node_resources: dict[str, float] = field(
        default_factory=dict, metadata={"help": "ray: custom resources a sandbox node must offer."}
    )
    node_labels: dict[str, str] = field(
        default_factory=dict, metadata={"help": "ray: labels a sandbox node must carry."}
    )
    token_env: str = field(
        default="CODEGYM_SERVE_TOKEN",
        metadata={"help": "http://...: environment variable holding the judge service's bearer token."},
    )

    def __post_init__(self) -> None:
        ray_only = (
            self.address is not None or self.node_resources or self.node_labels or self.actors_per_node != 1
        )
        if ray_only and self.backend != "ray":
            raise ValueError(
                "sandbox.address, actors_per_node, node_resources and node_labels need backend: ray"
            )
        if self.actors_per_node < 1:
            raise ValueError(f"sandbox.actors_per_node must be >= 1, got {self.actors_per_node}")

    def backend_options(self) -> dict[str, Any]:
        """Options for create_backend beyond workers."""
        if self.backend == "ray":
            return {
                "address": self.address,
                "actors_per_node": self.actors_per_node,
                "node_resources": dict(self.node_resources),
                "node_labels": dict(self.node_labels),
            }
        if self.backend.startswith(("http://", "https://")):
            return {"token_env": self.token_env}
        return {}


MIN_ATTEMPT_TOKENS = 16
MIN_FEEDBACK_TOKENS = 16


@dataclass(frozen=True)
class FeedbackConfig:
    # fields that no longer exist, and what replaced them: a config that sets one fails with this message
    RETIRED_FIELDS: ClassVar[dict[str, str]] = {
        "improvement_credit": "removed: it paid more for failing then fixing (1.5) than for passing on the "
        "first try (1.0). Use feedback.correction_bonus, the alpha in [0, 1) of the episode reward "
        "(r1 + r2 + alpha * max(0, r2 - r1)) / 2, which ranks a first-try pass highest."
    }

    turns: int = field(
        default=1, metadata={"help": "Attempts per episode; >1 feeds errors back (GRPO only)."}
    )
    correction_bonus: float = field(
        default=0.5,
        metadata={
            "help": "alpha in [0, 1) of the episode reward (r1 + r2 + alpha * max(0, r2 - r1)) / 2, r1 the "
            "first attempt's reward, r2 the final one's (r2 = r1 without a retry): a first-try pass earns "
            "the most, failing then fixing less, failing twice least; improving pays alpha / 2 per unit."
        },
    )
    feedback_tokens: int = field(
        default=256,
        metadata={
            "help": "Tokens reserved for each feedback message (in completion style, with the restated "
            "starter). trl.max_completion_length bounds the whole episode: each attempt gets "
            "(max_completion_length - (turns - 1) * feedback_tokens) / turns tokens, and feedback may also "
            "use what earlier attempts left; a longer message is cut in the middle of its details."
        },
    )

    def __post_init__(self) -> None:
        if not 1 <= self.turns <= 8:
            raise ValueError(f"feedback.turns must be between 1 and 8, got {self.turns}")
        if not 0 <= self.correction_bonus < 1:
            raise ValueError(
                f"feedback.correction_bonus must be in [0, 1) so that a first-try pass earns the most, "
                f"got {self.correction_bonus}"
            )
        if self.feedback_tokens < MIN_FEEDBACK_TOKENS:
            raise ValueError(
                f"feedback.feedback_tokens must be >= {MIN_FEEDBACK_TOKENS}, got {self.feedback_tokens}"
            )

    def attempt_tokens(self, max_completion_length: int) -> int:
        """Tokens each attempt may generate: the completion budget less the feedback reserve, shared by
        the turns (all of it with one turn)."""
        if self.turns == 1:
            return max_completion_length
        attempt = (max_completion_length - (self.turns - 1) * self.feedback_tokens) // self.turns
        if attempt < MIN_ATTEMPT_TOKENS:
            needed = self.turns * MIN_ATTEMPT_TOKENS + (self.turns - 1) * self.feedback_tokens
            raise ValueError(
                f"trl.max_completion_length {max_completion_length} is too small for feedback.turns "
                f"{self.turns} with feedback.feedback_tokens {self.feedback_tokens}: each attempt would get "
                f"{attempt} tokens (need >= {MIN_ATTEMPT_TOKENS}); set trl.max_completion_length >= {needed} "
                "or lower feedback.feedback_tokens"
            )
        return attempt


@dataclass(frozen=True)
class AdaptiveLRConfig:
    enabled: bool = field(default=True, metadata={"help": "Lower the LR when the reward stalls."})
    patience: int = field(
        default=6,
        metadata={
            "help": "Logged steps without progress (or with collapsed groups) before acting; also the "
            "span of the moving average the mean reward is smoothed with."
        },
    )
    warmup: int = field(
        default=10,
        metadata={
            "help": "Logged rewards seen before either rule may act: the moving average settles first, "
            "so an early lucky batch sets no bar."
        },
    )
    factor: float = field(default=0.5, metadata={"help": "Multiply the LR by this on a plateau or collapse."})
    min_scale: float = field(default=0.05, metadata={"help": "Never go below this fraction of the base LR."})
    min_delta: float = field(
        default=0.01,
        metadata={"help": "Rise of the smoothed mean reward above its best so far that counts as progress."},
    )
    collapse_fraction: float = field(
        default=0.9,
        metadata={
            "help": "Variance collapse: this share or more of groups whose completions all got the same "
            "reward (TRL's frac_reward_zero_std; GRPO/RLOO) for `patience` steps."
        },
    )

    def __post_init__(self) -> None:
        where = "stability.adaptive_lr"
        if self.patience < 1:
            raise ValueError(f"{where}.patience must be >= 1, got {self.patience}")
        if self.warmup < 0:
            raise ValueError(f"{where}.warmup must be >= 0, got {self.warmup}")
        if not 0 < self.factor < 1:
            raise ValueError(f"{where}.factor must be between 0 and 1 (exclusive), got {self.factor}")
        if not 0 < self.min_scale <= 1:
            raise ValueError(f"{where}.min_scale must be in (0, 1], got {self.min_scale}")
        if self.min_delta < 0:
            raise ValueError(f"{where}.min_delta must be >= 0, got {self.min_delta}")
        if not 0 < self.collapse_fraction <= 1:
            raise ValueError(f"{where}.collapse_fraction must be in (0, 1], got {self.collapse_fraction}")


@dataclass(frozen=True)
class StabilityConfig:
    adaptive_lr: AdaptiveLRConfig = field(default_factory=AdaptiveLRConfig, metadata={"help": "Adaptive LR."})
    kl_alarm: float = field(
        default=5.0,
        metadata={
            "help": "Alarm when the KL to the reference per completion token exceeds this (GRPO/RLOO log "
            "KL only with trl.beta > 0; the alarm is off, with a notice, otherwise)."
        },
    )
    entropy_alarm: float = field(
        default=0.05,
        metadata={"help": "Alarm when the policy's entropy per completion token (nats) falls below this."},
    )
    stop_on_alarm: bool = field(default=False, metadata={"help": "Stop training on a KL/entropy alarm."})
    hack_rate_stop: float = field(
        default=0.5,
        metadata={"help": "Stop when the hacking-detector rate exceeds this for hack_patience logs."},
    )
    hack_patience: int = field(default=3, metadata={"help": "Consecutive logs above hack_rate_stop to stop."})

    def __post_init__(self) -> None:
        if self.kl_alarm <= 0:
            raise ValueError(f"stability.kl_alarm must be > 0, got {self.kl_alarm}")
        if self.entropy_alarm < 0:
            raise ValueError(f"stability.entropy_alarm must be >= 0, got {self.entropy_alarm}")
        if not 0 < self.hack_rate_stop <= 1:
            raise ValueError(f"stability.hack_rate_stop must be in (0, 1], got {self.hack_rate_stop}")
        if self.hack_patience < 1:
            raise ValueError(f"stability.hack_patience must be >= 1, got {self.hack_patience}")


@dataclass(frozen=True)
class OutputConfig:
    dir: str = field(default="runs/codegym", metadata={"help": "Run directory (checkpoints, logs, samples)."})
    plot: bool = field(default=True, metadata={"help": "Write reward_components.png at the end."})
    cache: str = field(
        default="default",
        metadata={"help": "Reward cache: default (SQLite), a path, redis://..., memory, off."},
    )


@dataclass(frozen=True)
class EvalConfig:
    """pass@1 of the policy before RL and after it (codegym.train.learning)."""

    enabled: bool = field(
        default=False,
        metadata={"help": "Evaluate pass@1 before RL and after it on the training tasks, with a 95% CI."},
    )
    samples_per_task: int = field(default=50, metadata={"help": "Completions sampled per task."})
    temperature: float = field(default=1.0, metadata={"help": "Sampling temperature of the evaluation."})
    max_new_tokens: int = field(
        default=0, metadata={"help": "Tokens per completion (0: the training run's completion length)."}
    )
    seed: int = field(default=1234, metadata={"help": "Sampling seed (the same for before and after)."})

    def __post_init__(self) -> None:
        if self.samples_per_task < 1:
            raise ValueError("evaluation.samples_per_task must be >= 1")
        if self.temperature < 0:
            raise ValueError("evaluation.temperature must be >= 0")
        if self.max_new_tokens < 0:
            raise ValueError("evaluation.max_new_tokens must be >= 0")


RewardLayout = Literal["joint", "components"]


@dataclass(frozen=True)
class GRPOOptions:
    """codegym's GRPO options (the `grpo:` section); TRL's own fields go under `trl:`."""

    reward_layout: RewardLayout = field(
        default="joint",
        metadata={
            "help": "joint: train on the gated total, log components at weight 0; components: "
            "one weighted function per component (same total)."
        },
    )
    async_rewards: bool = field(
        default=False, metadata={"help": "Async reward functions (judging overlaps other async work)."}
    )


@dataclass(frozen=True)
class RLOOOptions:
    """codegym's RLOO options (the `rloo:` section)."""

    reward_layout: RewardLayout = field(
        default="joint", metadata={"help": "As for GRPO: joint total, or weighted per-component functions."}
    )


@dataclass(frozen=True)
class PPOOptions:
    """codegym's PPO options (the `ppo:` section)."""

    value_model: str = field(
        default="policy",
        metadata={"help": "policy: value model initialised from the policy's weights; or a path."},
    )


@dataclass(frozen=True)
class TrainConfig:
    algorithm: Algorithm = field(default="grpo", metadata={"help": "grpo, rloo or ppo."})
    model: ModelConfig = field(default_factory=ModelConfig, metadata={"help": "The policy model."})
    data: DataConfig = field(default_factory=DataConfig, metadata={"help": "Tasks and prompts."})
    sandbox: SandboxSettings = field(default_factory=SandboxSettings, metadata={"help": "Execution sandbox."})
    reward: RewardConfig = field(default_factory=RewardConfig, metadata={"help": "The joint reward."})
    feedback: FeedbackConfig = field(
        default_factory=FeedbackConfig, metadata={"help": "Multi-turn feedback."}
    )
    stability: StabilityConfig = field(
        default_factory=StabilityConfig, metadata={"help": "Stability guards."}
    )
    output: OutputConfig = field(default_factory=OutputConfig, metadata={"help": "Where results go."})
    evaluation: EvalConfig = field(
        default_factory=EvalConfig, metadata={"help": "pass@1 before and after RL, with a 95% CI."}
    )
    grpo: GRPOOptions = field(default_factory=GRPOOptions, metadata={"help": "codegym GRPO options."})
    rloo: RLOOOptions = field(default_factory=RLOOOptions, metadata={"help": "codegym RLOO options."})
    ppo: PPOOptions = field(default_factory=PPOOptions, metadata={"help": "codegym PPO options."})
    trl: dict[str, Any] = field(
        default_factory=dict,
        metadata={
            "help": "Fields of TRL's algorithm config (GRPOConfig, RLOOConfig, PPOConfig): checked against "
            "that class, field by field and type by type, when the config is loaded."
        },
    )
    source: str = field(default="", metadata={"help": "The file this config came from."})

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}")
        if self.feedback.turns > 1 and self.algorithm != "grpo":
            raise ValueError(
                "feedback.turns > 1 (multi-turn self-correction) is supported with algorithm: grpo"
            )
        if self.algorithm == "ppo" and self.data.prompt.style != "completion":
            raise ValueError(
                "data.prompt.style: ppo needs completion (TRL's PPO trains on plain-text queries)"
            )
        budget = self.trl.get("max_completion_length")
        if self.feedback.turns > 1 and isinstance(budget, int):
            self.feedback.attempt_tokens(budget)  # a budget too small for the turns fails on load

    @property
    def output_dir(self) -> Path:
        return Path(self.output.dir)


def _suggest(name: str, valid: list[str]) -> str:
    return did_you_mean(name, valid, count=2, aside=True)


class _WrongType(Exception):
    """A value does not fit a field's type; `expected` says what would."""

    def __init__(self, expected: str) -> None:
        super().__init__(expected)
        self.expected = expected


def _describe(hint: Any) -> str:
    if hint is bool:
        return "true or false"
    if hint is int:
        return "an integer"
    if hint is float:
        return "a number"
    if hint is str:
        return "a string"
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return "one of " + ", ".join(str(m.value) for m in hint)
    origin = get_origin(hint)
    if origin is Literal:
        return "one of " + ", ".join(map(str, get_args(hint)))
    if origin in (Union, types.UnionType):
        arms = [_describe(arm) for arm in get_args(hint) if arm is not type(None)]
        return " or ".join(dict.fromkeys(arms)) + (" (or null)" if type(None) in get_args(hint) else "")
    if origin in (list, tuple, Sequence) or hint in (list, tuple):
        return "a list"
    if origin is dict or hint is dict:
        return "a mapping"
    return getattr(hint, "__name__", str(hint))


# what a YAML scalar must be for a field of each type (a bool is not an int here, an int is a float)
_SCALARS: dict[Any, Any] = {
    bool: lambda value: isinstance(value, bool),
    int: lambda value: isinstance(value, int) and not isinstance(value, bool),
    float: _is_number,
    str: lambda value: isinstance(value, str),
}


def _coerce(value: Any, hint: Any) -> Any:
    """`value` checked against the type `hint` (what YAML can hold: scalars, lists, mappings), the way
    a config field is typed; raises _WrongType. Types YAML cannot express are accepted as they are."""
    if hint is Any:
        return value
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        arms = get_args(hint)
        if value is None and type(None) in arms:
            return None
        for arm in arms:
            if arm is type(None):
                continue
            try:
                return _coerce(value, arm)
            except _WrongType:
                continue
        raise _WrongType(_describe(hint))
    if origin is Literal:
        if value in get_args(hint):
            return value
        raise _WrongType(_describe(hint))
    if hint in _SCALARS:
        if _SCALARS[hint](value):
            return value
        raise _WrongType(_describe(hint))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        if isinstance(value, hint) or value in {m.value for m in hint}:
            return value
        raise _WrongType(_describe(hint))
    if origin in (list, tuple, Sequence) or hint in (list, tuple):
        if isinstance(value, str) and origin is tuple:
            value = (value,)  # `packs: basics` is `packs: [basics]`
        if not isinstance(value, (list, tuple)):
            raise _WrongType(_describe(hint))
        args = get_args(hint)
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(item, args[0]) for item in value)
        if origin is tuple and args:
            if len(args) != len(value):
                raise _WrongType(f"a list of {len(args)} items")
            return tuple(_coerce(item, arm) for item, arm in zip(value, args, strict=True))
        if args:
            return [_coerce(item, args[0]) for item in value]
        return value
    if origin is dict or hint is dict:
        if isinstance(value, dict):
            return value
        raise _WrongType(_describe(hint))
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _build(cls: type, data: Any, where: str) -> Any:
    """Recursively build dataclass `cls` from a mapping, naming the exact field on any error."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: must be a mapping, got {type(data).__name__}")
    hints = get_type_hints(cls)
    valid = [f.name for f in fields(cls)]
    values: dict[str, Any] = {}
    retired = getattr(cls, "RETIRED_FIELDS", {})
    for key, value in data.items():
        if key in retired:
            raise ConfigError(f"{where}.{key}: {retired[key]}")
        if key not in valid:
            raise ConfigError(
                f"{where}.{key}: unknown field{_suggest(str(key), valid)}; valid: {', '.join(valid)}"
            )
        hint = hints[key]
        if is_dataclass(hint):
            if value is None:  # an empty section (`grpo:` with nothing under it) keeps the defaults
                continue
            value = _build(hint, value, f"{where}.{key}")
        else:
            try:
                value = _coerce(value, hint)
            except _WrongType as exc:
                raise ConfigError(f"{where}.{key}: must be {exc.expected}, got {_shown(value)}") from None
        values[key] = value
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: {exc}") from exc


def _resolve_file(value: str, base_dir: Path) -> Path | None:
    """A relative path in a config: the config file's folder first, then the bundled configs/ (so a
    config copied out of configs/ still finds `reward/default.yaml`), then the working directory."""
    path = Path(value).expanduser()
    if path.is_absolute():
        return path if path.exists() else None
    for candidate in (base_dir / path, bundled_config(value), Path.cwd() / path):
        if candidate.exists():
            return candidate
    return None


def _reward_config(value: Any, base_dir: Path, where: str) -> RewardConfig:
    try:
        if isinstance(value, str):
            path = _resolve_file(value, base_dir)
            if path is None:
                raise ConfigError(
                    f"{where}.reward: no such file {value!r} (looked in {base_dir}, the bundled configs/ "
                    "and the working directory)"
                )
            return RewardConfig.from_yaml(path)
        if isinstance(value, dict):
            return RewardConfig.from_dict(value, source=f"{where}.reward")
    except RewardConfigError as exc:
        raise ConfigError(f"{where}.reward: {exc}") from exc
    raise ConfigError(f"{where}.reward: must be a path to a reward YAML or a mapping, got {_shown(value)}")


def _relative_to_config(data: dict[str, Any], base_dir: Path) -> None:
    """Local paths that exist beside the config file are read from there (else as given, from the
    working directory): extra task-pack folders and a local model folder."""
    section = data.get("data")
    if isinstance(section, dict) and isinstance(section.get("tasks_dirs"), (list, tuple)):
        section["tasks_dirs"] = [
            str(base_dir / d) if isinstance(d, str) and (base_dir / d).is_dir() else d
            for d in section["tasks_dirs"]
        ]
    model = data.get("model")
    if isinstance(model, dict) and isinstance(model.get("name_or_path"), str):
        name = model["name_or_path"]
        if name != "tiny" and not Path(name).is_absolute() and (base_dir / name).is_dir():
            model["name_or_path"] = str(base_dir / name)


def set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    target = data
    for key in keys[:-1]:
        if target.get(key) is None:
            target[key] = {}
        target = target[key]
        if not isinstance(target, dict):
            raise ConfigError(f"override {dotted}: {key} is not a section")
    target[keys[-1]] = value


def parse_override(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"override {text!r}: expected key=value, e.g. trl.learning_rate=1e-5")
    try:
        value = load_yaml(raw) if raw.strip() else ""
    except yaml.YAMLError as exc:
        raise ConfigError(f"override {text!r}: value is not valid YAML: {yaml_problem(exc)}") from exc
    return key.strip(), value


def load_train_config(path: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> TrainConfig:
    """Load, override and validate a training config, TRL's section included: every error is a
    ConfigError naming the file and the field, raised before anything heavy is loaded."""
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{path}: is a folder; give a training config YAML, e.g. configs/quickstart.yaml")
    try:
        raw = load_yaml(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: no such config file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {yaml_problem(exc)}") from exc
    if raw is None:
        # an empty file is a mistake (a wrong path, an unsaved editor), never "train the defaults"
        raise ConfigError(f"{path}: the config file is empty; start from configs/quickstart.yaml")
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: must be a mapping of sections")
    data = copy.deepcopy(raw)
    for override in overrides:
        key, value = parse_override(override)
        set_dotted(data, key, value)
    return config_from_dict(data, source=str(path))


def config_from_dict(data: dict[str, Any], *, source: str = "config") -> TrainConfig:
    """Build and validate a TrainConfig from its YAML mapping; relative paths resolve against the
    folder of `source` (a file) when there is one."""
    data = copy.deepcopy(data)
    base_dir = Path(source).parent if source != "config" else Path.cwd()
    _relative_to_config(data, base_dir)
    reward = data.pop("reward", None)
    data["source"] = source
    where = source
    config = _build(TrainConfig, data, where)
    if reward is not None:
        config = _replace(config, reward=_reward_config(reward, base_dir, where))
    _check_trl_section(config)
    return config


def _replace(config: TrainConfig, **changes: Any) -> TrainConfig:
    values = {f.name: getattr(config, f.name) for f in fields(config)}
    values.update(changes)
    return TrainConfig(**values)


# -- TRL's own config class ---------------------------------------------------------------------

TRL_CONFIG_CLASSES = {
    "grpo": ("trl", "GRPOConfig"),
    "rloo": ("trl", "RLOOConfig"),
    "ppo": ("trl.experimental.ppo", "PPOConfig"),
}

# codegym's defaults for TRL fields; the config's `trl:` section overrides any of them
TRL_DEFAULTS: dict[str, Any] = {
    "logging_steps": 1,
    "save_steps": 10,
    "save_total_limit": 3,
    "report_to": ["tensorboard"],
    "max_grad_norm": 1.0,
    "seed": 0,
    "disable_tqdm": True,
}


def trl_config_class(algorithm: str) -> type:
    """TRL's config dataclass for `algorithm` (imports TRL, not a model)."""
    import importlib
    import warnings

    module, name = TRL_CONFIG_CLASSES[algorithm]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TRL's "experimental" notice concerns its developers, not users
        return getattr(importlib.import_module(module), name)


def validate_trl_section(config_cls: type, data: dict[str, Any], where: str) -> dict[str, Any]:
    """The `trl:` section checked against TRL's config class: unknown fields (with suggestions) and
    values of the wrong type fail here, naming the field, before any model is loaded."""
    hints = get_type_hints(config_cls)
    valid = sorted(f.name for f in fields(config_cls) if f.init)
    checked: dict[str, Any] = {}
    for key, value in data.items():
        if key not in valid:
            raise ConfigError(
                f"{where}.trl.{key}: not a field of {config_cls.__name__}{_suggest(str(key), valid)}"
            )
        try:
            checked[key] = _coerce(value, hints.get(key, Any))
        except _WrongType as exc:
            raise ConfigError(f"{where}.trl.{key}: must be {exc.expected}, got {_shown(value)}") from None
    steps = checked.get("max_steps")
    if steps is not None and (steps == 0 or steps < -1):
        raise ConfigError(
            f"{where}.trl.max_steps: must be >= 1 (or -1: train trl.num_train_epochs), got {steps}"
        )
    return checked


def trl_values(config: TrainConfig, run_dir: Path, forced: dict[str, Any] | None = None) -> dict[str, Any]:
    """The keyword arguments of TRL's config: codegym defaults < the config's `trl:` section < `forced`."""
    import torch

    section = dict(config.trl)
    values = {**TRL_DEFAULTS, **section, **(forced or {})}
    values["output_dir"] = str(run_dir)
    values.setdefault("use_cpu", not torch.cuda.is_available())
    if not torch.cuda.is_available() and "bf16" not in section:
        # TRL turns bf16 autocast on by default; on a CPU it is slower, so only when asked for
        values["bf16"] = False
    values["restore_callback_states_from_checkpoint"] = True
    limit = values.get("save_total_limit")
    if limit is not None and limit < 2:
        # the newest checkpoint may be mid-write when a run dies; the one before it must still exist
        values["save_total_limit"] = 2
    return values


def build_trl_config(config: TrainConfig, run_dir: Path, forced: dict[str, Any] | None = None) -> Any:
    """TRL's config object for the run; its own checks (e.g. batch sizes that do not divide) become
    a ConfigError naming the file."""
    import warnings

    config_cls = trl_config_class(config.algorithm)
    where = config.source or "config"
    try:
        with warnings.catch_warnings():
            # transformers' deprecation notices about its own defaults are not the user's to act on
            warnings.simplefilter("ignore", FutureWarning)
            return config_cls(**trl_values(config, run_dir, forced))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}.trl: {config_cls.__name__}: {' '.join(str(exc).split())}") from exc


def _check_trl_section(config: TrainConfig) -> None:
    """Type-check the `trl:` section and build TRL's config once, so that nothing TRL would refuse
    waits for the SFT warm-up to be found out."""
    where = config.source or "config"
    checked = validate_trl_section(trl_config_class(config.algorithm), config.trl, where)
    config.trl.clear()
    config.trl.update(checked)
    args = build_trl_config(config, config.output_dir)
    budget = getattr(args, "max_completion_length", None)
    if config.feedback.turns > 1 and isinstance(budget, int):
        try:  # TRL's default budget too is known now, not only one the config sets
            config.feedback.attempt_tokens(budget)
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from exc
