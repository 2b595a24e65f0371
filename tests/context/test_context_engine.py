"""End to end: holes in the `shop` repo, budgets (estimate and a real tokenizer), caches, tasks, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from codegym.cli.context_cmd import context as context_command
from codegym.context import (
    Context,
    ContextEngine,
    RenderOptions,
    build_context,
    build_task_context,
    estimate_tokens,
    load_token_counter,
    task_hole,
)
from codegym.context.repo import RepoFiles, scan_repo
from codegym.tasks.model import Task, TestSuite

PRICING = "src/shop/pricing.py"
BLANKED_CHECKOUT = '''"""Checkout pricing (blanked)."""

import shop.tax as tax
from shop import util

from .models import Cart as C
from .sub.deep import label


def checkout(cart: C, category: str) -> str:
    """Total the cart, add tax for the category and return the formatted label."""
'''


def names(ctx: Context) -> set[str]:
    return {f"{s.path}::{s.name}" for s in ctx.symbols}


def blanked_repo(shop: Path) -> RepoFiles:
    repo = scan_repo(shop)
    repo.files[PRICING] = BLANKED_CHECKOUT.encode()
    return repo


def test_hole_gets_the_definitions_its_body_needs(shop: Path) -> None:
    repo = blanked_repo(shop)
    line = BLANKED_CHECKOUT.count("\n") + 1
    ctx = ContextEngine().query(repo, PRICING, line, 600)
    found = names(ctx)
    # the body used label (imported, now unused), tax.tax_for and util.round_money (module members)
    # and Cart.subtotal (a method of the class in the signature)
    for needed in (
        "src/shop/sub/deep.py::label",
        "src/shop/tax.py::tax_for",
        "src/shop/util.py::round_money",
        "src/shop/models.py::Cart",
        "src/shop/models.py::Cart.subtotal",
    ):
        assert needed in found, (needed, found)
    assert "# file: src/shop/sub/deep.py" in ctx.text
    assert "def label(amount: float) -> str:" in ctx.text
    assert ctx.text.rstrip().endswith(BLANKED_CHECKOUT.rstrip().rsplit("\n", 1)[1])
    assert ctx.window_lines[1] == line - 1
    assert ctx.token_count == estimate_tokens(ctx.text) <= 600
    best = max(ctx.symbols, key=lambda s: s.score)
    assert best.path != PRICING  # only other files' definitions are ranked


def test_context_of_a_method_uses_the_class_hierarchy(shop: Path) -> None:
    source = (shop / PRICING).read_text()
    line = source.splitlines().index('        """Render the invoice."""') + 2
    ctx = build_context(shop, PRICING, line, 800)
    found = names(ctx)
    assert "src/shop/base.py::Model" in found
    assert "src/shop/base.py::Model.describe" in found


@pytest.mark.parametrize("budget", [0, 1, 5, 20, 60, 150, 300, 700, 1500, 4000])
def test_budget_is_never_exceeded_with_the_estimate(shop: Path, budget: int) -> None:
    engine = ContextEngine()
    holes = ((PRICING, 24), ("src/shop/models.py", 22), ("src/shop/broken.py", 9), ("src/shop/empty.py", 1))
    for path, line in holes:
        ctx = engine.query_path(shop, path, line, budget)
        assert ctx.token_count == estimate_tokens(ctx.text) <= budget, (path, budget)


def test_budget_is_never_exceeded_with_a_real_tokenizer(shop: Path, trained_tokenizer: Path) -> None:
    count = load_token_counter(trained_tokenizer)
    assert count("def f(x):\n    return x\n") > 0
    engine = ContextEngine()
    for budget in (0, 3, 17, 64, 128, 256, 512, 1024, 3000):
        for line in (13, 20, 34, 46):
            ctx = engine.query_path(shop, PRICING, line, budget, count)
            assert ctx.token_count == count(ctx.text) <= budget, (budget, line)
            assert ctx.counter == str(trained_tokenizer)
    # the directory form loads the same tokenizer
    assert load_token_counter(trained_tokenizer.parent)("import os") == count("import os")


def test_a_hole_in_a_huge_file(tmp_path: Path) -> None:
    (tmp_path / "lib.py").write_text('def helper(x: int) -> int:\n    """Help."""\n    return x\n')
    body = "".join(f"def f{i}(a):\n    return a + {i}\n\n\n" for i in range(20_000))
    big = "from lib import helper\n\n\n" + body + 'def target(v: int) -> int:\n    """Use helper."""\n'
    (tmp_path / "big.py").write_text(big)
    line = big.count("\n") + 1
    ctx = build_context(tmp_path, "big.py", line, 300)
    assert "lib.py::helper" in names(ctx)
    assert ctx.token_count <= 300


def test_missing_file_and_bad_budget_are_errors(shop: Path) -> None:
    engine = ContextEngine()
    with pytest.raises(FileNotFoundError):
        engine.query_path(shop, "src/shop/nope.py", 1, 100)
    with pytest.raises(ValueError):
        engine.query_path(shop, PRICING, 1, -1)
    with pytest.raises(ValueError):
        load_token_counter(shop / "no-such-tokenizer")
    bad = shop / "bad-tokenizer.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError):
        load_token_counter(bad)


def test_caches_make_the_second_query_ranking_only(shop: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    engine = ContextEngine(cache_dir)
    first = engine.query_path(shop, PRICING, 24, 500)
    parsed = engine.stats["parsed"]
    assert parsed == len(set(scan_repo(shop).files.values()))  # one parse per distinct content
    again = engine.query_path(shop, PRICING, 24, 500)
    assert engine.stats["parsed"] == parsed  # same repository state: nothing parsed again
    assert again.text == first.text
    engine.close()

    fresh = ContextEngine(cache_dir)  # a new process would start like this
    assert fresh.query_path(shop, PRICING, 24, 500).text == first.text
    assert fresh.stats["parsed"] == 0 and fresh.stats["disk_hits"] == parsed

    tax = shop / "src/shop/tax.py"
    tax.write_text(tax.read_text() + "\n\ndef vat() -> float:\n    return 0.2\n")
    fresh.query_path(shop, PRICING, 24, 500)
    assert fresh.stats["parsed"] == 1  # only the edited file
    fresh.close()


def test_window_only_and_no_window(shop: Path) -> None:
    engine = ContextEngine()
    no_window = engine.query_path(shop, PRICING, 24, 400, options=RenderOptions(include_window=False))
    assert "(current file" not in no_window.text and no_window.window_lines == (0, 0)
    with_window = engine.query_path(shop, PRICING, 24, 400)
    assert "# file: src/shop/pricing.py (current file, up to line 23)" in with_window.text


def make_task(reference_body: str) -> Task:
    prefix = BLANKED_CHECKOUT
    files = {p.relative_to(FIXTURE).as_posix(): p.read_text() for p in FIXTURE.rglob("*.py")}
    files[PRICING] = prefix + reference_body  # the repo's own copy holds the answer
    files["README.md"] = "not python"
    return Task(
        pack="repo",
        name="checkout",
        prompt="Implement checkout.",
        solution_path=PRICING,
        reference_solution=prefix + reference_body,
        hidden_tests=TestSuite({"test_hidden.py": "def test_x():\n    assert True\n"}),
        prefix=prefix,
        entry_point="checkout",
        repo_files=files,
    )


FIXTURE = Path(__file__).resolve().parent / "fixtures" / "shop"


def test_task_context_uses_the_starter_and_hides_the_solution() -> None:
    secret = "    SECRET_MARKER = cart.subtotal()\n    return label(util.round_money(SECRET_MARKER))\n"
    task = make_task(secret)
    files, line = task_hole(task)
    assert files[PRICING] == BLANKED_CHECKOUT.encode() and "README.md" not in files
    assert line == BLANKED_CHECKOUT.count("\n") + 1
    engine = ContextEngine()
    ctx = build_task_context(task, 500, engine=engine)
    assert "SECRET_MARKER" not in ctx.text
    assert "src/shop/sub/deep.py::label" in names(ctx)
    assert "(current file" not in ctx.text  # the prompt carries the starter itself
    assert ctx.token_count <= 500
    windowed = build_task_context(task, 500, engine=engine, include_window=True)
    assert "def checkout(cart: C, category: str) -> str:" in windowed.text


def cli_app() -> typer.Typer:
    app = typer.Typer()
    app.command()(context_command)
    return app


def test_cli_text_json_and_errors(shop: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    args = [str(shop), "--file", PRICING, "--line", "24", "--budget", "300"]
    args += ["--cache-dir", str(tmp_path / "c")]
    text = runner.invoke(cli_app(), args)
    assert text.exit_code == 0, text.output
    assert "# file: " in text.output
    as_json = runner.invoke(cli_app(), [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.output)
    assert data["token_count"] <= 300 and data["budget"] == 300
    assert data["symbols"]
    assert {"path", "kind", "name", "score", "rendered", "line"} <= set(data["symbols"][0])
    assert data["text"].strip() == text.output.strip()
    missing = runner.invoke(cli_app(), [str(shop), "--file", "nope.py", "--line", "1", "--no-cache"])
    assert missing.exit_code == 2
