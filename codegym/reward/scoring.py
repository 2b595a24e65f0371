"""RewardJudge: programs in, RewardBreakdowns out — sandbox run, static analysis, detectors, cache.

Per batch: cache lookups; one sandbox request per miss (hidden tests, plus visible tests for the
gap detector, with coverage and CPU timing of the hidden tests); one ruff process over the batch;
the complexity count per program; detectors; the weighted, gated total. The reference solution of each task is
judged once (its CPU time, return types and complexity are the yardsticks) and cached too.

Nothing the model wrote is executed outside the sandbox: ruff and the complexity count only read it.
"""

from __future__ import annotations

import ast
import math
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from codegym.reward.breakdown import RewardBreakdown
from codegym.reward.cache import ResultCache, cache_key, machine_fingerprint
from codegym.reward.complexity import (
    ComplexityReport,
    complexity_report,
    complexity_score,
    hides_code,
    parse_or_none,
)
from codegym.reward.config import COMPONENTS, QUALITY_COMPONENTS, RewardConfig
from codegym.reward.detectors import DetectorInput, run_detectors, visible_test_literals
from codegym.reward.extract import first_generated_line
from codegym.reward.shown_cases import ShownCase, case_rates, other_inputs, shown_cases
from codegym.reward.style import StyleReport, code_line_count, line_allowance, required_names, style_reports
from codegym.sandbox.backend import SandboxBackend
from codegym.sandbox.precompile import AST_LOCK
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecRequest, ExecResult, ExecStatus, Flag, TestOutcome, program_problem
from codegym.tasks.model import Task

VISIBLE_PREFIX = "visible__"


_UNPARSED = object()  # combine: the caller did not parse the code


@dataclass(frozen=True)
class ReferenceStats:
    cpu_s: float | None
    return_types: frozenset[str] | None
    complexity: ComplexityReport | None
    exits: bool = False  # the reference exited during its tests (early_exit's evidence is then void)


@dataclass(frozen=True)
class ScoredSample:
    breakdown: RewardBreakdown
    result: ExecResult | None  # None when the breakdown came from the cache


