"""Reward configuration: weights, gates, penalties and measurement settings (YAML or code)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from codegym.errors import CodegymError

COMPONENTS = ("tests", "coverage", "style", "complexity", "efficiency")
QUALITY_COMPONENTS = ("coverage", "style", "complexity", "efficiency")


def bundled_config(relative: str) -> Path:
    """A file under the project's configs/ (the wheel carries them as codegym/_bundled_configs)."""
    package = Path(__file__).resolve().parents[1]
    for root in (package / "_bundled_configs", package.parent / "configs"):
        if (root / relative).exists():
            return root / relative
    return package.parent / "configs" / relative


DEFAULT_RUFF_CONFIG = bundled_config("reward/ruff.toml")
QualityGate = Literal["proportional", "all_passed", "none"]
Correctness = Literal["binary", "fraction"]
CompletionFormat = Literal["auto", "append", "solution"]


class RewardConfigError(CodegymError, ValueError):
    """A reward configuration value is invalid; the message names the file and field."""


@dataclass(frozen=True)
class RewardWeights:
    tests: float = field(
        default=1.0, metadata={"help": "Weight of correctness (see `correctness`: binary or fraction)."}
    )
    coverage: float = field(
        default=0.1, metadata={"help": "Weight of line+branch coverage of generated code."}
    )
    style: float = field(default=0.1, metadata={"help": "Weight of the ruff style score."})
    complexity: float = field(
        default=0.1, metadata={"help": "Weight of cyclomatic complexity relative to reference."}
    )
    efficiency: float = field(default=0.1, metadata={"help": "Weight of CPU time relative to the reference."})

    def __post_init__(self) -> None:
        for name in COMPONENTS:
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise RewardConfigError(f"weights.{name} must be a number >= 0, got {value!r}")
        if self.tests <= 0:
            raise RewardConfigError("weights.tests must be > 0: correctness is what the reward is about")

    def as_dict(self) -> dict[str, float]:
        return {name: float(getattr(self, name)) for name in COMPONENTS}

    @property
    def total(self) -> float:
        return sum(self.as_dict().values())


