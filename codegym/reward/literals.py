"""Literal values of a program's or a test's source, as the hacking detectors compare them."""

from __future__ import annotations

import ast
from typing import Any


def literal_value(node: ast.AST) -> Any:
    """A literal's value in a hashable form (lists as tuples, dicts as sorted pairs), else None."""
    try:
        value = hashable(ast.literal_eval(node))
        hash(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value


def hashable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((repr(k), hashable(v)) for k, v in value.items()))
    if isinstance(value, set):
        return frozenset(hashable(v) for v in value)
    return value


def trivial(value: Any) -> bool:
    """What base cases and flags are made of: no evidence that a program copied a test's values."""
    return value is None or isinstance(value, bool) or value in (0, 1, -1, "", (), 0.0)
