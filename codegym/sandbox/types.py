"""The sandbox boundary's typed objects: ExecRequest in, ExecResult out.

`ExecStatus` keeps the model's failures (failed, error, timeout, memory, output_limit) apart from
ours (`sandbox_error`): a sandbox error says nothing about the code and must never become a reward.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal

from codegym.tasks.cases import CaseSuite
from codegym.tasks.model import Limits, TestRunnerChoice

# the largest program file a request may carry: a model that writes more has failed the task
MAX_PROGRAM_BYTES = 1_000_000


def program_problem(code: str) -> str:
    """Why a program cannot be judged at all ('' when it can): text that is not UTF-8 (a lone
    surrogate from a JSON escape) or a file over MAX_PROGRAM_BYTES. Either is the program's fault."""
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError as exc:
        return f"the program is not valid UTF-8 text (a lone surrogate at character {exc.start})"
    if size > MAX_PROGRAM_BYTES:
        return f"the program is {size:,} bytes; the limit is {MAX_PROGRAM_BYTES:,}"
    return ""


class ExecStatus(str, enum.Enum):
    """How one execution ended, most severe first when several apply."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    OUTPUT_LIMIT = "output_limit"
    SANDBOX_ERROR = "sandbox_error"

    @property
    def is_infrastructure_failure(self) -> bool:
        return self is ExecStatus.SANDBOX_ERROR


class Flag(str, enum.Enum):
    """What the harness, the worker or the pool observed besides the outcomes — the evidence the
    reward's hacking detectors read (`codegym.reward.detectors`). The inside of the sandbox emits the
    same names as plain strings (it runs without codegym)."""

    EARLY_EXIT = "early_exit"  # the program process ended while the tests still ran
    EXIT_IN_TEST = "exit_in_test"  # a call into the program raised SystemExit/KeyboardInterrupt/...
    PROTOCOL_VIOLATION = "protocol_violation"  # the program wrote into its call channel off protocol
    KILLED_WORKER = "killed_worker"  # the program brought the sandbox down twice in a row
    TIMING_INCOMPLETE = "timing_incomplete"  # the tests finished, a timing/coverage pass ran over


Suite = Literal["hidden", "visible"]


class TestOutcome(str, enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    SKIPPED = "skipped"
    NOT_RUN = "not_run"
    OUTPUT_LIMIT = "output_limit"  # a stdio case that printed more than its cap


@dataclass(frozen=True)
class ExecRequest:
    """One program + its tests to run in isolation.

    `files` are written into a fresh scratch directory (the task's repo plus the model's file at
    `solution_path`). `tests` are test modules keyed by file name; the fast runner compiles them from
    memory without writing them where the program could read them.
    """

    files: Mapping[str, str]
    tests: Mapping[str, str]
    solution_path: str = "solution.py"
    entry_point: str | None = None
    limits: Limits = field(default_factory=Limits)
    test_runner: TestRunnerChoice = "auto"
    measure_coverage: bool = False
    timing_repeats: int = 0  # timed repeats of the measured tests after the verdict pass (0 = none)
    coverage_budget_s: float = 0.02  # wall time the traced coverage pass may take (an alarm cuts a long test)
    timing_budget_s: float = 0.1  # CPU time of all timing samples, verdict pass included
    # repeats stop once a sample's CPU time is at or below this: the caller's score is at its maximum
    # then, and more samples could only lower the minimum (the reward sets it from the reference)
    timing_enough_s: float | None = None
    measured_test_files: tuple[str, ...] = ()
    # run only when a test of the other files did not pass (the reward's visible tests: they feed
    # the gap detector, which needs a failing hidden test); never part of a fully passing verdict
    gated_test_files: tuple[str, ...] = ()
    request_id: str = ""
    # input/output cases judge the program instead of test modules (stdin/stdout or call-based)
    cases: CaseSuite | None = None
    stop_at_first_failure: bool = False  # cases: the rest are not run once one fails (fraction None)
    record_returns: bool = False  # call cases: return the values (computing a trusted reference's outputs)

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", MappingProxyType(dict(self.files)))
        object.__setattr__(self, "tests", MappingProxyType(dict(self.tests)))
        if self.solution_path not in self.files:
            raise ValueError(f"ExecRequest.solution_path {self.solution_path!r} is not among its files")
        if not self.tests and self.cases is None:
            raise ValueError("ExecRequest.tests is empty: nothing would decide the verdict")
        if self.tests and self.cases is not None:
            raise ValueError("ExecRequest: judged by test modules or by cases, not both")
        if self.record_returns and (self.cases is None or self.cases.kind != "call"):
            raise ValueError("ExecRequest.record_returns needs call cases")
        unknown = set(self.measured_test_files) - set(self.tests)
        if unknown:
            raise ValueError(f"ExecRequest.measured_test_files names no test file: {sorted(unknown)}")
        gated = set(self.gated_test_files)
        if gated and (
            gated - set(self.tests) or not set(self.tests) - gated or gated & set(self.measured_test_files)
        ):
            raise ValueError(
                "ExecRequest.gated_test_files must name test files that are neither measured nor all of them"
            )
        if self.timing_repeats < 0:
            raise ValueError(f"ExecRequest.timing_repeats must be >= 0, got {self.timing_repeats}")
        if self.timing_enough_s is not None and not self.timing_enough_s >= 0:
            raise ValueError(f"ExecRequest.timing_enough_s must be >= 0 or None, got {self.timing_enough_s}")
        if self.test_runner not in ("auto", "fast", "pytest"):
            raise ValueError(f"ExecRequest.test_runner must be auto|fast|pytest, got {self.test_runner!r}")
        for path in [*self.files, *self.tests]:
            if path.startswith("/") or ".." in path.split("/") or not path:
                raise ValueError(f"ExecRequest file path {path!r} must be relative and stay inside scratch")

    def to_wire(self) -> dict[str, Any]:
        return {
            "files": dict(self.files),
            "tests": dict(self.tests),
            "solution_path": self.solution_path,
            "entry_point": self.entry_point,
            "limits": {name: getattr(self.limits, name) for name in _LIMIT_FIELDS},
            "test_runner": self.test_runner,
            "measure_coverage": self.measure_coverage,
            "timing_repeats": self.timing_repeats,
            "measured_test_files": list(self.measured_test_files),
            "gated_test_files": list(self.gated_test_files),
            "coverage_budget_s": self.coverage_budget_s,
            "timing_budget_s": self.timing_budget_s,
            "timing_enough_s": self.timing_enough_s,
            "request_id": self.request_id,
            "cases": self.cases.to_wire() if self.cases is not None else None,
            "stop_at_first_failure": self.stop_at_first_failure,
            "record_returns": self.record_returns,
        }


@dataclass(frozen=True)
class TestResult:
    test_id: str
    outcome: TestOutcome
    duration_s: float = 0.0
    message: str = ""
    traceback: str = ""
    suite: Suite = "hidden"  # visible: one of the request's gated (visible) test files
    # cases: the start of the case's input, expected answer and the program's answer
    input_head: str = ""
    expected_head: str = ""
    actual_head: str = ""
    # the message quotes nothing a test holds: a case's verdict (a case sends the program its input
    # alone). A test module's message may (a failed assert says `actual != expected`; whatever the
    # program reports — an exception, its frames, even a malformed message — can carry what a test
    # sent it): the retry feedback shows only a builtin exception type of it for hidden tests
    message_holds_no_test_data: bool = False


@dataclass(frozen=True)
class ExecResult:
    """What happened. `flags` holds the `Flag` values the harness, worker or pool observed (the
    reward's hacking detectors read them); `tests` are per test, or per case for input/output tasks."""

    status: ExecStatus
    tests: tuple[TestResult, ...] = ()
    message: str = ""
    stdout: str = ""
    stderr: str = ""
    output_truncated: bool = False
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_memory_mb: float = 0.0
    exit_code: int | None = None
    signal: int | None = None
    flags: tuple[str, ...] = ()
    runner: str = ""
    backend: str = ""
    image: str = ""
    coverage: Mapping[str, Any] | None = None
    timings_s: tuple[float, ...] = ()
    return_types: tuple[str, ...] = ()
    attempts: int = 1
    case_returns: tuple[Any, ...] = ()  # record_returns: each case's value (tagged JSON; None if it raised)

    def has_flag(self, flag: Flag) -> bool:
        return flag.value in self.flags

    @property
    def hidden_tests(self) -> tuple[TestResult, ...]:
        return tuple(t for t in self.tests if t.suite == "hidden")

    @property
    def visible_tests(self) -> tuple[TestResult, ...]:
        return tuple(t for t in self.tests if t.suite == "visible")

    @property
    def tests_passed(self) -> int:
        return sum(1 for t in self.tests if t.outcome is TestOutcome.PASSED)

    @property
    def tests_total(self) -> int:
        return len(self.tests)

    @property
    def passed(self) -> bool:
        return self.status is ExecStatus.PASSED

    @property
    def pass_rate(self) -> float:
        return self.tests_passed / self.tests_total if self.tests else 0.0

    @property
    def case_fraction(self) -> float | None:
        """Cases passed / cases; None when some were not run (stopped at the first failure)."""
        if not self.tests or any(t.outcome is TestOutcome.NOT_RUN for t in self.tests):
            return None
        return self.pass_rate

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["tests"] = [{**asdict(t), "outcome": t.outcome.value} for t in self.tests]
        data["flags"] = list(self.flags)
        data["timings_s"] = list(self.timings_s)
        data["return_types"] = list(self.return_types)
        data["case_returns"] = list(self.case_returns)
        data["coverage"] = dict(self.coverage) if self.coverage is not None else None
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExecResult:
        values = {k: v for k, v in data.items() if k in _RESULT_FIELDS}
        values["status"] = _enum_member(ExecStatus, _STATUSES, values["status"])
        values["tests"] = tuple(
            TestResult(
                test_id=t["test_id"],
                outcome=_enum_member(TestOutcome, _OUTCOMES, t["outcome"]),
                duration_s=float(t.get("duration_s", 0.0)),
                message=t.get("message", ""),
                traceback=t.get("traceback", ""),
                suite="visible" if t.get("suite") == "visible" else "hidden",
                input_head=t.get("input_head", ""),
                expected_head=t.get("expected_head", ""),
                actual_head=t.get("actual_head", ""),
                message_holds_no_test_data=t.get("message_holds_no_test_data") is True,
            )
            for t in values.get("tests", ())
        )
        values["flags"] = tuple(values.get("flags", ()))
        values["timings_s"] = tuple(values.get("timings_s", ()))
        values["return_types"] = tuple(values.get("return_types", ()))
        values["case_returns"] = tuple(values.get("case_returns", ()))
        return cls(**values)

    @classmethod
    def sandbox_error(cls, message: str, *, backend: str = "", attempts: int = 1) -> ExecResult:
        return cls(status=ExecStatus.SANDBOX_ERROR, message=message, backend=backend, attempts=attempts)


# the host converts every result and request: these spare it dataclasses.fields() and an enum call
# (~2 us each) per result and per test
_LIMIT_FIELDS = tuple(f.name for f in fields(Limits))
_RESULT_FIELDS = frozenset(f.name for f in fields(ExecResult))
_STATUSES = {member.value: member for member in ExecStatus}
_OUTCOMES = {member.value: member for member in TestOutcome}


def _enum_member(kind: type[enum.Enum], members: Mapping[Any, Any], value: Any) -> Any:
    """`kind(value)`, by a table lookup when `value` is a member's value (unknown values, and
    unhashable ones, raise as `kind(value)` does)."""
    try:
        return members[value]
    except (KeyError, TypeError):
        return kind(value)