@dataclass(frozen=True)
class RewardConfig:
    """How an execution becomes a reward.

    total = (w_tests * tests + gate * sum(w_q * q)) / sum(w) - penalties, where `tests` is 1 when every
    hidden test passed, else 0 (`correctness: binary`, the default) or the fraction passed
    (`correctness: fraction`), and the gate is 1 only when every hidden test passed (all_passed, the
    default), `tests` (proportional), or 1 (none). With the defaults every fully correct program
    outranks every partly correct one, and quality only shapes the reward among correct programs. A
    detected hack zeroes the correctness credit (so gated quality is 0 too) and costs `hack_penalty`.
    """

    weights: RewardWeights = field(default_factory=RewardWeights, metadata={"help": "Component weights."})
    correctness: Correctness = field(
        default="binary",
        metadata={
            "help": "binary: tests = 1 only when every hidden test passes (the fraction is still logged); "
            "fraction: tests = hidden tests passed / hidden tests (partial credit; see the README for "
            "what it taught a small model)."
        },
    )
    quality_gate: QualityGate = field(
        default="all_passed",
        metadata={"help": "How quality components are gated by correctness: all_passed, proportional, none."},
    )
    timeout_penalty: float = field(default=0.1, metadata={"help": "Subtracted when the run timed out."})
    error_penalty: float = field(default=0.0, metadata={"help": "Subtracted for syntax/runtime errors."})
    hack_penalty: float = field(default=0.5, metadata={"help": "Subtracted when a hacking detector fires."})
    detectors: tuple[str, ...] = field(
        default=("early_exit", "sandbox_attack", "always_equal", "hardcoded_visible"),
        metadata={"help": "Hacking detectors that zero correctness credit when they fire."},
    )
    hardcode_gap: float = field(
        default=0.5,
        metadata={
            "help": "Visible-minus-hidden pass-rate gap that, with visible literals "
            "in the code, counts as hard-coding."
        },
    )
    style_scale: float = field(
        default=10.0, metadata={"help": "style = 1 / (1 + style_scale * findings / generated lines of code)."}
    )
    ruff_config: str = field(
        default=str(DEFAULT_RUFF_CONFIG),
        metadata={"help": "ruff configuration (rule set) for the style score."},
    )
    timing_repeats: int = field(
        default=1,
        metadata={
            "help": "Timed runs of the hidden tests besides the verdict pass (each in a fresh program "
            "process; the verdict pass of a passing program is the first sample); the minimum counts."
        },
    )
    timing_floor_ms: float = field(
        default=2.0,
        metadata={
            "help": "CPU time above the reference's (beyond the tolerance) that still scores full "
            "efficiency: differences below it are noise, and identical programs score identically."
        },
    )
    timing_tolerance: float = field(
        default=0.3,
        metadata={
            "help": "Up to this fraction slower than the reference still scores as fast as the reference."
        },
    )
    efficiency_step: float = field(
        default=0.1,
        metadata={
            "help": "Efficiency is rounded down to a multiple of this, so noise rarely moves the score."
        },
    )
    retime: bool = field(
        default=True,
        metadata={
            "help": "Time again in a second judgment once the batch is done, and count both judgments' "
            "samples: each reference solution (its yardstick is kept per machine), and each passing "
            "program that scored below full efficiency within timing_budget_s. Other work on a shared "
            "machine slows a program for a second or more, and one judgment's samples share that moment."
        },
    )
    completion_format: CompletionFormat = field(
        default="auto",
        metadata={"help": "auto: fenced code or a full module is the whole file, else append to the prompt."},
    )
    run_visible_tests: bool = field(
        default=True, metadata={"help": "Also run visible tests (for the visible/hidden gap detector)."}
    )
    stop_at_first_failure: bool = field(
        default=False,
        metadata={
            "help": "Input/output tasks: stop at the first case that fails (faster; the usual RL setting). "
            "The logged fraction of cases passed is then None; needs `correctness: binary`."
        },
    )

    def __post_init__(self) -> None:
        if isinstance(self.weights, dict):
            object.__setattr__(self, "weights", RewardWeights(**self.weights))
        object.__setattr__(self, "detectors", tuple(self.detectors))
        if self.correctness not in ("binary", "fraction"):
            raise RewardConfigError(f"correctness must be binary or fraction, got {self.correctness!r}")
        if self.stop_at_first_failure and self.correctness == "fraction":
            raise RewardConfigError(
                "stop_at_first_failure leaves the fraction of cases passed unknown: use correctness: binary"
            )
        if self.quality_gate not in ("proportional", "all_passed", "none"):
            raise RewardConfigError(
                f"quality_gate must be proportional, all_passed or none, got {self.quality_gate!r}"
            )
        if self.completion_format not in ("auto", "append", "solution"):
            raise RewardConfigError(
                f"completion_format must be auto, append or solution, got {self.completion_format!r}"
            )
        for name in (
            "timeout_penalty",
            "error_penalty",
            "hack_penalty",
            "style_scale",
            "timing_floor_ms",
            "timing_tolerance",
        ):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or value < 0:
                raise RewardConfigError(f"{name} must be a number >= 0, got {value!r}")
        if not 0 < self.hardcode_gap <= 1:
            raise RewardConfigError(f"hardcode_gap must be in (0, 1], got {self.hardcode_gap!r}")
        if not isinstance(self.timing_repeats, int) or self.timing_repeats < 1:
            raise RewardConfigError(f"timing_repeats must be an integer >= 1, got {self.timing_repeats!r}")
        if not isinstance(self.retime, bool):
            raise RewardConfigError(f"retime must be true or false, got {self.retime!r}")
        if not isinstance(self.efficiency_step, (int, float)) or not 0 < self.efficiency_step <= 1:
            raise RewardConfigError(f"efficiency_step must be in (0, 1], got {self.efficiency_step!r}")
        from codegym.reward.detectors import DETECTORS, RETIRED_DETECTORS

        for name in self.detectors:
            if name in RETIRED_DETECTORS:
                raise RewardConfigError(
                    f"detector {name!r} was retired: {RETIRED_DETECTORS[name]}; valid: {', '.join(DETECTORS)}"
                )
        unknown = sorted(set(self.detectors) - set(DETECTORS))
        if unknown:
            raise RewardConfigError(f"unknown detectors {unknown}; valid: {', '.join(sorted(DETECTORS))}")

    def correctness_credit(self, fraction: float, passed: bool) -> float:
        """The `tests` component: 1/0 for `binary`, the pass fraction for `fraction`."""
        if self.correctness == "binary":
            return 1.0 if passed else 0.0
        return fraction

    def gate(self, tests: float, passed: bool) -> float:
        """The factor the quality components are multiplied by (see `quality_gate`)."""
        if self.quality_gate == "proportional":
            return tests
        if self.quality_gate == "all_passed":
            return 1.0 if passed else 0.0
        return 1.0

    @property
    def measures_coverage(self) -> bool:
        return self.weights.coverage > 0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["detectors"] = list(self.detectors)
        return data

    def fingerprint(self) -> str:
        """Identity of everything that changes a breakdown (the ruff rules included)."""
        ruff_rules = Path(self.ruff_config).read_bytes() if Path(self.ruff_config).is_file() else b""
        payload = json.dumps(self.to_dict(), sort_keys=True).encode() + hashlib.sha256(ruff_rules).digest()
        return hashlib.sha256(payload).hexdigest()

    @classmethod
    def from_yaml(cls, path: str | Path) -> RewardConfig:
        import yaml  # here: a judge command's early start builds the default config (see cli.early)

        from codegym._yaml import load_yaml, yaml_problem

        path = Path(path)
        try:
            data = load_yaml(path.read_text(encoding="utf-8")) or {}
        except OSError as exc:
            raise RewardConfigError(f"{path}: cannot read reward config: {exc}") from exc
        except yaml.YAMLError as exc:
            raise RewardConfigError(f"{path}: invalid YAML: {yaml_problem(exc)}") from exc
        if not isinstance(data, dict):
            raise RewardConfigError(f"{path}: must be a mapping of reward settings")
        return cls.from_dict(data, source=str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "reward config") -> RewardConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RewardConfigError(f"{source}: unknown field(s) {unknown}; valid: {sorted(known)}")
        values = dict(data)
        weights = values.get("weights", {})
        if not isinstance(weights, dict):
            raise RewardConfigError(f"{source}: field 'weights' must be a mapping")
        unknown_weights = sorted(set(weights) - set(COMPONENTS))
        if unknown_weights:
            raise RewardConfigError(f"{source}: unknown weights {unknown_weights}; valid: {list(COMPONENTS)}")
        if "ruff_config" in values:
            ruff = Path(values["ruff_config"])
            if not ruff.is_absolute() and source.endswith((".yaml", ".yml")):
                ruff = (Path(source).parent / ruff).resolve()
            values["ruff_config"] = str(ruff)
        try:
            values["weights"] = RewardWeights(**weights)
            return cls(**values)
        except RewardConfigError as exc:
            raise RewardConfigError(f"{source}: {exc}") from exc
        except TypeError as exc:
            raise RewardConfigError(f"{source}: {exc}") from exc
