"""The `codegym` CLI: help for every command, judge on the bundled sample, tasks, sandbox info."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from codegym.cli.app import app
from tests.conftest import REPO_ROOT

runner = CliRunner()


def all_command_paths() -> list[list[str]]:
    paths: list[list[str]] = [[]]

    def walk(command, prefix: list[str]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            paths.append([*prefix, name])
            walk(sub, [*prefix, name])

    walk(get_command(app), [])
    return paths


@pytest.mark.parametrize("path", all_command_paths(), ids=lambda p: " ".join(p) or "codegym")
def test_every_command_has_help(path: list[str]) -> None:
    result = runner.invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


def test_expected_commands_exist() -> None:
    names = {" ".join(p) for p in all_command_paths()}
    assert {"judge", "tasks list", "tasks show", "tasks check", "sandbox info"} <= names


SAMPLES = REPO_ROOT / "tasks" / "_samples" / "humaneval_mixed.jsonl"


@pytest.fixture(scope="module")
def judged_sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, list[dict]]:
    """`codegym judge` on the bundled sample file (the README's first example), run once."""
    out = tmp_path_factory.mktemp("judge") / "judged.jsonl"
    result = runner.invoke(
        app, ["judge", str(SAMPLES), "--pack", "humaneval", "--out", str(out), "--cache", "memory"]
    )
    assert result.exit_code == 0, result.output
    return result, [json.loads(line) for line in out.read_text().splitlines()]


def test_judge_bundled_sample(judged_sample) -> None:
    result, rows = judged_sample
    samples = SAMPLES
    assert len(rows) == sum(1 for line in samples.read_text().splitlines() if line.strip())
    by_note = {r.get("note"): r for r in rows}
    assert by_note["canonical"]["status"] == "passed"
    assert by_note["syntax error"]["status"] == "error"
    assert by_note["infinite loop"]["status"] == "timeout"
    assert by_note["memory bomb"]["status"] == "memory"
    assert by_note["forges output and exits early"]["status"] == "error"
    assert by_note["unknown task"]["status"] == "invalid_input"
    assert "rows judged" in result.output


def test_judge_unknown_pack_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["judge", "x.jsonl", "--pack", "nope", "--out", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2
    assert "unknown task pack 'nope'" in result.output and "humaneval" in result.output


def test_unknown_backend_lists_valid_names() -> None:
    result = runner.invoke(app, ["sandbox", "info", "--backend", "vm"])
    assert result.exit_code == 2
    assert "unknown sandbox backend 'vm'" in result.output and "docker, local" in result.output


def test_tasks_list_and_show() -> None:
    listed = runner.invoke(app, ["tasks", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    packs = {p["name"]: p for p in json.loads(listed.output)}
    assert packs["humaneval"]["tasks"] == 164
    shown = runner.invoke(app, ["tasks", "show", "humaneval", "HumanEval/0", "--json"])
    details = json.loads(shown.output)
    assert details["entry_point"] == "has_close_elements" and "check(" not in shown.output
    missing = runner.invoke(app, ["tasks", "show", "humaneval", "HumanEval/X"])
    assert missing.exit_code == 2 and "unknown task" in missing.output


def test_tasks_check_reports_a_broken_task(tmp_path: Path) -> None:
    from tests.helpers import write_pack

    write_pack(tmp_path, "broken", tasks={"double": {"reference.py": "def double(x):\n    return 3 * x\n"}})
    result = runner.invoke(app, ["tasks", "check", "broken", "--tasks-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "reference/hidden: the reference solution does not pass" in result.output
    good = runner.invoke(
        app, ["tasks", "check", "humaneval", "--task", "HumanEval/0", "--task", "HumanEval/1"]
    )
    assert good.exit_code == 0 and "2 tasks checked, ok" in good.output


def test_sandbox_info_json() -> None:
    result = runner.invoke(app, ["sandbox", "info", "--json", "--workers", "1"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.output)
    assert info["backend"] == "local" and len(info["pool"]) == 1
    assert info["pool"][0]["pid_namespace"].startswith("pid:[")


def test_judge_rows_carry_reward_and_components(judged_sample) -> None:
    result, rows = judged_sample
    judged = [r for r in rows if r["status"] != "invalid_input"]
    for row in judged:
        assert isinstance(row["reward"], float)
        assert set(row["components"]) >= {"tests", "coverage", "style", "complexity", "efficiency"}
    canonical = next(r for r in rows if r.get("note") == "canonical")
    forged = next(r for r in rows if r.get("note") == "forges output and exits early")
    assert canonical["reward"] > 0.9 and forged["reward"] < 0 and "early_exit" in forged["hacks"]
    assert "hacking detectors fired" in result.output


def test_judge_without_reward(tmp_path: Path) -> None:
    out = tmp_path / "judged.jsonl"
    samples = tmp_path / "s.jsonl"
    samples.write_text(
        json.dumps({"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"}) + "\n"
    )
    result = runner.invoke(
        app, ["judge", str(samples), "--pack", "humaneval", "--out", str(out), "--no-reward"]
    )
    assert result.exit_code == 0, result.output
    row = json.loads(out.read_text())
    assert row["passed"] and "reward" not in row


def test_reward_command_table_and_json(tmp_path: Path) -> None:
    hack = tmp_path / "hack.py"
    hack.write_text(
        "class Anything:\n    def __eq__(self, other):\n        return True\n\n\n"
        "def truncate_number(number):\n    print('all tests passed')\n    return Anything()\n"
    )
    table = runner.invoke(
        app, ["reward", str(hack), "--pack", "humaneval", "--task", "HumanEval/2", "--cache", "memory"]
    )
    assert table.exit_code == 0, table.output
    assert "always_equal" in table.output and "total" in table.output
    completion = tmp_path / "body.py"
    completion.write_text("    return number % 1.0\n")
    as_json = runner.invoke(
        app,
        [
            "reward",
            str(completion),
            "--completion",
            "--pack",
            "humaneval",
            "--task",
            "HumanEval/2",
            "--cache",
            "off",
            "--json",
        ],
    )
    data = json.loads(as_json.output)
    assert data["passed"] is True and data["flags"] == [] and data["total"] == pytest.approx(1.0, abs=0.05)
    assert set(data["components"]) == {"tests", "coverage", "style", "complexity", "efficiency"}


def test_rows_that_cannot_be_sent_are_invalid_and_the_batch_goes_on(tmp_path: Path) -> None:
    out, samples = tmp_path / "judged.jsonl", tmp_path / "s.jsonl"
    good = {"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"}
    surrogate = '{"task_id": "HumanEval/2", "completion": "    return 0  # \\ud800\\n"}'
    huge = {"task_id": "HumanEval/2", "solution": "x = 1\n" * 400_000}  # 2.4 MB
    samples.write_text("\n".join([json.dumps(good), surrogate, json.dumps(huge), json.dumps(good)]) + "\n")
    result = runner.invoke(
        app, ["judge", str(samples), "--pack", "humaneval", "--out", str(out), "--no-reward"]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["status"] for r in rows] == ["passed", "invalid_input", "invalid_input", "passed"]
    assert "lone surrogate" in rows[1]["error"] and "the limit is 1,000,000" in rows[2]["error"]


def test_judge_exits_1_when_nothing_valid_was_judged(tmp_path: Path) -> None:
    out, samples = tmp_path / "judged.jsonl", tmp_path / "s.jsonl"
    samples.write_text("")
    empty = runner.invoke(
        app, ["judge", str(samples), "--pack", "humaneval", "--out", str(out), "--no-reward"]
    )
    assert empty.exit_code == 1 and "is empty" in empty.output
    samples.write_text('{"task_id": "HumanEval/99999", "completion": "x"}\nnot json\n')
    invalid = runner.invoke(
        app,
        ["judge", str(samples), "--pack", "humaneval", "--out", str(tmp_path / "o2.jsonl"), "--no-reward"],
    )
    assert invalid.exit_code == 1 and "no valid row" in invalid.output


def test_a_broken_pack_breaks_only_the_commands_that_use_it(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "pack.yaml").write_text("name: bad\n")  # no version
    listed = runner.invoke(app, ["tasks", "list", "--tasks-dir", str(tmp_path)])
    assert listed.exit_code == 1 and "broken pack bad" in listed.output and "humaneval" in listed.output
    assert "version" in listed.output
    out, samples = tmp_path / "judged.jsonl", tmp_path / "s.jsonl"
    samples.write_text(
        json.dumps({"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"}) + "\n"
    )
    judged = runner.invoke(
        app,
        [
            "judge",
            str(samples),
            "--pack",
            "humaneval",
            "--out",
            str(out),
            "--no-reward",
            "--tasks-dir",
            str(tmp_path),
        ],
    )
    assert judged.exit_code == 0, judged.output
    used = runner.invoke(app, ["tasks", "show", "bad", "--tasks-dir", str(tmp_path)])
    assert used.exit_code == 2 and "version" in used.output


def test_tasks_import_writes_a_pack_that_judges_and_checks(tmp_path: Path) -> None:
    source = tmp_path / "apps.jsonl"
    rows = [
        {
            "problem_id": 7,
            "question": "Print the sum of two integers.",
            "input_output": json.dumps({"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}),
            "solutions": json.dumps(["a, b = map(int, input().split())\nprint(a + b)\n"]),
            "starter_code": "",
            "difficulty": "introductory",
        },
        {
            "problem_id": 8,
            "question": "No tests.",
            "input_output": json.dumps({"inputs": [], "outputs": []}),
            "solutions": "[]",
            "starter_code": "",
            "difficulty": "introductory",
        },
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    packs = tmp_path / "packs"
    imported = runner.invoke(
        app, ["tasks", "import", "apps", str(source), "--name", "mini", "--out", str(packs)]
    )
    assert imported.exit_code == 0, imported.output
    assert "1 tasks from 2 rows" in imported.output and "skipped 1" in imported.output
    assert (packs / "mini" / "skipped.jsonl").read_text().count("\n") == 1
    checked = runner.invoke(app, ["tasks", "check", "mini", "--tasks-dir", str(packs), "--workers", "1"])
    assert checked.exit_code == 0, checked.output
    samples, out = tmp_path / "s.jsonl", tmp_path / "o.jsonl"
    samples.write_text(json.dumps({"task_id": "7", "solution": "print(3)\n"}) + "\n")
    judged = runner.invoke(
        app,
        [
            "judge",
            str(samples),
            "--pack",
            "mini",
            "--tasks-dir",
            str(packs),
            "--out",
            str(out),
            "--no-reward",
        ],
    )
    assert judged.exit_code == 0, judged.output
    row = json.loads(out.read_text())
    assert row["status"] == "failed" and [t["outcome"] for t in row["test_results"]] == ["passed", "failed"]
    assert row["test_results"][1]["expected"] == "7\n" and row["test_results"][1]["actual"] == "3\n"
    # a folder the import did not write is never replaced
    (packs / "mine").mkdir()
    (packs / "mine" / "notes.txt").write_text("keep")
    refused = runner.invoke(
        app, ["tasks", "import", "apps", str(source), "--name", "mine", "--out", str(packs)]
    )
    assert refused.exit_code == 2 and "not written by `codegym tasks import`" in refused.output
    assert (packs / "mine" / "notes.txt").read_text() == "keep"
    again = runner.invoke(
        app, ["tasks", "import", "apps", str(source), "--name", "mini", "--out", str(packs)]
    )
    assert again.exit_code == 0, again.output


def test_judge_never_overwrites_a_file_it_did_not_write(tmp_path: Path) -> None:
    import fcntl
    import os

    samples = tmp_path / "s.jsonl"
    samples.write_text(
        json.dumps({"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"}) + "\n"
    )
    notes, other = tmp_path / "notes.txt", tmp_path / "other.jsonl"
    notes.write_text("my notes\n")
    read_only = tmp_path / "ro"
    read_only.mkdir()
    read_only.chmod(0o555)
    if os.access(read_only, os.W_OK):  # root ignores permission bits; /proc/sys refuses even root
        read_only = Path("/proc/sys")
    other.write_text('{"id": 1, "text": "unrelated"}\n')
    before = samples.read_text()
    for out, expected in (
        (notes, "not a `codegym judge` output"),
        (other, "not a `codegym judge` output"),
        (samples, "is the samples file itself"),
        (tmp_path, "is a folder"),
        (notes / "x.jsonl", "is a file, not a folder"),
        (read_only / "x.jsonl", "is not writable"),
    ):
        result = runner.invoke(
            app, ["judge", str(samples), "--pack", "humaneval", "--out", str(out), "--no-reward"]
        )
        assert result.exit_code == 2 and expected in result.output, (out, result.output)
    assert notes.read_text() == "my notes\n" and other.read_text().startswith('{"id": 1')
    assert samples.read_text() == before
    out = tmp_path / "judged.jsonl"
    with open(tmp_path / "judged.jsonl.lock", "w") as lock:  # another judge holds this --out
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write("4242")
        lock.flush()
        busy = runner.invoke(
            app, ["judge", str(samples), "--pack", "humaneval", "--out", str(out), "--no-reward"]
        )
        assert busy.exit_code == 2 and "another codegym judge (pid 4242)" in busy.output
    done = runner.invoke(
        app, ["judge", str(samples), "--pack", "humaneval", "--out", str(out), "--no-reward"]
    )
    assert done.exit_code == 0 and json.loads(out.read_text())["passed"]
    assert not (tmp_path / "judged.jsonl.lock").exists()
    again = runner.invoke(
        app, ["judge", str(samples), "--pack", "humaneval", "--out", str(out), "--no-reward", "--no-resume"]
    )
    assert again.exit_code == 0  # its own output may be redone


def test_a_bug_is_reported_with_its_traceback_file_and_exit_4(monkeypatch, capsys, tmp_path: Path) -> None:
    import sys

    from codegym.cli import app as app_module
    from codegym.cli import tasks_cmd

    def broken(_tasks_dir):
        raise TypeError("an internal mistake")

    monkeypatch.setattr(tasks_cmd, "registry", broken)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "argv", ["codegym", "tasks", "list"])
    with pytest.raises(SystemExit) as ended:
        app_module.main()
    assert ended.value.code == 4
    err = capsys.readouterr().err
    assert "internal error (a bug in codegym): TypeError: an internal mistake" in err
    report = Path(err.split("the traceback is in ")[1].split(";")[0])
    assert report.is_file() and "Traceback" in report.read_text() and "broken" in report.read_text()
    monkeypatch.setattr(sys, "argv", ["codegym", "--debug", "tasks", "list"])
    with pytest.raises(SystemExit) as ended:
        app_module.main()
    assert ended.value.code == 4 and "Traceback (most recent call last)" in capsys.readouterr().err


def test_a_user_error_is_one_line_and_exit_2(monkeypatch, capsys) -> None:
    import sys

    from codegym.cli import app as app_module

    monkeypatch.setattr(sys, "argv", ["codegym", "tasks", "show", "no_such_pack_[x]"])
    with pytest.raises(SystemExit) as ended:
        app_module.main()
    assert ended.value.code == 2
    err = capsys.readouterr()
    lines = [line for line in (err.out + err.err).splitlines() if line.strip()]
    assert len(lines) == 1 and "no_such_pack_[x]" in lines[0], lines


def test_the_cli_imports_the_heavy_parts_only_when_a_command_needs_them() -> None:
    import subprocess
    import sys

    probe = (
        "import sys\nfrom codegym.cli import app\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(('codegym.', 'torch', 'transformers')))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    ).stdout.split()
    heavy = [
        m
        for m in loaded
        if m.startswith(("codegym.sandbox", "codegym.tasks", "codegym.reward", "torch", "transformers"))
    ]
    assert heavy == [], heavy


def eval_of(samples: Path, out: Path) -> list[str]:
    """`codegym eval` of a samples file for the humaneval pack into `out`."""
    return ["eval", "--pack", "humaneval", "--samples", str(samples), "--out", str(out)]


def test_ctrl_c_says_how_to_resume(monkeypatch, tmp_path: Path) -> None:
    import codegym.eval.api
    import codegym.eval.judge

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"task_id": "HumanEval/2", "completion": "    return 0.0\n"}) + "\n")
    monkeypatch.setattr(codegym.eval.judge, "judge_samples_file", interrupted)
    judged = runner.invoke(
        app, ["judge", str(samples), "--pack", "humaneval", "--out", str(tmp_path / "o.jsonl"), "--no-reward"]
    )
    assert judged.exit_code == 130 and "run the same command again to resume" in judged.output
    monkeypatch.setattr(codegym.eval.api, "evaluate", interrupted)
    evaluated = runner.invoke(app, [*eval_of(samples, tmp_path / "e"), "--no-record"])
    assert evaluated.exit_code == 130 and "rerun the same command" in evaluated.output


def test_tasks_check_reports_every_broken_pack_and_task(tmp_path: Path) -> None:
    from tests.helpers import write_pack

    write_pack(
        tmp_path,
        "wrong",
        tasks={
            "double": {"reference.py": "def double(x):\n    return 3 * x\n"},
            "half": {"reference.py": "def double(x):\n    return x\n"},
        },
    )
    (tmp_path / "unreadable").mkdir()
    (tmp_path / "unreadable" / "pack.yaml").write_text("name: [unclosed\n")
    (tmp_path / "badlimits").mkdir()
    (tmp_path / "badlimits" / "pack.yaml").write_text(
        "name: badlimits\nversion: '1'\ndefaults:\n  limits:\n    timeout_s: fast\n"
    )
    checked = runner.invoke(app, ["tasks", "check", "wrong", "--tasks-dir", str(tmp_path), "--workers", "1"])
    assert checked.exit_code == 1 and "wrong/double" in checked.output and "wrong/half" in checked.output
    for name in ("unreadable", "badlimits"):
        shown = runner.invoke(app, ["tasks", "show", name, "--tasks-dir", str(tmp_path)])
        assert shown.exit_code == 2 and "Traceback" not in shown.output and "TypeError" not in shown.output
        assert len([line for line in shown.output.splitlines() if line.strip()]) == 1, shown.output
    unreadable = runner.invoke(app, ["tasks", "show", "unreadable", "--tasks-dir", str(tmp_path)])
    assert "expected ',' or ']'" in unreadable.output  # brackets as written, not read as rich markup
    limits = runner.invoke(app, ["tasks", "show", "badlimits", "--tasks-dir", str(tmp_path)])
    assert "timeout_s" in limits.output
    everything = runner.invoke(app, ["tasks", "list", "--tasks-dir", str(tmp_path)])
    assert everything.exit_code == 1
    assert "broken pack unreadable" in everything.output and "broken pack badlimits" in everything.output


def test_library_errors_reach_the_user_with_flag_names(tmp_path: Path) -> None:
    """The library names what to change in its own terms (`ks`, `out_path`, `filters`); each command
    prints the flag that changes it."""
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"task_id": "HumanEval/2", "completion": "    return 0.0\n"}) + "\n")
    for args, expected in (
        (
            [*eval_of(samples, tmp_path / "e"), "--k", "x"],
            "--k: 'x' is not an integer (use e.g. 1,10)",
        ),
        (
            ["judge", str(samples), "--pack", "humaneval", "--out", str(samples), "--no-reward"],
            f"--out {samples} is the samples file itself; choose another --out",
        ),
        (
            ["tasks", "import", "mbpp", str(samples), "--name", "a/b", "--out", str(tmp_path / "p")],
            "--name must be a folder name without '/', got 'a/b'",
        ),
        (
            ["tasks", "import", "mbpp", str(samples), "--name", "m", "--out", str(tmp_path), "--filter", "x"],
            "--filter 'x': write FIELD OP VALUE",
        ),
    ):
        result = runner.invoke(app, args)
        text = " ".join(result.output.split())
        assert result.exit_code == 2 and expected in text, (args, result.output)
