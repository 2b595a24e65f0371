"""Versions like '1.4.2' and requirements like 'core>=1.2'."""

import operator
import re
from typing import NamedTuple

_REQUIREMENT = re.compile(r"\s*([a-z][a-z0-9_-]*)\s*(?:(>=|<=|==|!=|>|<)\s*([0-9]+(?:\.[0-9]+)*))?\s*")

_OPERATORS = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}


class Requirement(NamedTuple):
    name: str
    op: str | None
    version: tuple[int, ...] | None


def parse_version(text: str) -> tuple[int, ...]:
    """'1.4' -> (1, 4, 0); versions are compared with three components."""
    parts = tuple(int(part) for part in text.split("."))
    return (parts + (0, 0, 0))[:3]


def parse_requirement(text: str) -> Requirement:
    match = _REQUIREMENT.fullmatch(text)
    if match is None:
        raise ValueError(f"invalid requirement {text!r}")
    name, op, version = match.groups()
    return Requirement(name, op, parse_version(version) if version else None)


def satisfies(version: str, requirement: Requirement) -> bool:
    """Whether a plugin of `version` fulfils `requirement` (no constraint: always)."""
    if requirement.op is None or requirement.version is None:
        return True
    return _OPERATORS[requirement.op](parse_version(version), requirement.version)
