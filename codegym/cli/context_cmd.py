"""`codegym context`: cross-file context for a hole in a repository (see codegym.context)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def context(
    repo: Annotated[Path, typer.Argument(help="Repository root.", exists=True, file_okay=False)],
    file: Annotated[str, typer.Option("--file", "-f", help="File holding the hole, relative to REPO.")],
    line: Annotated[int, typer.Option("--line", "-l", min=1, help="1-based line where the new code starts.")],
    budget: Annotated[int, typer.Option("--budget", "-b", min=0, help="Token budget of the context.")] = 1024,
    tokenizer: Annotated[
        str | None,
        typer.Option(help="Local tokenizer (tokenizer.json or its directory); default: the estimate."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON: text, chosen symbols, scores, token count.")
    ] = False,
    cache_dir: Annotated[
        Path | None,
        typer.Option(help="Parse cache directory (default: ~/.cache/codegym/context)."),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the on-disk parse cache.")] = False,
    no_window: Annotated[bool, typer.Option("--no-window", help="Omit the current file's lines.")] = False,
) -> None:
    """Print the budgeted cross-file context for the hole at FILE:LINE of REPO."""
    from codegym.cli.common import print_json, user_errors
    from codegym.context import RenderOptions, build_context, load_token_counter
    from codegym.context.cache import default_cache_dir

    with user_errors():
        counter = load_token_counter(tokenizer) if tokenizer else None
        cache = None if no_cache else (cache_dir or default_cache_dir())
        options = RenderOptions(include_window=not no_window)
        ctx = build_context(repo, file, line, budget, counter, cache_dir=cache, options=options)
    if as_json:
        print_json(ctx.to_dict())
    else:
        typer.echo(ctx.text)
