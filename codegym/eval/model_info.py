"""What a codegym-trained model was trained with, kept next to its weights (`codegym.json`), so that
`codegym eval --prompt-style auto` prompts it the way it learned (completion vs chat prompts,
visible tests or not) instead of guessing from the tokenizer's chat template."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from codegym.eval.samples import EvalError
from codegym.rollout.prompts import PromptConfig

MODEL_INFO_FILE = "codegym.json"
MODEL_INFO_FORMAT = 1


def write_model_info(model_dir: Path, prompt: PromptConfig, **details: Any) -> Path:
    """Record the prompt configuration (and e.g. the algorithm) a model in `model_dir` was trained on."""
    from codegym import __version__

    data = {
        "format": MODEL_INFO_FORMAT,
        "codegym_version": __version__,
        "prompt": dataclasses.asdict(prompt),
        **details,
    }
    path = model_dir / MODEL_INFO_FILE
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def recorded_prompt(model: str | Path) -> PromptConfig | None:
    """The prompt configuration recorded with a local model, or None (not a folder, or no record)."""
    path = Path(model).expanduser() / MODEL_INFO_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        fields = data["prompt"]
        known = {f.name for f in dataclasses.fields(PromptConfig)}
        return PromptConfig(**{key: value for key, value in fields.items() if key in known})
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise EvalError(
            f"{path}: field 'prompt' is unreadable ({exc}); fix or delete the file, or choose the prompt "
            "style explicitly (chat or completion)"
        ) from exc
