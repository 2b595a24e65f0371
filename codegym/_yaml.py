"""YAML loading for configs: safe, and `1e-5` is a number (YAML 1.1 would read it as a string)."""

from __future__ import annotations

import re
from typing import Any

import yaml


# libyaml's parser when PyYAML was built with it (5-10x faster: every CLI start reads the packs' headers)
class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    pass


_FLOAT = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.VERBOSE,
)
_Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)


def yaml_problem(exc: BaseException) -> str:
    """A YAML error in one line: what is wrong and where (PyYAML's own text spans several lines)."""
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if problem and mark is not None:
        return f"{problem} at line {mark.line + 1}, column {mark.column + 1}"
    return " ".join(str(exc).split())
