"""EvalPlus: HumanEval+ and MBPP+ as released (HumanEvalPlus.jsonl(.gz), MbppPlus.jsonl(.gz)).

A row: `task_id` (`HumanEval/N` or `Mbpp/N`: which dataset it is), `prompt`, `canonical_solution`,
`entry_point`, `base_input` and `plus_input` (lists of argument lists), `atol`; `contract` (input
validity asserts) and HumanEval+'s `test` are not used to judge. EvalPlus judges a program by calling
`entry_point` once per input (base, then plus) and comparing what it returns with what
`prompt + canonical_solution` returns (evalplus_oracles.py has the comparison and the special oracles).

EvalPlus ships the inputs without the outputs: it computes them once from the canonical solution. So
does codegym, at import (`prepare_rows`): the canonical solution runs in the sandbox and each row gets
`codegym_expected` (the answers, tagged JSON) and `codegym_ref_time_s` (the reference's time per
input), or `codegym_record_error` when the reference itself fails. A row without them cannot be judged.
Each input's time limit is EvalPlus's: `max(min_time_limit, gt_time_limit_factor * reference time)`,
1 s and 4 by default (pack.yaml `options:` of the same names change them).

HumanEval+ is a completion task like HumanEval (the completion is appended to the prompt); MBPP+ is a
whole-program task whose statement is the prompt's docstring (the text and one example assert).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from codegym.tasks.cases import Case, CaseSuite, Comparison, decode_value
from codegym.tasks.formats.base import SOLUTION_FILE, DatasetFormat, RowContext, SkipRow, case_task
from codegym.tasks.formats.evalplus_inputs import mbpp_arguments
from codegym.tasks.formats.evalplus_oracles import REL_TOL
from codegym.tasks.model import Limits, Task, TestSuite

if TYPE_CHECKING:  # the sandbox is imported when rows are recorded, not to read a pack
    from codegym.sandbox.types import ExecRequest, ExecResult

EXPECTED_FIELD = "codegym_expected"
REF_TIME_FIELD = "codegym_ref_time_s"
RECORD_ERROR_FIELD = "codegym_record_error"
RECORD_FIELDS = (EXPECTED_FIELD, REF_TIME_FIELD, RECORD_ERROR_FIELD)

# EvalPlus's defaults (evalplus/config.py) and the names of its CLI flags
DEFAULT_MIN_TIME_LIMIT = 1.0
DEFAULT_GT_TIME_LIMIT_FACTOR = 4.0
RUN_SLACK_S = 2.0  # the whole run's limit is at least factor * the reference's total time plus this

# recording the reference: EvalPlus runs it without a time limit; ours are generous, and memory is at
# least EvalPlus's 4 GiB address space
RECORD_CASE_TIMEOUT_S = 60.0
RECORD_RUN_TIMEOUT_S = 900.0
RECORD_MEMORY_MB = 4096
RECORD_FUNCTION = "codegym_record_returns"  # public: the program exports only names without `_`

DATASETS = {"HumanEval": "HumanEval+", "Mbpp": "MBPP+"}

# EvalPlus's special oracles, keyed as EvalPlus keys them: dataset and entry point
HUMANEVAL_ORACLES = {"find_zero": "poly_root"}
MBPP_ORACLES = {
    "are_equivalent": "returns",  # Mbpp/164
    "sum_div": "equal_or_zero",  # Mbpp/295
    "surface_Area": "mbpp_surface_area",  # Mbpp/581
    "digit_distance_nums": "mbpp_digit_distance",  # Mbpp/558
    **dict.fromkeys(("check_str", "text_match_three", "text_starta_endb"), "is_not_none"),
    **dict.fromkeys(
        (
            "similar_elements",
            "find_char_long",
            "common_in_nested_lists",
            "extract_singly",
            "larg_nnum",
            "intersection_array",
            "find_dissimilar",
            "Diff",
        ),
        "set",
    ),
}

FIELDS = (
    "task_id (HumanEval/N | Mbpp/N), prompt, canonical_solution, entry_point, base_input, plus_input, "
    f"atol; {EXPECTED_FIELD} and {REF_TIME_FIELD} (added by `tasks import`)"
)


def row_id(row: Mapping[str, Any]) -> str:
    return str(row["task_id"])


def dataset_of(task_id: str) -> str | None:
    """`HumanEval` or `Mbpp` (the task id's prefix), None for anything else."""
    prefix, _, number = task_id.partition("/")
    return prefix if prefix in DATASETS and number else None


def oracle_for(dataset: str, entry_point: str) -> str:
    table = HUMANEVAL_ORACLES if dataset == "HumanEval" else MBPP_ORACLES
    return table.get(entry_point, "evalplus_equal")


def time_limits(ref_times: Sequence[float], options: Mapping[str, Any]) -> list[float]:
    """EvalPlus's per-input limits: max(min_time_limit, gt_time_limit_factor * reference time)."""
    floor = float(options.get("min_time_limit", DEFAULT_MIN_TIME_LIMIT))
    factor = float(options.get("gt_time_limit_factor", DEFAULT_GT_TIME_LIMIT_FACTOR))
    return [max(floor, factor * t) for t in ref_times]


def _text(row: Mapping[str, Any], name: str, context: RowContext, task: str) -> str:
    value = row.get(name)
    if not isinstance(value, str) or not value.strip():
        raise context.error(f"must be a non-empty string, got {value!r:.60}", task=task, field=name)
    return value


def _task_id(row: Mapping[str, Any], context: RowContext) -> tuple[str, str]:
    task_id = row.get("task_id")
    dataset = dataset_of(task_id) if isinstance(task_id, str) else None
    if dataset is None or task_id is None:
        raise context.error(
            f"must be `HumanEval/<n>` or `Mbpp/<n>` (an EvalPlus task id), got {task_id!r:.60}",
            task=str(task_id),
            field="task_id",
        )
    if dataset == "Mbpp" and not task_id.split("/", 1)[1].isdigit():
        raise context.error("must end with the MBPP task number", task=task_id, field="task_id")
    return task_id, dataset


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _check_options(context: RowContext, task: str) -> None:
    for name in ("min_time_limit", "gt_time_limit_factor"):
        value = context.options.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0
        ):
            raise context.error(f"must be a number > 0, got {value!r}", task=task, field=f"options.{name}")


