"""Evaluation runs (codegym.eval.runs) with a scripted generator on a small pack: files and results,
resume after an interruption, generation failures counted then retried, refusing to mix runs,
strict samples-file errors, sandbox errors that are not verdicts."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from codegym.eval.runs import EvalError, EvalProgress, GenerationPlan, run_eval
from codegym.eval.samples import SamplesFileError, validate_samples_file
from codegym.reward.cache import MemoryCache
from codegym.reward.config import COMPONENTS, RewardConfig
from codegym.reward.scoring import RewardJudge
from codegym.rollout.generation import Completion, Generator, SamplingParams
from codegym.rollout.prompts import Prompt, PromptConfig
from codegym.sandbox.local import COVERAGE_PRELOAD, LocalBackend
from codegym.tasks.dirpack import load_directory_pack
from codegym.tasks.model import TaskPack
from tests.eval.helpers import RIGHT, WRONG, task_files
from tests.helpers import write_pack
from tests.reward.conftest import BrokenBackend


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> TaskPack:
    root = tmp_path_factory.mktemp("packs")
    write_pack(
        root,
        "mini",
        tasks={
            "double": task_files("double", RIGHT["mini/double"], [("2", "4"), ("-3", "-6"), ("5", "10")]),
            "negate": task_files("negate", RIGHT["mini/negate"], [("2", "-2"), ("-3", "3"), ("0", "0")]),
            "square": task_files("square", RIGHT["mini/square"], [("2", "4"), ("-3", "9"), ("5", "25")]),
        },
    )
    return load_directory_pack(root / "mini")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[LocalBackend]:
    with LocalBackend(workers=2, preload=COVERAGE_PRELOAD) as backend:
        yield backend


@pytest.fixture()
def judge(sandbox) -> RewardJudge:
    return RewardJudge(sandbox, RewardConfig(), MemoryCache())


class ScriptedGenerator(Generator):
    """Completion-style answers from `policy(task_id, nth answer for that task)`; one prompt per call.
    `interrupt_on_call` raises KeyboardInterrupt on that call; `fail` answers with an error instead."""

    name = "scripted"
    default_style = "completion"

    def __init__(
        self,
        policy: Callable[[str, int], str],
        *,
        interrupt_on_call: int | None = None,
        fail: Callable[[str, int], bool] = lambda task_id, nth: False,
    ) -> None:
        self.policy, self.interrupt_on_call, self.fail = policy, interrupt_on_call, fail
        self.calls = 0
        self.answers: Counter[str] = Counter()

    def batch_prompts(self, n: int) -> int:
        return 1

    def complete(self, prompts: Sequence[Prompt], n: int, params: SamplingParams) -> list[list[Completion]]:
        self.calls += 1
        if self.calls == self.interrupt_on_call:
            raise KeyboardInterrupt
        out = []
        for prompt in prompts:
            assert prompt.style == "completion" and prompt.text.endswith(":\n")
            row = []
            for _ in range(n):
                nth = self.answers[prompt.task_id]
                self.answers[prompt.task_id] += 1
                if self.fail(prompt.task_id, nth):
                    row.append(Completion("", error="HTTP 503: overloaded (after 6 attempts)"))
                else:
                    row.append(Completion(self.policy(prompt.task_id, nth), finish_reason="stop"))
            out.append(row)
        return out


def mixed_policy(task_id: str, nth: int) -> str:
    """double: always right; negate: right on its first answer only; square: never."""
    if task_id == "mini/double" or (task_id == "mini/negate" and nth == 0):
        return RIGHT[task_id]
    return WRONG


def plan(n: int = 3, temperature: float = 0.8, limit: int | None = None) -> GenerationPlan:
    return GenerationPlan(
        model="scripted-model",
        engine="scripted",
        n_samples=n,
        sampling=SamplingParams(temperature=temperature, seed=11),
        prompt=PromptConfig(style="completion"),
        limit=limit,
    )


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def evaluate(pack, out, sandbox, judge, generator, ks=(1, 2), **kwargs):
    return run_eval(
        pack=pack,
        out_dir=out,
        ks=ks,
        backend=sandbox,
        reward=judge,
        generator=generator,
        plan=kwargs.pop("the_plan", plan()),
        **kwargs,
    )


def test_model_run_writes_samples_judged_and_results(tmp_path: Path, pack, sandbox, judge) -> None:
    out = tmp_path / "run"
    seen: Counter[str] = Counter()
    hooks = EvalProgress(
        on_generation_start=lambda total: seen.update(generate_total=total),
        on_sample=lambda row: seen.update(["sample"]),
        on_judge_start=lambda total: seen.update(judge_total=total),
        on_judged=lambda row: seen.update(["judged"]),
    )
    outcome = evaluate(pack, out, sandbox, judge, ScriptedGenerator(mixed_policy), progress=hooks)
    assert seen == {"generate_total": 9, "sample": 9, "judge_total": 9, "judged": 9}
    samples = read_jsonl(out / "samples.jsonl")
    assert [(s["task_id"], s["sample_index"]) for s in samples] == [
        (t, i) for t in ("mini/double", "mini/negate", "mini/square") for i in range(3)
    ]
    assert all("completion" in s for s in samples)
    judged = read_jsonl(out / "judged.jsonl")
    assert len(judged) == 9 and all("reward" in row and "components" in row for row in judged)
    results = json.loads((out / "results.json").read_text())
    assert results == outcome.results
    assert results["pass@1"] == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert results["pass@2"] == pytest.approx((1 + 2 / 3 + 0) / 3)  # negate: 1 - C(2,2)/C(3,2)
    assert results["strict"]["pass@1"] == results["pass@1"]
    assert set(results["components"]) == set(COMPONENTS) and 0 < results["reward"] < 1
    assert results["per_task"]["mini/negate"]["n"] == 3 and results["per_task"]["mini/negate"]["c"] == 1
    assert results["per_task"]["mini/double"]["pass@1"] == 1.0
    assert results["model"] == "scripted-model" and results["seed"] == 11 and results["mode"] == "model"
    assert results["pack"] == {"name": "mini", "version": "0.1", "hash": pack.content_hash}
    assert results["sandbox"]["image"] == sandbox.image and results["complete"] is True
    assert results["generation"]["sampling"]["temperature"] == 0.8 and results["k"] == [1, 2]
    assert results["counts"]["statuses"] == {"failed": 5, "passed": 4}
    assert (
        len(outcome.samples) == 9
        and outcome.samples[0]["code"] == pack.get("double").prefix + RIGHT["mini/double"]
    )


def test_interrupted_generation_resumes_where_it_stopped(tmp_path: Path, pack, sandbox, judge) -> None:
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        evaluate(pack, out, sandbox, judge, ScriptedGenerator(mixed_policy, interrupt_on_call=2))
    first = (out / "samples.jsonl").read_text()
    assert len(first.splitlines()) == 3 and not (out / "judged.jsonl").exists()
    with (out / "samples.jsonl").open("a") as handle:  # killed in the middle of writing a row
        handle.write('{"task_id": "mini/negate", "sample_in')
    generator = ScriptedGenerator(mixed_policy)
    outcome = evaluate(pack, out, sandbox, judge, generator)
    assert outcome.resumed and generator.calls == 2  # negate and square only
    assert outcome.generation.resumed == 3 and outcome.generation.generated == 6
    text = (out / "samples.jsonl").read_text()
    assert text.startswith(first) and len(text.splitlines()) == 9
    assert outcome.results["complete"] and outcome.results["per_task"]["mini/double"]["n"] == 3


def test_rows_already_judged_are_not_judged_again(tmp_path: Path, pack, sandbox, judge) -> None:
    out = tmp_path / "run"
    first = evaluate(pack, out, sandbox, judge, ScriptedGenerator(mixed_policy))
    judged = (out / "judged.jsonl").read_text().splitlines()
    (out / "judged.jsonl").write_text("\n".join(judged[:4]) + "\n")
    generator = ScriptedGenerator(mixed_policy)
    again = evaluate(pack, out, sandbox, judge, generator)
    assert generator.calls == 0 and again.generation.generated == 0
    assert again.judge.resumed == 4 and again.judge.judged == 5
    assert again.results["pass@1"] == first.results["pass@1"] and again.run_id == first.run_id
    rejudged = evaluate(pack, out, sandbox, judge, ScriptedGenerator(mixed_policy), rejudge=True)
    assert rejudged.judge.resumed == 0 and rejudged.judge.judged == 9 and rejudged.run_id == first.run_id


def test_generation_failures_count_as_failed_and_are_retried_on_rerun(
    tmp_path: Path, pack, sandbox, judge
) -> None:
    out = tmp_path / "run"
    failing = ScriptedGenerator(lambda t, nth: RIGHT[t], fail=lambda t, nth: t == "mini/negate" and nth == 1)
    outcome = evaluate(pack, out, sandbox, judge, failing)
    results = outcome.results
    assert outcome.generation.errors == 1
    assert results["counts"]["generation_errors"] == 1 and results["complete"] is False
    assert results["per_task"]["mini/negate"]["n"] == 3 and results["per_task"]["mini/negate"]["c"] == 2
    assert results["per_task"]["mini/negate"]["statuses"] == {"passed": 2, "generation_error": 1}
    error_row = next(r for r in read_jsonl(out / "samples.jsonl") if "generation_error" in r)
    assert error_row["sample_index"] == 1 and "HTTP 503" in error_row["generation_error"]

    healthy = ScriptedGenerator(lambda t, nth: RIGHT[t])
    retried = evaluate(pack, out, sandbox, judge, healthy)
    assert healthy.calls == 1 and retried.generation.generated == 1 and retried.generation.retried == 1
    assert len(read_jsonl(out / "samples.jsonl")) == 10  # the failed row stays; its retry supersedes it
    assert retried.results["counts"]["generation_errors"] == 0 and retried.results["complete"] is True
    assert retried.results["pass@1"] == 1.0 and len(retried.samples) == 9


def test_a_directory_of_another_run_is_refused(tmp_path: Path, pack, sandbox, judge) -> None:
    out = tmp_path / "run"
    evaluate(pack, out, sandbox, judge, ScriptedGenerator(mixed_policy), the_plan=plan(n=2))
    with pytest.raises(
        EvalError, match=r"different evaluation run.*sampling\.temperature: recorded 0\.8, now 0\.2"
    ):
        evaluate(
            pack, out, sandbox, judge, ScriptedGenerator(mixed_policy), the_plan=plan(n=2, temperature=0.2)
        )
    with pytest.raises(EvalError, match=r"n_samples: recorded 2, now 3"):
        evaluate(pack, out, sandbox, judge, ScriptedGenerator(mixed_policy), the_plan=plan(n=3))
    # other k values are fine: pass@k is recomputed from the same samples
    again = evaluate(pack, out, sandbox, judge, ScriptedGenerator(mixed_policy), ks=(1,), the_plan=plan(n=2))
    assert "pass@2" not in again.results and again.generation.generated == 0
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "samples.jsonl").write_text("{}\n")
    with pytest.raises(EvalError, match=r"no run\.json"):
        evaluate(pack, stranger, sandbox, judge, ScriptedGenerator(mixed_policy))


def test_limit_selects_the_first_tasks(tmp_path: Path, pack, sandbox, judge) -> None:
    outcome = evaluate(
        pack,
        tmp_path / "run",
        sandbox,
        judge,
        ScriptedGenerator(mixed_policy),
        ks=(1,),
        the_plan=plan(n=1, limit=2),
    )
    assert list(outcome.results["per_task"]) == ["mini/double", "mini/negate"]
    assert outcome.results["tasks"] == {"pack_total": 3, "selected": 2, "evaluated": 2, "missing": []}


def write_samples(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_samples_file_run_and_rows_without_indices(tmp_path: Path, pack, sandbox, judge) -> None:
    samples = write_samples(
        tmp_path / "mine.jsonl",
        [
            {"task_id": "mini/double", "completion": RIGHT["mini/double"]},
            {"task_id": "double", "completion": WRONG},  # a task's short name is fine
            {"task_id": "mini/negate", "solution": "def negate(x):\n    return -x\n"},
            "",
            {"task_id": "mini/negate", "completion": WRONG, "note": "kept"},
        ],
    )
    out = tmp_path / "run"
    outcome = run_eval(pack=pack, out_dir=out, ks=(1, 2), backend=sandbox, reward=judge, samples_file=samples)
    results = outcome.results
    assert (out / "samples.jsonl").read_bytes() == samples.read_bytes()
    assert results["mode"] == "samples" and results["model"] == "mine" and results["generation"] is None
    assert results["pass@1"] == pytest.approx(0.5) and results["pass@2"] == pytest.approx(1.0)
    assert results["tasks"]["missing"] == ["mini/square"] and results["complete"] is False
    assert results["samples_sha256"] and results["seed"] is None
    assert read_jsonl(out / "judged.jsonl")[3]["note"] == "kept"
    # same file again: resumed, same run id; another file into the same directory: refused
    assert (
        run_eval(
            pack=pack,
            out_dir=out,
            ks=(1,),
            backend=sandbox,
            reward=judge,
            samples_file=samples,
            label="renamed",
        ).run_id
        == outcome.run_id
    )
    other = write_samples(tmp_path / "other.jsonl", [{"task_id": "mini/double", "completion": WRONG}])
    with pytest.raises(EvalError, match="samples_sha256"):
        run_eval(pack=pack, out_dir=out, ks=(1,), backend=sandbox, reward=judge, samples_file=other)


def test_bad_samples_files_name_file_line_and_field(tmp_path: Path, pack) -> None:
    path = write_samples(
        tmp_path / "bad.jsonl",
        [
            {"task_id": "mini/double", "completion": "    return 2 * x\n", "sample_index": 0},
            "{not json",
            {"task_id": "mini/dubble", "completion": "x"},
            {"completion": "x"},
            {"task_id": "mini/double"},
            {"task_id": "mini/double", "completion": 3},
            {"task_id": "mini/double", "completion": "a", "solution": "b"},
            {"task_id": "mini/double", "completion": "a", "sample_index": 0},
            {"task_id": "mini/double", "completion": "a", "sample_index": -1},
            [1, 2],
        ],
    )
    with pytest.raises(SamplesFileError) as info:
        validate_samples_file(path, pack)
    message = str(info.value)
    assert f"{path}: 9 bad rows" in message
    for fragment in [
        f"{path}:2: invalid JSON",
        f"{path}:3: field 'task_id': unknown task 'mini/dubble' in pack 'mini' (did you mean 'mini/double'",
        f"{path}:4: field 'task_id': missing",
        f"{path}:5: field 'completion' (or 'solution'): missing",
        f"{path}:6: field 'completion': must be a string, got int",
        f"{path}:7: fields 'completion' and 'solution': give exactly one",
        f"{path}:8: field 'sample_index': sample 0 of mini/double already appears on line 1",
        f"{path}:9: field 'sample_index': must be an integer >= 0",
        f"{path}:10: expected a JSON object, got list",
    ]:
        assert fragment in message, fragment
    empty = write_samples(tmp_path / "empty.jsonl", [])
    with pytest.raises(EvalError, match="has no rows"):
        validate_samples_file(empty, pack)
    with pytest.raises(EvalError, match="does not exist"):
        validate_samples_file(tmp_path / "missing.jsonl", pack)


def test_sandbox_errors_are_not_verdicts(tmp_path: Path, pack) -> None:
    broken = BrokenBackend()
    try:
        judge = RewardJudge(broken, RewardConfig(), MemoryCache())
        samples = write_samples(
            tmp_path / "s.jsonl", [{"task_id": "mini/double", "completion": RIGHT["mini/double"]}]
        )
        outcome = run_eval(
            pack=pack, out_dir=tmp_path / "run", ks=(1,), backend=broken, reward=judge, samples_file=samples
        )
    finally:
        broken.close()
    results = outcome.results
    assert results["counts"]["sandbox_errors"] == 1 and results["pass@1"] is None
    assert results["tasks"]["evaluated"] == 0 and results["reward"] is None and results["complete"] is False


def test_model_and_samples_exclude_each_other(tmp_path: Path, pack, sandbox, judge) -> None:
    samples = write_samples(tmp_path / "s.jsonl", [{"task_id": "mini/double", "completion": WRONG}])
    with pytest.raises(EvalError, match="not both"):
        run_eval(
            pack=pack,
            out_dir=tmp_path / "r",
            ks=(1,),
            backend=sandbox,
            reward=judge,
            generator=ScriptedGenerator(mixed_policy),
            plan=plan(),
            samples_file=samples,
        )
    with pytest.raises(EvalError, match="n_samples must be >= 1"):  # the library names its field
        plan(n=0)
