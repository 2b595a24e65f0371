"""RewardJudge: programs in, RewardBreakdowns out — sandbox run, static analysis, detectors, cache.

Per batch: cache lookups; one sandbox request per miss (hidden tests, plus visible tests for the
gap detector, with coverage and CPU timing of the hidden tests); one ruff process over the batch;
radon per program; detectors; the weighted, gated total. The reference solution of each task is
judged once (its CPU time, return types and complexity are the yardsticks) and cached too.

Nothing the model wrote is executed outside the sandbox: ruff and radon only read it.
"""

from __future__ import annotations

import ast
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from codegym.reward.breakdown import RewardBreakdown
from codegym.reward.cache import ResultCache, cache_key
from codegym.reward.complexity import ComplexityReport, complexity_report, complexity_score
from codegym.reward.config import COMPONENTS, QUALITY_COMPONENTS, RewardConfig
from codegym.reward.detectors import DetectorInput, run_detectors, visible_test_literals
from codegym.reward.extract import first_generated_line
from codegym.reward.style import StyleReport, style_reports
from codegym.sandbox.backend import SandboxBackend
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecRequest, ExecResult, ExecStatus, TestOutcome
from codegym.tasks.model import Task

VISIBLE_PREFIX = "visible__"


@dataclass(frozen=True)
class ReferenceStats:
    cpu_s: float | None
    return_types: frozenset[str] | None
    complexity: ComplexityReport | None


@dataclass(frozen=True)
class ScoredSample:
    breakdown: RewardBreakdown
    result: ExecResult | None  # None when the breakdown came from the cache