def reference_code(row: Mapping[str, Any], context: RowContext, task: str) -> str:
    """What EvalPlus runs as the ground truth: prompt + canonical_solution (`code` in a row that has
    no `canonical_solution`, as MBPP's own files name it)."""
    name = "canonical_solution" if "canonical_solution" in row or "code" not in row else "code"
    return _text(row, "prompt", context, task) + _text(row, name, context, task)


def case_inputs(row: Mapping[str, Any], context: RowContext, task: str, dataset: str) -> tuple[list, int]:
    """All inputs (base, then plus) as argument tuples, and how many are base inputs."""
    number = int(task.split("/", 1)[1]) if dataset == "Mbpp" else None
    inputs: list[tuple[Any, ...]] = []
    base_count = 0
    for name in ("base_input", "plus_input"):
        value = row.get(name)
        if value is None and name == "plus_input":
            value = []
        if not isinstance(value, list):
            raise context.error(f"must be a list of argument lists, got {value!r:.60}", task=task, field=name)
        for index, args in enumerate(value):
            if not isinstance(args, list):
                raise context.error(f"input {index} is not a list of arguments", task=task, field=name)
            try:
                inputs.append(tuple(args) if number is None else mbpp_arguments(number, args))
            except (TypeError, ValueError, IndexError, AttributeError) as exc:
                raise context.error(
                    f"input {index} cannot be rebuilt as EvalPlus rebuilds Mbpp/{number}'s inputs: "
                    f"{type(exc).__name__}: {exc}",
                    task=task,
                    field=name,
                ) from None
        if name == "base_input":
            base_count = len(inputs)
    if not inputs:
        raise SkipRow("no inputs (base_input and plus_input are empty)")
    return inputs, base_count


