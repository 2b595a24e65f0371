"""`judge_samples_file`: input order, incremental rows, resume, malformed rows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from codegym.eval.judge import JudgeError, judge_samples_file, resume_point
from codegym.tasks.humaneval import load_humaneval_pack
from tests.helpers import interrupted_command

PACK = load_humaneval_pack()
CODEGYM = str(Path(sys.executable).with_name("codegym"))
SLOW = {"task_id": "HumanEval/0", "completion": "    import time\n    time.sleep(1.0)\n    return False\n"}


def write_samples(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def canonical(task_id: str) -> dict:
    return {
        "task_id": task_id,
        "completion": PACK.get(task_id).reference_solution[len(PACK.get(task_id).prefix) :],
    }


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_rows_keep_input_fields_and_order(tmp_path: Path, local_backend) -> None:
    rows = [
        {**canonical("HumanEval/0"), "model": "m", "sample": 0},
        {"task_id": "HumanEval/0", "completion": "    import time\n    time.sleep(0.5)\n    return False\n"},
        {"task_id": "HumanEval/2", "solution": "def truncate_number(number):\n    return number % 1.0\n"},
        "{not json",
        {"task_id": "HumanEval/9999", "completion": "x"},
        {"task_id": "HumanEval/1", "completion": "a", "solution": "b"},
        {"completion": "    return 1\n"},
    ]
    samples = write_samples(tmp_path / "samples.jsonl", rows)
    out = tmp_path / "out.jsonl"
    summary = judge_samples_file(samples, PACK, local_backend, out)
    judged = read_rows(out)
    assert [r["row"] for r in judged] == list(range(7))
    assert judged[0]["model"] == "m" and judged[0]["sample"] == 0
    assert [r["status"] for r in judged] == [
        "passed",
        "failed",
        "passed",
        "invalid_input",
        "invalid_input",
        "invalid_input",
        "invalid_input",
    ]
    assert judged[0]["passed"] is True and judged[0]["tests_passed"] == judged[0]["tests_total"] == 7
    assert judged[1]["passed"] is False and 0 < judged[1]["tests_passed"] < judged[1]["tests_total"]
    assert "invalid JSON" in judged[3]["error"]
    assert "unknown task 'HumanEval/9999'" in judged[4]["error"] and "Did you mean" in judged[4]["error"]
    assert "exactly one of 'completion' or 'solution'" in judged[5]["error"]
    assert "'task_id' is missing" in judged[6]["error"]
    assert all(r["pack_version"] == "1.0.3" for r in judged if r["status"] != "invalid_input")
    assert summary.judged == 7 and summary.passed == 2 and summary.statuses["invalid_input"] == 4


def test_resume_skips_finished_rows_and_repairs_a_torn_line(tmp_path: Path, local_backend) -> None:
    samples = write_samples(tmp_path / "samples.jsonl", [canonical(f"HumanEval/{i}") for i in range(5)])
    out = tmp_path / "out.jsonl"
    judge_samples_file(samples, PACK, local_backend, out)
    full = out.read_text().splitlines()
    out.write_text("\n".join(full[:2]) + "\n" + full[2][: len(full[2]) // 2])  # killed mid-write of row 2
    assert resume_point(samples, out) == 2
    summary = judge_samples_file(samples, PACK, local_backend, out)
    assert summary.resumed == 2 and summary.judged == 3
    rows = read_rows(out)
    assert [r["row"] for r in rows] == list(range(5)) and all(r["passed"] for r in rows)


def test_out_file_of_another_run_is_never_overwritten(tmp_path: Path, local_backend) -> None:
    first = write_samples(tmp_path / "a.jsonl", [canonical("HumanEval/0")])
    second = write_samples(tmp_path / "b.jsonl", [canonical("HumanEval/1")])
    out = tmp_path / "out.jsonl"
    judge_samples_file(first, PACK, local_backend, out)
    before = out.read_text()
    with pytest.raises(JudgeError, match="different samples file"):
        judge_samples_file(second, PACK, local_backend, out)
    assert out.read_text() == before
    judge_samples_file(second, PACK, local_backend, out, resume=False)
    assert read_rows(out)[0]["task_id"] == "HumanEval/1"


def test_ctrl_c_keeps_the_whole_chunks_judged_and_waits_for_no_other(tmp_path: Path) -> None:
    """SIGINT while slow chunks are in flight: the command exits at once (it used to wait for the
    chunks in flight, ~100 s for a docker judge of slow samples), and the rows already judged stay,
    whole and in order, for the resume."""
    # chunks of 16 on one worker: three fast ones, then slow ones (each over 45 s). Three chunks are
    # in flight at a time and their rows share the worker in any order, so only the fast chunks come
    # first for sure: the first is written within seconds, and the slow ones are in flight by then.
    rows = [canonical(f"HumanEval/{i}") for i in range(48)] + [SLOW] * 48
    samples = write_samples(tmp_path / "samples.jsonl", rows)
    out = tmp_path / "out.jsonl"
    argv = [CODEGYM, "judge", str(samples), "--pack", "humaneval", "--out", str(out)]
    judge = interrupted_command(
        [*argv, "--no-reward", "-w", "1"],
        lambda _: out.exists() and out.read_text().count("\n") >= 16,  # the first chunk is written
    )
    assert judge.returncode == 130, judge.output[-2000:]
    assert "run the same command again to resume" in judge.output
    assert judge.waited_s < 30, judge.waited_s  # each slow chunk in flight takes over 45 s
    judged = read_rows(out)
    assert len(judged) in (16, 32, 48), len(judged)  # whole chunks, and never a slow one
    assert [r["row"] for r in judged] == list(range(len(judged))) and all(r["passed"] for r in judged)
    assert resume_point(samples, out) == len(judged)
