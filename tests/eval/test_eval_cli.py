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
from tests.eval.helpers import RIGHT, WRONG, ScriptedAPI, serve_api, task_files
from tests.helpers import write_pack

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


# -- issue 16: outputs checked before work, one writer, trained prompt style, progress, failed tests --
def test_out_is_checked_before_work_and_never_overwrites(tmp_path: Path, tasks_dir: Path) -> None:
    import fcntl
    import os

    samples = write_samples(tmp_path / "s.jsonl", [{"task_id": "mini/double", "completion": WRONG}])
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "draft.py").write_text("keep")
    read_only = tmp_path / "ro"
    read_only.mkdir()
    read_only.chmod(0o555)
    if os.access(read_only, os.W_OK):  # root ignores permission bits; /proc/sys refuses even root
        read_only = Path("/proc/sys")
    cases = [
        (notes, "is a file; give a folder"),
        (notes / "run", "notes.txt is a file, not a folder"),
        (read_only / "run", "is not writable"),
        (mine, "holds files `codegym eval` did not write (draft.py)"),
    ]
    for out, message in cases:
        result = invoke("eval", *common(tmp_path, tasks_dir), "--samples", samples, "--out", out)
        assert result.exit_code == 2, (out, result.output)
        assert message in flat(result.output) and "Traceback" not in result.output, (out, result.output)
    assert notes.read_text() == "my notes\n" and sorted(p.name for p in mine.iterdir()) == ["draft.py"]
    assert not (read_only / "run").exists()

    out = tmp_path / "run"
    out.mkdir()
    with open(out / "eval.lock", "w") as lock:  # another eval is writing this --out
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write("4242")
        lock.flush()
        busy = invoke("eval", *common(tmp_path, tasks_dir), "--samples", samples, "--out", out)
        assert busy.exit_code == 2 and "another codegym eval (pid 4242)" in flat(busy.output), busy.output
    assert not (out / "run.json").exists()
    done = invoke("eval", *common(tmp_path, tasks_dir), "--samples", samples, "--out", out)
    assert done.exit_code == 0, done.output
    assert (out / "results.json").exists() and not (out / "eval.lock").exists()
    again = invoke("eval", *common(tmp_path, tasks_dir), "--samples", samples, "--out", out)
    assert again.exit_code == 0, again.output  # its own folder is resumed


def test_a_model_is_prompted_as_it_was_trained(tmp_path: Path, tasks_dir: Path, tiny_model: Path) -> None:
    import shutil

    from codegym.eval.model_info import MODEL_INFO_FILE, write_model_info
    from codegym.rollout.prompts import PromptConfig

    model = tmp_path / "final-model"
    shutil.copytree(tiny_model, model)
    # what training writes next to the final weights (codegym.train.run)
    write_model_info(model, PromptConfig(style="completion", include_visible_tests=False), algorithm="grpo")
    args = [*common(tmp_path, tasks_dir), "--model", model, "--limit", "1", "--max-new-tokens", "4"]
    result = invoke("eval", *args, "--out", tmp_path / "auto")
    assert result.exit_code == 0, result.output
    prompt = json.loads((tmp_path / "auto" / "results.json").read_text())["generation"]["prompt"]
    assert prompt["style"] == "completion" and prompt["include_visible_tests"] is False
    assert f"as trained, from {model / MODEL_INFO_FILE}" in flat(result.output)
    chat = invoke("eval", *args, "--out", tmp_path / "chat", "--prompt-style", "chat")
    assert chat.exit_code == 0, chat.output  # an explicit style wins
    assert (
        json.loads((tmp_path / "chat" / "results.json").read_text())["generation"]["prompt"]["style"]
        == "chat"
    )
    (model / MODEL_INFO_FILE).write_text("{not json")
    broken = invoke("eval", *args, "--out", tmp_path / "broken")
    assert broken.exit_code == 2 and f"{MODEL_INFO_FILE}: field 'prompt' is unreadable" in flat(broken.output)