def _atol(row: Mapping[str, Any], context: RowContext, task: str) -> float:
    value = row.get("atol", 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise context.error(f"must be a number >= 0, got {value!r:.60}", task=task, field="atol")
    return float(value)


def _entry_point(row: Mapping[str, Any], context: RowContext, task: str) -> str:
    entry_point = _text(row, "entry_point", context, task)
    if not entry_point.isidentifier():
        raise context.error("must be a Python identifier", task=task, field="entry_point")
    return entry_point


def _recorded(row: Mapping[str, Any], context: RowContext, task: str, count: int) -> tuple[list, list]:
    """The stored answers (decoded) and the reference's times, one per input."""
    if row.get(RECORD_ERROR_FIELD):
        raise SkipRow(f"the canonical solution could not be recorded: {row[RECORD_ERROR_FIELD]}")
    expected, times = row.get(EXPECTED_FIELD), row.get(REF_TIME_FIELD)
    if expected is None or times is None:
        raise SkipRow("expected outputs not computed: import it with `codegym tasks import evalplus`")
    for name, value in ((EXPECTED_FIELD, expected), (REF_TIME_FIELD, times)):
        if not isinstance(value, list) or len(value) != count:
            size = len(value) if isinstance(value, list) else type(value).__name__
            raise context.error(
                f"has {size} values for {count} inputs (base_input + plus_input): import the rows again",
                task=task,
                field=name,
            )
    if not all(
        isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t >= 0 for t in times
    ):
        raise context.error("must hold times in seconds (numbers >= 0)", task=task, field=REF_TIME_FIELD)
    try:
        answers = [decode_value(value) for value in expected]
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        raise context.error(f"is not tagged JSON: {exc}", task=task, field=EXPECTED_FIELD) from None
    return answers, [float(t) for t in times]


def mbpp_statement(prompt: str) -> str:
    """The MBPP+ prompt's docstring text (the task and one example assert)."""
    text = prompt.strip()
    for quote in ('"""', "'''"):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 6:
            return text[3:-3].strip()
    return text


def task_from_row(row: Mapping[str, Any], context: RowContext) -> Task:
    task, dataset = _task_id(row, context)
    _check_options(context, task)
    prompt = _text(row, "prompt", context, task)
    reference = reference_code(row, context, task)
    entry_point = _entry_point(row, context, task)
    atol = _atol(row, context, task)
    inputs, base_count = case_inputs(row, context, task, dataset)
    answers, ref_times = _recorded(row, context, task, len(inputs))
    limits = time_limits(ref_times, context.options)
    factor = float(context.options.get("gt_time_limit_factor", DEFAULT_GT_TIME_LIMIT_FACTOR))
    run_limits = context.limits.merged(
        {"timeout_s": max(context.limits.timeout_s, factor * sum(ref_times) + RUN_SLACK_S)}
    )
    cases = CaseSuite(
        kind="call",
        cases=tuple(
            Case(args, answer, limit) for args, answer, limit in zip(inputs, answers, limits, strict=True)
        ),
        function=entry_point,
        comparison=Comparison(float_rel=REL_TOL, float_abs=atol, oracle=oracle_for(dataset, entry_point)),
        case_timeout_s=max(limits),
    )
    metadata = {"format": "evalplus", "dataset": DATASETS[dataset], "base_cases": base_count, "atol": atol}
    if dataset == "Mbpp":
        return case_task(
            context=context,
            task_id=task,
            statement=mbpp_statement(prompt),
            cases=cases,
            reference=reference,
            limits=run_limits,
            metadata=metadata,
        )
    return Task(
        pack=context.pack,
        name=task,
        prompt=prompt,
        solution_path=SOLUTION_FILE,
        reference_solution=reference,
        hidden_tests=TestSuite(),
        prefix=prompt,
        entry_point=entry_point,
        limits=run_limits,
        test_runner="fast",
        source=context.file,
        metadata=metadata,
        cases=cases,
    )


# -- computing the expected outputs at import --------------------------------------------------------
def record_program(reference: str, entry_point: str, *, not_none: bool) -> str:
    """The reference plus a public function that calls it and returns its answer as a tagged-JSON
    string with the call's own time, so types (tuples, sets) reach the host as the reference made them.
    For EvalPlus's not-None tasks the answer is whether it returned something other than None."""
    from importlib import resources

    codec = resources.files("codegym.sandbox.inside").joinpath("casedata.py").read_text(encoding="utf-8")
    answer = "_cg_value is not None" if not_none else "_cg_value"
    return (
        f"{reference.rstrip()}\n\n\n"
        "# codegym: recording the reference's answers (EvalPlus computes its expected outputs this way)\n"
        "_codegym_codec = {}\n"
        f"exec({codec!r}, _codegym_codec)\n\n\n"
        f"def {RECORD_FUNCTION}(*args):\n"
        "    import json as _cg_json\n"
        "    import time as _cg_time\n\n"
        "    _cg_started = _cg_time.perf_counter()\n"
        f"    _cg_value = {entry_point}(*args)\n"
        "    _cg_elapsed = _cg_time.perf_counter() - _cg_started\n"
        f"    return _cg_json.dumps([_codegym_codec['encode_value']({answer}), _cg_elapsed])\n"
    )


def record_request(row: Mapping[str, Any], context: RowContext) -> ExecRequest | None:
    """The sandbox request that records one row's reference answers; None for a row that cannot be
    read (loading it reports why)."""
    from codegym.sandbox.types import ExecRequest

    try:
        task, dataset = _task_id(row, context)
        reference = reference_code(row, context, task)
        entry_point = _entry_point(row, context, task)
        inputs, _ = case_inputs(row, context, task, dataset)
    except (SkipRow, ValueError):  # TaskPackError is a ValueError
        return None
    suite = CaseSuite(
        kind="call",
        cases=tuple(Case(args, None) for args in inputs),
        function=RECORD_FUNCTION,
        case_timeout_s=RECORD_CASE_TIMEOUT_S,
    )
    not_none = oracle_for(dataset, entry_point) == "is_not_none"
    program = record_program(reference, entry_point, not_none=not_none)
    limits = Limits(
        timeout_s=max(context.limits.timeout_s, RECORD_RUN_TIMEOUT_S),
        memory_mb=max(context.limits.memory_mb, RECORD_MEMORY_MB),
        max_processes=context.limits.max_processes,
        max_output_bytes=context.limits.max_output_bytes,
        max_file_bytes=context.limits.max_file_bytes,
        max_open_files=context.limits.max_open_files,
    )
    return ExecRequest(
        files={SOLUTION_FILE: program},
        tests={},
        cases=suite,
        record_returns=True,
        limits=limits,
        solution_path=SOLUTION_FILE,
        entry_point=RECORD_FUNCTION,
        test_runner="fast",
        request_id=f"record:{task}",
    )


def store_record(row: dict[str, Any], result: ExecResult, context: RowContext) -> None:
    """Write one recording's answers and times into the row (or why it failed)."""
    from codegym.sandbox.types import ExecStatus, TestOutcome

    task = row_id(row)
    if result.status is ExecStatus.SANDBOX_ERROR:
        raise context.error(
            f"the sandbox failed while recording the canonical solution's answers: {result.message}",
            task=task,
        )
    count = len(row_inputs(row))
    answers: list[Any] = []
    times: list[float] = []
    problem = None
    returns = list(result.case_returns)
    for index in range(count):
        test = result.tests[index] if index < len(result.tests) else None
        if test is None or test.outcome is not TestOutcome.PASSED:
            how = test.outcome.value if test is not None else "not run"
            # the message's first line is the exception (the traceback's frames follow)
            detail = (test.message.strip().splitlines() or [""])[0] if test is not None else result.message
            problem = f"input {index} of {count} ({how}): {detail}".rstrip(": ")
            break
        recorded = returns[index] if index < len(returns) else None
        try:
            answer, elapsed = json.loads(recorded)
        except (TypeError, ValueError):
            problem = f"input {index} of {count}: no answer came back ({recorded!r:.60})"
            break
        answers.append(answer)
        times.append(float(elapsed))
    for name in RECORD_FIELDS:
        row.pop(name, None)
    if problem is not None:
        row[RECORD_ERROR_FIELD] = problem
    else:
        row[EXPECTED_FIELD] = answers
        row[REF_TIME_FIELD] = times


def row_inputs(row: Mapping[str, Any]) -> list[Any]:
    return [*(row.get("base_input") or []), *(row.get("plus_input") or [])]


def record_expected(
    rows: list[dict[str, Any]],
    context: RowContext,
    execute: Callable[[list[ExecRequest]], list[ExecResult]],
) -> list[dict[str, Any]]:
    """Run every readable row's reference once (`execute`: a backend's execute_many) and store its
    answers; rows that cannot be read are left as they are, without stale answers."""
    pending: list[tuple[dict[str, Any], ExecRequest]] = []
    for row in rows:
        request = record_request(row, context)
        if request is None:
            for name in RECORD_FIELDS:
                row.pop(name, None)
        else:
            pending.append((row, request))
    results = execute([request for _, request in pending]) if pending else []
    for (row, _), result in zip(pending, results, strict=True):
        store_record(row, result, context)
    return rows


def prepare_rows(rows: list[dict[str, Any]], context: RowContext) -> list[dict[str, Any]]:
    """`tasks import`: the expected outputs, computed once from the canonical solutions in the local
    sandbox (the reference is the dataset's own code)."""
    from codegym.sandbox.local import LocalBackend

    with LocalBackend() as backend:
        return record_expected(rows, context, backend.execute_many)


FORMATS = {
    "evalplus": DatasetFormat(
        name="evalplus",
        description="EvalPlus HumanEval+ / MBPP+ (HumanEvalPlus.jsonl, MbppPlus.jsonl): call-based, "
        "expected outputs computed at import from the canonical solution",
        fields=FIELDS,
        task_from_row=task_from_row,
        row_id=row_id,
        prepare_rows=prepare_rows,
    )
}