class RewardJudge:
    """Thread-safe; share one per trainer/evaluation. `hack_counts` feeds alarms."""

    def __init__(
        self,
        backend: SandboxBackend,
        config: RewardConfig | None = None,
        cache: ResultCache | None = None,
        yardsticks: ResultCache | None = None,
    ) -> None:
        """`yardsticks` keeps the reference solutions' measurements across runs (keyed by the
        machine too: CPU times do not travel); without it they go to `cache`, if any."""
        self.backend = backend
        self.config = config or RewardConfig()
        self.cache = cache
        self.yardsticks = yardsticks if yardsticks is not None else cache
        self.config_fingerprint = self.config.fingerprint()
        self._references: dict[str, ReferenceStats] = {}
        # by task fingerprint (input/output tasks): the shown cases, and the other cases' inputs
        self._shown: dict[str, tuple[tuple[ShownCase, ...], frozenset[Any]]] = {}
        self._reference_lines: dict[str, int | None] = {}  # by task fingerprint (style's allowance)
        self._required: dict[tuple[str, str], frozenset[str]] = {}  # by task (style's fixed names)
        self._lock = threading.Lock()
        self.hack_counts: Counter[str] = Counter()
        self.judged = 0
        self.sandbox_errors = 0
        self.seconds = 0.0
        self._hacked_samples = 0

    # -- public ------------------------------------------------------------------------------
    def score(self, task: Task, code: str, first_line: int | None = None) -> RewardBreakdown:
        return self.score_many([(task, code, first_line)])[0].breakdown

    def score_many(
        self, items: Sequence[tuple[Task, str, int | None]], *, share_copies: bool = False
    ) -> list[ScoredSample]:
        """One ScoredSample per item, each judged on its own (an evaluation's samples are
        independent draws). With `share_copies`, copies of one program (same task, code and first
        generated line) are judged once and share that judgment, as training needs: a reward is
        then a function of the program. A GRPO group often holds one completion several times, and
        timing noise between their judgments would become advantages."""
        started = time.perf_counter()
        try:
            if not share_copies:
                return self._score_many(items)
            first_of: dict[tuple[str, str, int | None], int] = {}
            distinct: list[tuple[Task, str, int | None]] = []
            slots, copies = [], []
            for task, code, first_line in items:
                key = (task.fingerprint, code, first_line)
                if key in first_of:
                    copies.append(first_of[key])
                else:
                    first_of[key] = len(distinct)
                    distinct.append((task, code, first_line))
                slots.append(first_of[key])
            judged = self._score_many(distinct)
            for slot in copies:  # a copy counts as a judged sample, as a cache hit does
                self._count(judged[slot].breakdown)
            return [judged[slot] for slot in slots]
        finally:
            with self._lock:
                self.seconds += time.perf_counter() - started

    def _score_many(self, items: Sequence[tuple[Task, str, int | None]]) -> list[ScoredSample]:
        prepared = [
            (task, code, first_line or first_generated_line(task, code)) for task, code, first_line in items
        ]
        keys = [
            cache_key(task.fingerprint, code, self.config_fingerprint, self.backend.image)
            for task, code, _ in prepared
        ]
        scored: list[ScoredSample | None] = [None] * len(prepared)
        misses = []
        for index, key in enumerate(keys):
            unsendable = program_problem(prepared[index][1])
            if unsendable:  # the model's fault (too long, not text): a failed program, never None
                result = ExecResult(status=ExecStatus.ERROR, message=unsendable)
                breakdown = RewardBreakdown(
                    total=0.0,
                    components={name: 0.0 if name == "tests" else None for name in COMPONENTS},
                    status=ExecStatus.ERROR.value,
                    details={"message": unsendable},
                )
                scored[index] = ScoredSample(breakdown, result)
                self._count(breakdown)
                continue
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is not None:
                scored[index] = ScoredSample(hit, None)
                self._count(hit)
            else:
                misses.append(index)
        if misses:
            self._ensure_references({prepared[i][0].fingerprint: prepared[i][0] for i in misses})
            requests = [self.sample_request(prepared[i][0], prepared[i][1]) for i in misses]
            # static analysis (ruff, complexity) needs no execution: do it while the sandbox works
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="codegym-static") as pool:
                static = pool.submit(self._static_analysis, [prepared[i] for i in misses])
                results = self.backend.execute_many(requests)
                results = self._time_slow_again(prepared, misses, requests, results)
                styles, complexities, trees = static.result()
            judged = {}
            for position, (index, result) in enumerate(zip(misses, results, strict=True)):
                task, code, first_line = prepared[index]
                style, complexity = styles[position], complexities[position]
                breakdown = self.combine(
                    task, code, first_line, result, style, complexity, tree=trees[position]
                )
                judged[index] = (breakdown, result)
            confirmed = self._confirm_flags(prepared, requests, misses, judged, styles, complexities, trees)
            for index in misses:
                breakdown, result = judged[index]
                if self.cache is not None and breakdown.total is not None and confirmed.get(index, True):
                    self.cache.put(keys[index], breakdown)
                self._count(breakdown)
                scored[index] = ScoredSample(breakdown, result)
        return [s for s in scored if s is not None]

    def _time_slow_again(
        self, prepared, misses, requests: list[ExecRequest], results: list[ExecResult]
    ) -> list[ExecResult]:
        """`retime`: a passing program slower than its full-efficiency bound (and within the
        timing budget) is judged again once the batch is done, and that judgment's samples join the
        first's (the minimum counts; the verdict and everything else stay the first judgment's).
        Other work on a shared machine slows a program for a second or more (a fixed loop here: 10% of
        runs over 1.15x its median alone, 30% with the other CPU busy, up to 1.9x), and every sample
        of one judgment falls in the same such moment; a judgment seconds later mostly does not (the
        slowed HumanEval solutions, same runs: a mean run-to-run difference of 0.038-0.057 from the
        first judgment's samples, 0.021-0.028 with the second's)."""
        if not self.config.retime:
            return results
        again = []
        for position, (index, request, result) in enumerate(zip(misses, requests, results, strict=True)):
            if not request.timing_repeats or result.status is not ExecStatus.PASSED or not result.timings_s:
                continue
            with self._lock:
                reference = self._references.get(prepared[index][0].fingerprint)
            if reference is None or reference.cpu_s is None:
                continue
            fastest = min(result.timings_s)
            if self.full_efficiency_s(reference.cpu_s) < fastest <= request.timing_budget_s:
                again.append(position)
        if not again:
            return results
        results = list(results)
        for position, second in zip(
            again, self.backend.execute_many([requests[p] for p in again]), strict=True
        ):
            results[position] = _with_later_samples(results[position], second)
        return results

    def _confirm_flags(
        self, prepared, requests, misses, judged, styles, complexities, trees
    ) -> dict[int, bool]:
        """A breakdown with a hack flag is judged a second time before it counts or is cached: when the
        second judgment does not raise the same flags, the unflagged one is returned and nothing is
        stored (a flag is evidence only when it repeats)."""
        flagged = [(position, index) for position, index in enumerate(misses) if judged[index][0].flags]
        if not flagged:
            return {}
        again = self.backend.execute_many([requests[position] for position, _ in flagged])
        confirmed = {}
        for (position, index), result in zip(flagged, again, strict=True):
            task, code, first_line = prepared[index]
            style, complexity, tree = styles[position], complexities[position], trees[position]
            second = self.combine(task, code, first_line, result, style, complexity, tree=tree)
            first = judged[index][0]
            confirmed[index] = second.flags == first.flags
            if not confirmed[index]:
                unflagged = second if not second.flags else first if not first.flags else second
                judged[index] = (unflagged, result if unflagged is second else judged[index][1])
        return confirmed

    def prepare(self, tasks: Sequence[Task]) -> None:
        """Judge the reference solutions of `tasks` now (one batch) instead of on first sight."""
        self._ensure_references({task.fingerprint: task for task in tasks})

    def stats(self) -> dict[str, Any]:
        with self._lock:
            hacks = dict(self.hack_counts)
            judged = self.judged
            hacked = self._hacked_samples
        return {
            "judged": judged,
            "sandbox_errors": self.sandbox_errors,
            "seconds": round(self.seconds, 3),
            "hack_counts": hacks,
            "hack_rate": hacked / judged if judged else 0.0,
            "cache": self.cache.stats.as_dict() if self.cache is not None else None,
        }

    # -- requests ----------------------------------------------------------------------------
    def request_for(self, task: Task, code: str) -> ExecRequest:
        """The sandbox's usual request for `task`, plus the visible tests (prefixed, for the gap
        detector) and the hidden tests named as the ones coverage and timing measure."""
        request = request_for_task(
            task,
            code,
            measure_coverage=self.config.measures_coverage,
            timing_repeats=self.config.timing_repeats if self.config.weights.efficiency > 0 else 0,
            stop_at_first_failure=self.config.stop_at_first_failure,
        )
        if request.cases is not None:
            return request  # judged by cases: no test modules, visible or measured
        tests = dict(request.tests)
        visible = {}
        if self.config.run_visible_tests:
            visible = {VISIBLE_PREFIX + name: source for name, source in task.visible_tests.files.items()}
            tests.update(visible)
        return replace(
            request,
            tests=tests,
            measured_test_files=tuple(task.hidden_tests.files),
            gated_test_files=tuple(visible),  # the gap detector needs them only when a hidden test failed
        )

    def sample_request(self, task: Task, code: str) -> ExecRequest:
        """The request `score_many` sends for a sample once the references are judged: `request_for`,
        with timing repeats stopped as soon as a sample already earns full efficiency (at or below
        the reference's time within the tolerance and the floor): the minimum over more samples
        could only be lower, and the score would be the same (see `_efficiency`)."""
        request = self.request_for(task, code)
        with self._lock:
            reference = self._references.get(task.fingerprint)
        if not request.timing_repeats or reference is None or reference.cpu_s is None:
            return request
        return replace(request, timing_enough_s=self.full_efficiency_s(reference.cpu_s))

    def full_efficiency_s(self, reference_cpu_s: float) -> float:
        """The most CPU time that still earns full efficiency against a reference's."""
        return reference_cpu_s * (1 + self.config.timing_tolerance) + self.config.timing_floor_ms / 1000.0

    def _ensure_references(self, tasks: dict[str, Task]) -> None:
        with self._lock:
            missing = {fp: task for fp, task in tasks.items() if fp not in self._references}
        todo = []
        for fingerprint, task in missing.items():
            key = cache_key(
                fingerprint,
                task.reference_solution,
                self.config_fingerprint,
                self.backend.image,
                kind=f"reference-v2@{machine_fingerprint()}",  # v2: `exits` is kept too
            )
            cached = self.yardsticks.get_json(key) if self.yardsticks is not None else None
            if cached is not None:
                stats = ReferenceStats(
                    cached["cpu_s"],
                    frozenset(cached["return_types"]) if cached["return_types"] is not None else None,
                    ComplexityReport(**cached["complexity"]) if cached["complexity"] else None,
                    exits=cached.get("exits") is True,
                )
                with self._lock:
                    self._references[fingerprint] = stats
            else:
                todo.append((fingerprint, task, key))
        if not todo:
            return
        requests = [self.request_for(task, task.reference_solution) for _, task, _ in todo]
        results = self.backend.execute_many(requests)
        if self.config.retime and requests and requests[0].timing_repeats:
            # a second moment's samples too (see _time_slow_again): a yardstick lasts
            results = [
                _with_later_samples(first, second)
                for first, second in zip(results, self.backend.execute_many(requests), strict=True)
            ]
        for (fingerprint, task, key), result in zip(todo, results, strict=True):
            usable = result.status is ExecStatus.PASSED
            reference_complexity = None  # an empty or failing reference is no yardstick (as for CPU time)
            if usable:
                with AST_LOCK:
                    reference_complexity = complexity_report(
                        task.reference_solution, first_generated_line(task, task.reference_solution)
                    )
            stats = ReferenceStats(
                min(result.timings_s) if usable and result.timings_s else None,
                frozenset(result.return_types) if usable else None,
                reference_complexity,
                exits=result.has_flag(Flag.EARLY_EXIT) or result.has_flag(Flag.EXIT_IN_TEST),
            )
            with self._lock:
                self._references[fingerprint] = stats
            if self.yardsticks is not None and usable:
                self.yardsticks.set_json(
                    key,
                    {
                        "cpu_s": stats.cpu_s,
                        "exits": stats.exits,
                        "return_types": sorted(stats.return_types or ()),
                        "complexity": vars(stats.complexity) if stats.complexity else None,
                    },
                )

    def _style_line_allowance(self, task: Task) -> int | None:
        """`line_allowance` from the reference's generated lines of code (None without one)."""
        with self._lock:
            known = self._reference_lines.get(task.fingerprint, -1)
        if known == -1:
            reference = task.reference_solution
            known = None
            if reference:
                with AST_LOCK:  # it parses (see precompile)
                    known = code_line_count(reference, first_generated_line(task, reference))
            with self._lock:
                self._reference_lines[task.fingerprint] = known
        return line_allowance(known or None)

    def _required_names(self, task: Task) -> frozenset[str]:
        """`_required_names` of the task, found once per task (the prompt is not in its fingerprint)."""
        key = (task.fingerprint, task.prompt)
        with self._lock:
            known = self._required.get(key)
        if known is None:
            known = _required_names(task)
            with self._lock:
                self._required[key] = known
        return known

    def _shown_cases(self, task: Task) -> tuple[tuple[ShownCase, ...], frozenset[Any]]:
        with self._lock:
            known = self._shown.get(task.fingerprint)
        if known is None:
            shown = shown_cases(task)
            known = (shown, other_inputs(task, shown))
            with self._lock:
                self._shown[task.fingerprint] = known
        return known

    # -- combining ---------------------------------------------------------------------------
    def _static_analysis(
        self, items: Sequence[tuple[Task, str, int]]
    ) -> tuple[list[StyleReport], list[ComplexityReport | None], list[ast.Module | None]]:
        """Style and complexity of each sample, and its tree (None where it does not parse): parsed
        once here, for these measures and for `combine`."""
        with AST_LOCK:  # it parses: never at the same time as another thread (see precompile)
            trees = [parse_or_none(code) for _, code, _ in items]
        styles = style_reports(
            [(code, first_line) for _, code, first_line in items],
            self.config.ruff_config,
            [self._required_names(task) for task, _, _ in items],
            trees,
        )
        complexities = [
            complexity_report(code, first_line, tree) if tree is not None else None
            for (_, code, first_line), tree in zip(items, trees, strict=True)
        ]
        return styles, complexities, trees

    def combine(
        self,
        task: Task,
        code: str,
        first_line: int,
        result: ExecResult,
        style: StyleReport,
        complexity: ComplexityReport | None = None,
        tree: ast.Module | object | None = _UNPARSED,
    ) -> RewardBreakdown:
        """The breakdown of one judged sample. `tree`: the code's tree (None when it does not parse)
        if the caller parsed it already (see _static_analysis)."""
        if result.status is ExecStatus.SANDBOX_ERROR:
            return RewardBreakdown(
                total=None,
                components=dict.fromkeys(COMPONENTS),
                status=result.status.value,
                details={"message": result.message, "attempts": result.attempts},
            )
        hidden, visible = result.hidden_tests, result.visible_tests
        hidden_passed = sum(t.outcome is TestOutcome.PASSED for t in hidden)
        tests_total = len(hidden)
        hidden_rate = hidden_passed / tests_total if tests_total else 0.0
        # cases not run after the first failure: the fraction is unknown, not a partial figure
        unknown_rate = task.cases is not None and result.case_fraction is None
        visible_rate = (
            (sum(t.outcome is TestOutcome.PASSED for t in visible) / len(visible)) if visible else None
        )
        gap_hidden_rate = hidden_rate
        shown: tuple[ShownCase, ...] | None = None
        others: frozenset[Any] = frozenset()
        if task.cases is not None:  # the shown cases are among the judged ones
            shown, others = self._shown_cases(task)
            visible_rate, gap_hidden_rate = case_rates(task, shown, hidden)
        reference = self._references.get(task.fingerprint)
        if tree is _UNPARSED:
            tree = parse_or_none(code)
        if complexity is None and tree is not None:  # (code that does not parse has none)
            complexity = complexity_report(code, first_line, tree)
        fired = run_detectors(
            self.config.detectors,
            DetectorInput(
                code=code,
                tree=tree,
                hidden=result,
                hidden_rate=gap_hidden_rate,
                visible_rate=visible_rate,
                visible_literals=visible_test_literals(task.visible_tests.files.values()),
                shown_cases=shown,
                other_inputs=others,
                reference_return_types=reference.return_types if reference else None,
                hardcode_gap=self.config.hardcode_gap,
                reference_exits=reference.exits if reference else False,
            ),
        )
        hidden_all_passed = tests_total > 0 and hidden_passed == tests_total
        completed = result.status in (ExecStatus.PASSED, ExecStatus.FAILED)
        passed = hidden_all_passed and completed and not fired
        components: dict[str, float | None] = {
            "tests": 0.0 if fired else self.config.correctness_credit(hidden_rate, passed),
            "coverage": self._coverage(result, first_line, tree) if self.config.measures_coverage else None,
            "style": style.score(self.config.style_scale, self._style_line_allowance(task)),
            "complexity": complexity_score(
                complexity,
                reference.complexity if reference else None,
            ),
            "efficiency": self._efficiency(result, reference),
        }
        hidden_code = hides_code(tree, first_line)
        if hidden_code:  # code built at runtime: the static measures cannot see it (see hides_code)
            components["style"] = 0.0
            for name in ("complexity", "coverage"):  # a measure with no yardstick stays dropped
                if components[name] is not None:
                    components[name] = 0.0
        # the verdict is the hidden tests' (visible tests only feed the gap detector)
        status = ("passed" if hidden_all_passed else "failed") if completed else result.status.value
        total = self._total(components, passed=passed, status=result.status, hacked=bool(fired))
        return RewardBreakdown(
            total=total,
            components=components,
            status=status,
            flags=tuple(sorted(fired)),
            passed=passed,
            tests_passed=hidden_passed,
            tests_total=tests_total,
            visible_passed=sum(t.outcome is TestOutcome.PASSED for t in visible) if visible else None,
            visible_total=len(visible) if visible else None,
            details={
                "tests_raw": None if unknown_rate else hidden_rate,
                "coverage_of": "hidden tests",
                "builds_code_at_runtime": hidden_code,
                "visible_hidden_gap": (visible_rate - hidden_rate) if visible_rate is not None else None,
                "detector_evidence": fired,
                "style_findings": list(style.findings[:20]),
                "code_lines": style.code_lines,
                "cpu_s": min(result.timings_s) if result.timings_s else None,
                "reference_cpu_s": reference.cpu_s if reference else None,
                "coverage_complete": (result.coverage or {}).get("complete"),
                "wall_s": result.wall_s,
                "message": result.message[:500],
                # which hidden tests did not pass (kept in the cache: a cache hit still names them)
                "failed_tests": [
                    {"id": t.test_id, "outcome": t.outcome.value}
                    for t in hidden
                    if t.outcome is not TestOutcome.PASSED
                ][:50],
            },
        )

    @staticmethod
    def _coverage(result: ExecResult, first_line: int, tree: ast.Module | None) -> float | None:
        """Line + branch coverage of the generated lines by the hidden tests; None (dropped from the
        weighted mean) when the traced pass was cut short or did not run. Lines under
        `if __name__ == "__main__":` and module-level constant definitions are not counted."""
        data = result.coverage
        if not data or not data.get("complete"):
            return None
        excluded = _uncounted_lines(tree) if tree is not None else set()

        def counted(line: int) -> bool:
            return line >= first_line and line not in excluded

        executed = [n for n in data.get("executed_lines", []) if counted(n)]
        missing = [n for n in data.get("missing_lines", []) if counted(n)]
        taken = [a for a in data.get("executed_branches", []) if counted(a[0])]
        not_taken = [a for a in data.get("missing_branches", []) if counted(a[0])]
        total = len(executed) + len(missing) + len(taken) + len(not_taken)
        return (len(executed) + len(taken)) / total if total else None

    def _efficiency(self, result: ExecResult, reference: ReferenceStats | None) -> float | None:
        """min(1, allowed / t), allowed = t_ref * (1 + tolerance) + floor, rounded down to
        `efficiency_step`: CPU times measured outside the program (all its threads and child
        processes), each the minimum over fresh program processes. Up to the tolerance plus the floor
        above the reference scores 1: differences below the floor are noise (a millisecond program
        reads twice its time on a loaded machine) and score identically, so identical programs get
        identical scores; a program slower by more pays in proportion to its time."""
        if self.config.weights.efficiency <= 0:
            return None
        if result.status is ExecStatus.TIMEOUT:
            return 0.0
        if not result.timings_s or reference is None or reference.cpu_s is None:
            return None
        allowed = self.full_efficiency_s(reference.cpu_s)
        fastest = min(result.timings_s)
        ratio = 1.0 if fastest <= allowed else allowed / fastest
        step = self.config.efficiency_step
        return round(math.floor(ratio / step + 1e-9) * step, 6)

    def _total(
        self, components: dict[str, float | None], *, passed: bool, status: ExecStatus, hacked: bool
    ) -> float:
        weights = self.config.weights.as_dict()
        tests = components["tests"] or 0.0
        gate = self.config.gate(tests, passed)
        numerator = weights["tests"] * tests
        denominator = weights["tests"]
        for name in QUALITY_COMPONENTS:
            value = components[name]
            if value is None or weights[name] == 0:
                continue
            numerator += gate * weights[name] * value
            denominator += weights[name]
        total = numerator / denominator
        if status is ExecStatus.TIMEOUT:
            total -= self.config.timeout_penalty
        elif status in (ExecStatus.ERROR, ExecStatus.MEMORY, ExecStatus.OUTPUT_LIMIT):
            total -= self.config.error_penalty
        if hacked:
            total -= self.config.hack_penalty
        return total

    def _count(self, breakdown: RewardBreakdown) -> None:
        with self._lock:
            self.judged += 1
            if breakdown.total is None:
                self.sandbox_errors += 1
            if breakdown.flags:
                self._hacked_samples += 1
                self.hack_counts.update(breakdown.flags)