def test_progress_is_logged_when_not_on_a_terminal(tmp_path: Path, tasks_dir: Path) -> None:
    from codegym.eval.progress import PeriodicLog

    samples = write_samples(
        tmp_path / "s.jsonl", [{"task_id": t, "completion": WRONG} for t in ("mini/double", "mini/negate")]
    )
    result = invoke("eval", *common(tmp_path, tasks_dir), "--samples", samples, "--out", tmp_path / "run")
    assert result.exit_code == 0, result.output
    assert "judging: 2 rows to go" in result.output and "judging: 2/2 rows done in" in result.output

    lines: list[str] = []
    now = [0.0]
    log = PeriodicLog(lines.append, interval_s=30, clock=lambda: now[0])
    log.start("generating", "samples", 100)
    for _ in range(40):  # a sample every 2 s: a line every 30 s, not one per sample
        now[0] += 2
        log.advance()
    assert lines == [
        "generating: 100 samples to go",
        "generating: 15/100 samples (15%), 0.5/s, 30s elapsed, about 2m50s left",
        "generating: 30/100 samples (30%), 0.5/s, 1m00s elapsed, about 2m20s left",
    ]


def test_bad_or_unreachable_cache_is_one_line(tmp_path: Path, tasks_dir: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    samples = write_samples(tmp_path / "s.jsonl", [{"task_id": "mini/double", "completion": WRONG}])
    base = [a for a in common(tmp_path, tasks_dir) if a not in ("--cache", "memory")]
    for cache, message in (
        ("bogus://x", "--cache: unknown cache 'bogus://x'; use default, off, memory, a .sqlite file path"),
        ("redis://127.0.0.1:1/0", "--cache: cannot reach the Redis cache at redis://127.0.0.1:1/0"),
    ):
        result = invoke("eval", *base, "--cache", cache, "--samples", samples, "--out", tmp_path / "run")
        assert result.exit_code == 2, (cache, result.output)
        assert message in flat(result.output) and "Traceback" not in result.output, (cache, result.output)
        judge_args = ["--pack", "mini", "--tasks-dir", tasks_dir, "--out", tmp_path / "j.jsonl"]
        judged = invoke("judge", samples, *judge_args, "--cache", cache)
        assert judged.exit_code == 2 and message in flat(judged.output), (cache, judged.output)
    yard = invoke(
        "eval",
        *common(tmp_path, tasks_dir),
        "--yardsticks",
        "bogus://y",
        "--samples",
        samples,
        "--out",
        tmp_path / "run",
    )
    assert yard.exit_code == 2 and "--yardsticks: unknown store 'bogus://y'" in flat(yard.output)
    assert not (tmp_path / "bogus:").exists() and not (tmp_path / "run").exists()


def test_failed_samples_name_their_failed_tests(tmp_path: Path, tasks_dir: Path) -> None:
    samples = write_samples(
        tmp_path / "s.jsonl",
        [
            {"task_id": "mini/double", "completion": "    return 4\n"},  # passes test_0 only
            {"task_id": "mini/negate", "completion": RIGHT["mini/negate"]},
            {"task_id": "mini/square", "completion": RIGHT["mini/square"]},
        ],
    )
    base = [a for a in common(tmp_path, tasks_dir) if a not in ("--cache", "memory")]
    db = ["--db", f"sqlite:///{tmp_path / 'results.sqlite'}"]
    shared = tmp_path / "cache.sqlite"
    for out in ("first", "cached"):  # the second run's verdicts are cache hits: still named
        result = invoke("eval", *base, "--cache", shared, "--samples", samples, "--out", tmp_path / out)
        assert result.exit_code == 0, result.output
        run_id = json.loads((tmp_path / out / "results.json").read_text())["run_id"]
        details = json.loads(invoke("leaderboard", "show", run_id, *db, "--json").stdout)
        (failed,) = details["failed_samples"]
        assert failed["task_id"] == "mini/double" and failed["status"] == "failed"
        assert [t["id"] for t in failed["failed_tests"]] == ["test_hidden.py::test_1"]
        assert failed["failed_tests"][0]["outcome"] == "failed"
    shown = invoke("leaderboard", "show", run_id[:8], *db)
    assert shown.exit_code == 0, shown.output
    assert (
        "mini/double row 0: failed, tests 1/2" in shown.output
        and "test_hidden.py::test_1 failed" in shown.output
    )
    exported = invoke("leaderboard", "export", *db, "--html", tmp_path / "site")
    assert exported.exit_code == 0, exported.output
    page = (tmp_path / "site" / "index.html").read_text()
    assert '"failed_tests":[{"id":"test_hidden.py::test_1","outcome":"failed"' in page
