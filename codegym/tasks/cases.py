"""Input/output test cases: the judged form of stdin/stdout and call-based tasks.

Competitive-programming and function-call datasets (APPS, TACO, CodeContests, LiveCodeBench, MBPP+,
HumanEval+, open-r1) judge a program by feeding it inputs and comparing what comes back with an
expected answer. Here those answers stay in the trusted harness: the program gets one case's input
(its stdin, or the arguments of one call) and never sees an expected value or the comparison.

- `stdio`: the program runs once per case as `__main__` with the case's input on stdin; its stdout
  is compared with the expected output under `Comparison` (or by the pack's trusted checker).
- `call`: the named function (or `Class.method`, a fresh instance per case, as LeetCode's
  `class Solution`) is called once per case with the case's arguments; the return value is compared
  as plain data (tuples as lists, floats within the tolerance, EvalPlus's oracles).

Case data is stored and sent as *tagged JSON* (`encode_value` / `decode_value`), so that tuples,
sets, non-string dict keys, bytes and non-finite floats survive a JSON file: plain JSON values
stand for themselves; `{"$t": [...]}` is a tuple, `{"$s": [...]}` a set, `{"$fs": [...]}` a
frozenset, `{"$d": [[k, v], ...]}` a dict with non-string keys, `{"$f": "nan" | "inf" | "-inf"}`
a non-finite float, `{"$b": "<hex>"}` bytes, `{"$c": [re, im]}` a complex number.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

CaseKind = Literal["stdio", "call"]
OutputMatch = Literal["lines", "tokens", "exact"]
# how a call's return value is judged: `equal` (plain data, float tolerance), EvalPlus's special
# oracles `set` (both as sets), `not_none` (anything but None passes), and `unwrap_single`
# (APPS/TACO Codewars rows: an expected `[x]` also accepts `x`). EvalPlus (HumanEval+, MBPP+) judges
# by its own rules, one oracle each, defined and implemented (pure Python, for the harness) in
# codegym/sandbox/inside/evalplus_oracles.py: `evalplus_equal` (Python `==`, tuples are not lists, then
# EvalPlus's float fallback), `is_not_none`, `returns`, `equal_or_zero`, `mbpp_surface_area`,
# `mbpp_digit_distance`, `poly_root` (HumanEval/32: any root of the polynomial); its `set` is this `set`.
Oracle = Literal[
    "equal",
    "set",
    "not_none",
    "unwrap_single",
    "evalplus_equal",
    "is_not_none",
    "returns",
    "equal_or_zero",
    "mbpp_surface_area",
    "mbpp_digit_distance",
    "poly_root",
]
ORACLES: tuple[str, ...] = get_args(Oracle)
OUTPUT_MATCHES: tuple[str, ...] = ("lines", "tokens", "exact")

DEFAULT_CASE_TIMEOUT_S = 4.0
HEAD_CHARS = 200  # how much of a case's input/expected/actual a per-case result keeps


@dataclass(frozen=True)
class Comparison:
    """How an actual answer is compared with the expected one."""

    match: OutputMatch = field(
        default="lines",
        metadata={
            "help": "stdio: `lines` (line endings, trailing whitespace per line and at the end ignored), "
            "`tokens` (whitespace-separated tokens, numbers within the float tolerance), `exact`."
        },
    )
    float_rel: float = field(default=0.0, metadata={"help": "Relative tolerance for floats (0 = exact)."})
    float_abs: float = field(default=0.0, metadata={"help": "Absolute tolerance for floats (0 = exact)."})
    oracle: Oracle = field(default="equal", metadata={"help": "call: " + ", ".join(ORACLES) + "."})
    checker: str | None = field(
        default=None,
        metadata={
            "help": "Source of a trusted checker module: `check(input, expected, actual) -> bool | float` "
            "(stdio: the three strings); run in the harness, never in the program."
        },
    )

    def __post_init__(self) -> None:
        if self.match not in OUTPUT_MATCHES:
            raise ValueError(f"Comparison.match must be one of {OUTPUT_MATCHES}, got {self.match!r}")
        if self.oracle not in ORACLES:
            raise ValueError(f"Comparison.oracle must be one of {ORACLES}, got {self.oracle!r}")
        for name in ("float_rel", "float_abs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"Comparison.{name} must be a number >= 0, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "match": self.match,
            "float_rel": self.float_rel,
            "float_abs": self.float_abs,
            "oracle": self.oracle,
            "checker": self.checker,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Comparison:
        unknown = set(data) - {"match", "float_rel", "float_abs", "oracle", "checker"}
        if unknown:
            raise ValueError(f"unknown comparison fields {sorted(unknown)}")
        return cls(**dict(data))


@dataclass(frozen=True)
class Case:
    """One case. stdio: `input` is the stdin text and `expected` the expected stdout. call: `input` is
    the tuple of positional arguments and `expected` the expected return value (plain data).
    `timeout_s` overrides the suite's per-case limit (EvalPlus: a multiple of the reference's time)."""

    input: Any
    expected: Any
    timeout_s: float | None = None


@dataclass(frozen=True)
class CaseSuite:
    """The cases that judge one task, and how."""

    kind: CaseKind
    cases: tuple[Case, ...]
    function: str | None = None  # call: `name`, or `Class.method` (a fresh instance per case)
    comparison: Comparison = field(default_factory=Comparison)
    case_timeout_s: float = DEFAULT_CASE_TIMEOUT_S

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", tuple(self.cases))
        if self.kind not in ("stdio", "call"):
            raise ValueError(f"CaseSuite.kind must be stdio or call, got {self.kind!r}")
        if not self.cases:
            raise ValueError("CaseSuite.cases is empty: nothing would decide the verdict")
        if self.kind == "call":
            parts = (self.function or "").split(".")
            if not self.function or len(parts) > 2 or not all(p.isidentifier() for p in parts):
                raise ValueError(
                    f"CaseSuite.function must name a function or Class.method, got {self.function!r}"
                )
            for index, case in enumerate(self.cases):
                if not isinstance(case.input, tuple):
                    raise ValueError(f"CaseSuite case {index}: call arguments must be a tuple")
        else:
            for index, case in enumerate(self.cases):
                if not isinstance(case.input, str) or not isinstance(case.expected, str):
                    raise ValueError(f"CaseSuite case {index}: stdio input and expected output must be text")
        if not (isinstance(self.case_timeout_s, (int, float)) and self.case_timeout_s > 0):
            raise ValueError(f"CaseSuite.case_timeout_s must be > 0, got {self.case_timeout_s!r}")
        for index, case in enumerate(self.cases):
            if case.timeout_s is not None and not case.timeout_s > 0:
                raise ValueError(f"CaseSuite case {index}: timeout_s must be > 0, got {case.timeout_s!r}")

    def __len__(self) -> int:
        return len(self.cases)

    def to_wire(self) -> dict[str, Any]:
        """JSON-safe form (tagged values), as stored in packs and sent to the harness."""
        return {
            "kind": self.kind,
            "function": self.function,
            "comparison": self.comparison.to_dict(),
            "case_timeout_s": self.case_timeout_s,
            "cases": [_case_wire(c) for c in self.cases],
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CaseSuite:
        cases = []
        for item in data["cases"]:
            value = decode_value(item["input"])
            timeout = item.get("timeout_s")
            cases.append(
                Case(
                    tuple(value) if isinstance(value, list) else value,
                    decode_value(item["expected"]),
                    None if timeout is None else float(timeout),
                )
            )
        return cls(
            kind=data["kind"],
            cases=tuple(cases),
            function=data.get("function"),
            comparison=Comparison.from_dict(data.get("comparison") or {}),
            case_timeout_s=float(data.get("case_timeout_s", DEFAULT_CASE_TIMEOUT_S)),
        )

    @property
    def fingerprint(self) -> str:
        payload = json.dumps(self.to_wire(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _case_wire(case: Case) -> dict[str, Any]:
    wire = {"input": encode_value(case.input), "expected": encode_value(case.expected)}
    if case.timeout_s is not None:
        wire["timeout_s"] = case.timeout_s
    return wire


def encode_value(value: Any) -> Any:
    """Plain data -> tagged JSON (see the module docstring); anything else is a ValueError."""
    # the codec lives with the harness, which runs it inside the sandbox without codegym; imported
    # here at call time because codegym.sandbox imports this package
    from codegym.sandbox.inside import casedata

    return casedata.encode_value(value)


def decode_value(data: Any) -> Any:
    """Tagged JSON -> plain data."""
    from codegym.sandbox.inside import casedata

    return casedata.decode_value(data)


def head(text: str, limit: int = HEAD_CHARS) -> str:
    """The start of a long text, marked when cut."""
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"
