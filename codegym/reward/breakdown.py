"""RewardBreakdown: what one program earned, and why."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class RewardBreakdown:
    """`total` is None when the sandbox failed (never a verdict on the code). `components` holds each
    component in [0, 1] (None when it could not be measured); `flags` the detectors that fired."""

    total: float | None
    components: Mapping[str, float | None]
    status: str
    flags: tuple[str, ...] = ()
    passed: bool = False
    tests_passed: int = 0
    tests_total: int = 0
    visible_passed: int | None = None
    visible_total: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    cached: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "components", MappingProxyType(dict(self.components)))
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))
        object.__setattr__(self, "flags", tuple(self.flags))

    @property
    def hacked(self) -> bool:
        return bool(self.flags)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "components": dict(self.components),
            "status": self.status,
            "flags": list(self.flags),
            "passed": self.passed,
            "tests_passed": self.tests_passed,
            "tests_total": self.tests_total,
            "visible_passed": self.visible_passed,
            "visible_total": self.visible_total,
            "details": dict(self.details),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, cached: bool = False) -> RewardBreakdown:
        known = {f.name for f in fields(cls)} - {"cached"}
        values = {k: v for k, v in data.items() if k in known}
        values["flags"] = tuple(values.get("flags", ()))
        return cls(**values, cached=cached)