class RewardJudge:
    """Thread-safe; share one per trainer/evaluation. `hack_counts` feeds alarms."""

    def __init__(
        self, backend: SandboxBackend, config: RewardConfig | None = None, cache: ResultCache | None = None
    ) -> None:
        self.backend = backend
        self.config = config or RewardConfig()
        self.cache = cache
        self.config_fingerprint = self.config.fingerprint()
        self._references: dict[str, ReferenceStats] = {}
        self._lock = threading.Lock()
        self.hack_counts: Counter[str] = Counter()
        self.judged = 0
        self.sandbox_errors = 0
        self.seconds = 0.0
        self._hacked_samples = 0

    # -- public ------------------------------------------------------------------------------
    def score(self, task: Task, code: str, first_line: int | None = None) -> RewardBreakdown:
        return self.score_many([(task, code, first_line)])[0].breakdown

    def score_many(self, items: Sequence[tuple[Task, str, int | None]]) -> list[ScoredSample]:
        started = time.perf_counter()
        try:
            return self._score_many(items)
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
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is not None:
                scored[index] = ScoredSample(hit, None)
                self._count(hit)
            else:
                misses.append(index)
        if misses:
            self._ensure_references({prepared[i][0].fingerprint: prepared[i][0] for i in misses})
            requests = [self.request_for(prepared[i][0], prepared[i][1]) for i in misses]
            # static analysis (ruff, radon) needs no execution: do it while the sandbox works
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="codegym-static") as pool:
                static = pool.submit(self._static_analysis, [prepared[i] for i in misses])
                results = self.backend.execute_many(requests)
                styles, complexities = static.result()
            for index, result, style, complexity in zip(misses, results, styles, complexities, strict=True):
                task, code, first_line = prepared[index]
                breakdown = self.combine(task, code, first_line, result, style, complexity)
                if self.cache is not None:
                    self.cache.put(keys[index], breakdown)
                self._count(breakdown)
                scored[index] = ScoredSample(breakdown, result)
        return [s for s in scored if s is not None]

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
        )
        tests = dict(request.tests)
        if self.config.run_visible_tests:
            tests.update({VISIBLE_PREFIX + name: source for name, source in task.visible_tests.files.items()})
        return replace(request, tests=tests, measured_test_files=tuple(task.hidden_tests.files))

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
                kind="reference",
            )
            cached = self.cache.get_json(key) if self.cache is not None else None
            if cached is not None:
                stats = ReferenceStats(
                    cached["cpu_s"],
                    frozenset(cached["return_types"]) if cached["return_types"] is not None else None,
                    ComplexityReport(**cached["complexity"]) if cached["complexity"] else None,
                )
                with self._lock:
                    self._references[fingerprint] = stats
            else:
                todo.append((fingerprint, task, key))
        if not todo:
            return
        requests = [self.request_for(task, task.reference_solution) for _, task, _ in todo]
        for (fingerprint, task, key), result in zip(todo, self.backend.execute_many(requests), strict=True):
            usable = result.status is ExecStatus.PASSED
            stats = ReferenceStats(
                min(result.timings_s) if usable and result.timings_s else None,
                frozenset(result.return_types) if usable else None,
                complexity_report(task.reference_solution),
            )
            with self._lock:
                self._references[fingerprint] = stats
            if self.cache is not None and usable:
                self.cache.set_json(
                    key,
                    {
                        "cpu_s": stats.cpu_s,
                        "return_types": sorted(stats.return_types or ()),
                        "complexity": vars(stats.complexity) if stats.complexity else None,
                    },
                )

    # -- combining ---------------------------------------------------------------------------
    def _static_analysis(
        self, items: Sequence[tuple[Task, str, int]]
    ) -> tuple[list[StyleReport], list[ComplexityReport | None]]:
        styles = style_reports([(code, first_line) for _, code, first_line in items], self.config.ruff_config)
        return styles, [complexity_report(code) for _, code, _ in items]

    def combine(
        self,
        task: Task,
        code: str,
        first_line: int,
        result: ExecResult,
        style: StyleReport,
        complexity: ComplexityReport | None = None,
    ) -> RewardBreakdown:
        if result.status is ExecStatus.SANDBOX_ERROR:
            return RewardBreakdown(
                total=None,
                components=dict.fromkeys(COMPONENTS),
                status=result.status.value,
                details={"message": result.message, "attempts": result.attempts},
            )
        hidden = [t for t in result.tests if not t.test_id.startswith(VISIBLE_PREFIX)]
        visible = [t for t in result.tests if t.test_id.startswith(VISIBLE_PREFIX)]
        hidden_passed = sum(t.outcome is TestOutcome.PASSED for t in hidden)
        tests_total = len(hidden)
        hidden_rate = hidden_passed / tests_total if tests_total else 0.0
        visible_rate = (
            (sum(t.outcome is TestOutcome.PASSED for t in visible) / len(visible)) if visible else None
        )
        reference = self._references.get(task.fingerprint)
        try:
            tree: ast.Module | None = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        fired = run_detectors(
            self.config.detectors,
            DetectorInput(
                code=code,
                tree=tree,
                hidden=result,
                hidden_rate=hidden_rate,
                visible_rate=visible_rate,
                visible_literals=visible_test_literals(task.visible_tests.files.values()),
                reference_return_types=reference.return_types if reference else None,
                hardcode_gap=self.config.hardcode_gap,
            ),
        )
        components: dict[str, float | None] = {
            "tests": 0.0 if fired else hidden_rate,
            "coverage": self._coverage(result, first_line) if self.config.measures_coverage else None,
            "style": style.score(self.config.style_scale),
            "complexity": complexity_score(
                complexity if complexity is not None else complexity_report(code),
                reference.complexity if reference else None,
            ),
            "efficiency": self._efficiency(result, reference),
        }
        hidden_all_passed = tests_total > 0 and hidden_passed == tests_total
        completed = result.status in (ExecStatus.PASSED, ExecStatus.FAILED)
        passed = hidden_all_passed and completed and not fired
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
                "tests_raw": hidden_rate,
                "visible_hidden_gap": (visible_rate - hidden_rate) if visible_rate is not None else None,
                "detector_evidence": fired,
                "style_findings": list(style.findings[:20]),
                "generated_lines": style.generated_lines,
                "cpu_s": min(result.timings_s) if result.timings_s else None,
                "reference_cpu_s": reference.cpu_s if reference else None,
                "coverage_complete": (result.coverage or {}).get("complete"),
                "wall_s": result.wall_s,
                "message": result.message[:500],
            },
        )

    @staticmethod
    def _coverage(result: ExecResult, first_line: int) -> float:
        data = result.coverage
        if not data:
            return 0.0
        executed = [n for n in data.get("executed_lines", []) if n >= first_line]
        missing = [n for n in data.get("missing_lines", []) if n >= first_line]
        taken = [a for a in data.get("executed_branches", []) if a[0] >= first_line]
        not_taken = [a for a in data.get("missing_branches", []) if a[0] >= first_line]
        total = len(executed) + len(missing) + len(taken) + len(not_taken)
        return (len(executed) + len(taken)) / total if total else 0.0

    def _efficiency(self, result: ExecResult, reference: ReferenceStats | None) -> float | None:
        if self.config.weights.efficiency <= 0:
            return None
        if result.status is ExecStatus.TIMEOUT or not result.timings_s:
            return 0.0
        if reference is None or reference.cpu_s is None:
            return None
        floor = self.config.timing_floor_ms / 1000.0
        return min(1.0, (reference.cpu_s + floor) / (min(result.timings_s) + floor))

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
