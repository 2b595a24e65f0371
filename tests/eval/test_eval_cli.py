"""`codegym eval` and `codegym leaderboard` end to end: clear errors for bad invocations and bad
sample files, a samples run recorded idempotently in the results database, a tiny local
transformers model (generate, judge, resume), an OpenAI-compatible endpoint with a failing sample,
and the leaderboard's show / export / remove."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from codegym.cli.app import app
from tests.eval.test_eval_runs import RIGHT, WRONG, task_files
from tests.eval.test_generation import ScriptedAPI, serve_api
from tests.tasks.test_packs import write_pack

runner = CliRunner()


@pytest.fixture(scope="module")
def tasks_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tasks")
    write_pack(
        root,
        "mini",
        tasks={
            "double": task_files("double", RIGHT["mini/double"], [("2", "4"), ("-3", "-6")]),
            "negate": task_files("negate", RIGHT["mini/negate"], [("2", "-2"), ("0", "0")]),
            "square": task_files("square", RIGHT["mini/square"], [("3", "9"), ("-2", "4")]),
        },
    )
    return root


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory, tasks_dir: Path) -> Path:
    from codegym.tasks.dirpack import load_directory_pack
    from codegym.train.tiny import TinyModelSpec, build_tiny_model, task_corpus

    pack = load_directory_pack(tasks_dir / "mini")
    return build_tiny_model(
        tmp_path_factory.mktemp("tiny"), task_corpus([pack]), TinyModelSpec(vocab_size=512)
    )


def invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, [str(a) for a in args], env=env)


def common(tmp_path: Path, tasks_dir: Path) -> list[str]:
    return [
        "--pack",
        "mini",
        "--tasks-dir",
        str(tasks_dir),
        "--cache",
        "memory",
        "--workers",
        "2",
        "--db",
        f"sqlite:///{tmp_path / 'results.sqlite'}",
    ]


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def write_samples(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_bad_invocations_are_clear_errors(tmp_path: Path, tasks_dir: Path) -> None:
    samples = write_samples(tmp_path / "s.jsonl", [{"task_id": "mini/double", "completion": WRONG}])
    out = tmp_path / "out"
    cases: list[tuple[list[Any], str]] = [
        (["--model", "m", "--samples", samples], "--model and --samples exclude each other"),
        ([], "give --model MODEL to generate samples, or --samples FILE.jsonl"),
        (["--samples", tmp_path / "nope.jsonl"], "no such file"),
        (["--samples", samples, "--n-samples", "5"], "--n-samples only apply when generating with --model"),
        (["--model", "m", "--k", "1,10"], "--k 10 needs at least that many samples"),
        (["--model", "m", "--k", "1,x"], "'x' is not an integer"),
        (["--model", "m", "--engine", "openai"], "--engine openai needs --api-base"),
        (["--model", "m", "--api-base", "http://x/v1"], "--api-base applies to --engine openai only"),
        (["--model", "m", "--engine", "tgi"], "--engine 'tgi': use one of transformers, vllm, openai"),
        (
            [
                "--model",
                "m",
                "--engine",
                "openai",
                "--api-base",
                "http://127.0.0.1:9/v1",
                "--api-key-env",
                "CODEGYM_TEST_UNSET_KEY",
            ],
            "CODEGYM_TEST_UNSET_KEY: that environment variable is not set",
        ),
        (["--model", str(tmp_path / "no-model")], "no-model: no such model directory"),
        (["--model", str(samples)], "s.jsonl: no such model directory"),
        (["--samples", samples, "--db", "results.sqlite"], "is not a database URL"),
    ]
    for args, message in cases:
        result = invoke("eval", *common(tmp_path, tasks_dir), "--out", out, *args)
        assert result.exit_code == 2, (args, result.output)
        assert message in flat(result.output), (args, result.output)
        assert "Traceback" not in result.output
    assert not out.exists()


def test_bad_samples_file_names_file_line_and_field(tmp_path: Path, tasks_dir: Path) -> None:
    samples = write_samples(
        tmp_path / "bad.jsonl",
        [
            {"task_id": "mini/double", "completion": RIGHT["mini/double"]},
            {"task_id": "mini/nope", "completion": "x"},
            '{"task_id": "mini/double", "completion": ',
            {"task_id": "mini/square"},
        ],
    )
    result = invoke("eval", *common(tmp_path, tasks_dir), "--samples", samples, "--out", tmp_path / "out")
    assert result.exit_code == 2
    text = flat(result.output)
    assert "3 bad rows" in text and "bad.jsonl:2: field 'task_id': unknown task 'mini/nope'" in text
    assert (
        "bad.jsonl:3: invalid JSON" in text
        and "bad.jsonl:4: field 'completion' (or 'solution'): missing" in text
    )
    assert not (tmp_path / "out").exists()  # refused before anything ran


def test_samples_run_is_recorded_once_and_shown(tmp_path: Path, tasks_dir: Path) -> None:
    samples = write_samples(
        tmp_path / "answers.jsonl",
        [
            {"task_id": "mini/double", "completion": RIGHT["mini/double"], "sample_index": 0},
            {"task_id": "mini/double", "completion": WRONG, "sample_index": 1},
            {"task_id": "mini/negate", "completion": RIGHT["mini/negate"], "sample_index": 0},
            {"task_id": "mini/negate", "completion": RIGHT["mini/negate"], "sample_index": 1},
            {"task_id": "mini/square", "solution": "def square(x):\n    return x ** 2\n", "sample_index": 0},
            {"task_id": "mini/square", "completion": WRONG, "sample_index": 1},
        ],
    )
    out = tmp_path / "run"
    args = [
        "eval",
        *common(tmp_path, tasks_dir),
        "--samples",
        samples,
        "--out",
        out,
        "--k",
        "1,2",
        "--label",
        "hand-written",
    ]
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    results = json.loads((out / "results.json").read_text())
    assert results["pass@1"] == pytest.approx((0.5 + 1 + 0.5) / 3) and results["pass@2"] == pytest.approx(1.0)
    assert results["model"] == "hand-written" and results["complete"] is True
    assert "pass@1" in first.output and "recorded run" in first.output
    second = invoke(*args, "--json")
    assert second.exit_code == 0, second.output
    summary = json.loads(second.stdout)
    assert (
        summary["recorded"] is False and summary["run_id"] == results["run_id"] and "per_task" not in summary
    )

    db = ["--db", f"sqlite:///{tmp_path / 'results.sqlite'}"]
    shown = invoke("leaderboard", "show", *db, "--json")
    assert shown.exit_code == 0, shown.output
    (row,) = json.loads(shown.stdout)  # one run, not two
    assert row["model"] == "hand-written" and row["pass@1"] == pytest.approx(results["pass@1"])
    assert row["components"]["tests"] is not None and row["tasks"] == "3/3"
    table = invoke("leaderboard", "show", *db, "--pack", "mini")
    assert table.exit_code == 0 and "hand-written" in table.output and "pass@1" in table.output
    assert "no runs recorded for pack 'other'" in flat(
        invoke("leaderboard", "show", *db, "--pack", "other").output
    )

    html_dir = tmp_path / "site"
    exported = invoke("leaderboard", "export", *db, "--html", html_dir)
    assert exported.exit_code == 0, exported.output
    page = (html_dir / "index.html").read_text()
    assert "hand-written" in page and "return x ** 2" in page
    removed = invoke("leaderboard", "remove", *db, results["run_id"][:8])
    assert removed.exit_code == 0 and json.loads(invoke("leaderboard", "show", *db, "--json").stdout) == []
    assert invoke("leaderboard", "remove", *db, "zzz").exit_code == 2


def test_no_record_leaves_the_database_alone(tmp_path: Path, tasks_dir: Path) -> None:
    samples = write_samples(tmp_path / "s.jsonl", [{"task_id": "mini/double", "completion": WRONG}])
    result = invoke(
        "eval", *common(tmp_path, tasks_dir), "--samples", samples, "--out", tmp_path / "run", "--no-record"
    )
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "results.sqlite").exists() and "recorded run" not in result.output


def test_tiny_transformers_model_generates_judges_and_resumes(
    tmp_path: Path, tasks_dir: Path, tiny_model: Path
) -> None:
    out = tmp_path / "run"
    args = [
        "eval",
        *common(tmp_path, tasks_dir),
        "--model",
        tiny_model,
        "--out",
        out,
        "--n-samples",
        "2",
        "--k",
        "1,2",
        "--max-new-tokens",
        "8",
        "--limit",
        "2",
        "--prompt-style",
        "completion",
        "--seed",
        "5",
    ]
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert [(s["task_id"], s["sample_index"]) for s in samples] == [
        ("mini/double", 0),
        ("mini/double", 1),
        ("mini/negate", 0),
        ("mini/negate", 1),
    ]
    assert all(isinstance(s["completion"], str) for s in samples)
    results = json.loads((out / "results.json").read_text())
    assert {
        "pass@1",
        "pass@2",
        "reward",
        "components",
        "per_task",
        "model",
        "pack",
        "sandbox",
        "seed",
    } <= set(results)
    assert results["seed"] == 5 and results["generation"]["engine"] == "transformers"
    assert results["generation"]["prompt"]["style"] == "completion"
    assert results["generation"]["sampling"]["stop"]  # EvalPlus stops for completion prompts
    assert results["tasks"]["selected"] == 2 and results["counts"]["samples"] == 4

    # interrupted after the first task's samples (the last line torn): the rerun finishes the run
    lines = (out / "samples.jsonl").read_text().splitlines(keepends=True)
    (out / "samples.jsonl").write_text("".join(lines[:2]) + lines[2][:10])
    (out / "judged.jsonl").unlink()
    again = invoke(*args)
    assert again.exit_code == 0, again.output
    assert "generated 2 samples (2 kept from an earlier run)" in flat(again.output)
    assert (out / "samples.jsonl").read_text().startswith("".join(lines[:2]))
    assert len((out / "samples.jsonl").read_text().splitlines()) == 4

    changed = invoke(*[a if a != "5" else "6" for a in args])
    assert changed.exit_code == 2 and "sampling.seed: recorded 5, now 6" in flat(changed.output)


def test_openai_endpoint_with_a_failing_sample(tmp_path: Path, tasks_dir: Path) -> None:
    class MiniAPI(ScriptedAPI):
        def respond(self, path: str, body: dict[str, Any]):
            prompt = body["messages"][-1]["content"]
            name = re.search(r"Write (\w+)\(x\)", prompt).group(1)
            if name == "negate":
                return 503, {}, {"error": {"message": "overloaded"}}, 0
            answer = f"Here you go:\n```python\ndef {name}(x):\n{RIGHT['mini/' + name]}```\n"
            return (
                200,
                {},
                {"choices": [{"message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}]},
                0,
            )

    script = MiniAPI()
    with serve_api(script) as base:
        out = tmp_path / "run"
        result = invoke(
            "eval",
            *common(tmp_path, tasks_dir),
            "--model",
            "served",
            "--engine",
            "openai",
            "--api-base",
            base,
            "--api-key-env",
            "CODEGYM_TEST_KEY",
            "--max-retries",
            "1",
            "--out",
            out,
            "--json",
            env={"CODEGYM_TEST_KEY": "sk-from-env"},
        )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["counts"]["generation_errors"] == 1 and summary["pass@1"] == pytest.approx(2 / 3)
    assert summary["complete"] is False and summary["recorded"] is True
    assert all(h.get("Authorization") == "Bearer sk-from-env" for _, _, h in script.bodies)
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    failed = next(r for r in rows if r["task_id"] == "mini/negate")
    assert (
        "HTTP 503" in failed["generation_error"] and "failed after 2 attempts" in failed["generation_error"]
    )
    double = next(r for r in rows if r["task_id"] == "mini/double")
    assert double["solution"] == "def double(x):\n    return 2 * x\n" and double["raw"].startswith(
        "Here you go"
    )


def test_transformers_generator_directly(tiny_model: Path, tmp_path: Path) -> None:
    from codegym.rollout.generation import GenerationSetupError, SamplingParams, create_generator
    from codegym.rollout.generation.hf import TransformersSettings
    from codegym.rollout.prompts import Prompt

    generator = create_generator("transformers", TransformersSettings(model=str(tiny_model), batch_size=4))
    assert generator.default_style == "chat"  # the tiny tokenizer has a chat template
    prompts = [
        Prompt("mini/double", "completion", text="def double(x):\n", completion_format="append"),
        Prompt("mini/negate", "chat", messages=({"role": "user", "content": "Write negate(x)."},)),
        Prompt("mini/square", "completion", text="def square(x):\n    return", completion_format="append"),
    ]
    sampled = generator.complete(prompts, 3, SamplingParams(temperature=1.0, max_new_tokens=6, seed=1))
    assert [len(row) for row in sampled] == [3, 3, 3] and all(c.ok for row in sampled for c in row)
    again = generator.complete(prompts, 3, SamplingParams(temperature=1.0, max_new_tokens=6, seed=1))
    assert [[c.text for c in row] for row in again] == [[c.text for c in row] for row in sampled]  # seeded
    greedy = generator.generate(prompts[:1], 2, SamplingParams(temperature=0.0, max_new_tokens=6))
    assert greedy[0][0] == greedy[0][1]
    text = greedy[0][0]
    if len(text) > 2:  # cut at a stop sequence taken from the greedy text itself
        stop = text[1:3]
        cut = generator.generate(prompts[:1], 1, SamplingParams(max_new_tokens=6, stop=(stop,)))[0][0]
        assert stop not in cut and text.startswith(cut)
    generator.close()
    empty = tmp_path / "empty-model"
    empty.mkdir()
    with pytest.raises(GenerationSetupError, match="cannot load a tokenizer"):
        create_generator("transformers", TransformersSettings(model=str(empty)))