def _with_later_samples(first: ExecResult, second: ExecResult) -> ExecResult:
    """FIRST with SECOND's timing samples added (`retime`) when both passed; else FIRST as it is."""
    if first.status is not ExecStatus.PASSED or second.status is not ExecStatus.PASSED:
        return first
    return replace(first, timings_s=first.timings_s + second.timings_s)


def _required_names(task: Task) -> frozenset[str]:
    """Names the task fixes: those its prompt, starter, entry point, visible tests or called function use."""
    function = task.cases.function if task.cases is not None else None
    return required_names(
        task.prompt, task.prefix, task.entry_point, function, *task.visible_tests.files.values()
    )


def _uncounted_lines(tree: ast.Module) -> set[int]:
    """Lines coverage does not count: `if __name__ == "__main__":` blocks (never run by tests) and
    module-level constant definitions (run at import whatever the tests do)."""
    lines: set[int] = set()
    for statement in tree.body:
        end = getattr(statement, "end_lineno", statement.lineno) or statement.lineno
        if (
            isinstance(statement, ast.If)
            and isinstance(statement.test, ast.Compare)
            and isinstance(statement.test.left, ast.Name)
            and statement.test.left.id == "__name__"
        ):
            lines.update(range(statement.lineno, end + 1))
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            try:
                ast.literal_eval(statement.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            lines.update(range(statement.lineno, end + 1))
    return lines
