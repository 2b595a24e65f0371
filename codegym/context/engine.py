"""ContextEngine: parse (through the caches), build the graph, rank, render. The entry points live here.

An engine keeps parsed files in memory by content hash and the last few repository graphs by the
set of (path, hash) pairs, so repeated queries on an unchanged repository cost only ranking and
rendering; the optional SQLite cache makes a new process skip parsing too.

Repositories of `lazy_min_bytes` of sources or more get a lazy graph per queried file (see
`codegym.context.lazy`): only that file's neighbourhood is parsed and resolved before the answer.
"""

from __future__ import annotations

import gc
import hashlib
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from codegym.context.cache import ParseCache, content_hash
from codegym.context.graph import RepoGraph
from codegym.context.lazy import DEFAULT_MAX_LINES, line_count, most_used, neighbourhood, sizes, words_of
from codegym.context.model import Context, ParsedFile
from codegym.context.parser import LIGHT_PREFIX, PythonParser
from codegym.context.rank import RankWeights, locate_hole, rank
from codegym.context.render import (
    RenderOptions,
    _Item,
    assemble,
    choose,
    lower_tier,
    render_item,
    symbols_of,
    window,
)
from codegym.context.repo import DEFAULT_MAX_FILE_BYTES, RepoFiles, scan_repo
from codegym.context.tokens import TokenCounter, counter_name, estimate_tokens

if TYPE_CHECKING:
    from codegym.tasks.model import Task

_GRAPHS_KEPT = 4
_PARSED_KEPT = 20_000  # parsed files kept in memory by content hash
_WORDS_KEPT = 4_000  # word sets (lazy graphs only: large repositories), ~25 KB each
# bytes of sources whose content hash is remembered by the object's identity (the objects are kept)
_HASHED_BYTES_KEPT = 64_000_000
_TOP_UP_ROUNDS = 3
# ~300k lines: below, a full build costs under ~4 s of CPU and gives the exact repository-wide tables
LAZY_MIN_BYTES = 12_000_000


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while parsing and resolving: they allocate millions of
    acyclic tuples, and the collections this triggers cost 12-23% of a first query (sympy, networkx).
    Whatever cycles appear meanwhile are collected once it is back on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class ContextEngine:
    """Reusable context builder. `cache_dir=None` keeps the parse cache in memory only."""

    def __init__(
        self,
        cache_dir: Path | None = None,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        weights: RankWeights | None = None,
        lazy_min_bytes: int | None = LAZY_MIN_BYTES,
        neighbourhood_lines: int = DEFAULT_MAX_LINES,
    ) -> None:
        self._disk = ParseCache(cache_dir)
        self._parser: PythonParser | None = None
        self._parsed: OrderedDict[str, ParsedFile] = OrderedDict()
        self._words: OrderedDict[str, tuple[frozenset[bytes], int]] = OrderedDict()
        self._hashes: OrderedDict[int, tuple[bytes, str]] = OrderedDict()
        self._hashed_bytes = 0
        self._unsaved: list[ParsedFile] = []
        self._graphs: OrderedDict[str, tuple[RepoGraph, dict[str, str]]] = OrderedDict()
        self._base: tuple[RepoGraph, dict[str, str]] | None = None
        self.max_file_bytes = max_file_bytes
        self.weights = weights or RankWeights()
        # None: always a full graph; 0: always lazy (tests, and measuring what laziness changes)
        self.lazy_min_bytes = lazy_min_bytes
        self.neighbourhood_lines = neighbourhood_lines
        self.stats = {
            "parsed": 0,
            "disk_hits": 0,
            "memory_hits": 0,
            "full_builds": 0,
            "incremental_builds": 0,
            "lazy_builds": 0,
            "recovered": 0,  # incremental lazy updates whose neighbourhood changed
        }

    # --- indexing ----------------------------------------------------------------------------------
    def graph(self, repo: RepoFiles, focus: str | None = None) -> RepoGraph:
        """The graph of a repository state: from memory when the same files were indexed before,
        patched from a kept graph when only one file's content differs (`RepoGraph.updated`), else
        built from parses (the caches make unchanged files free).

        With a `focus` file and a repository of `lazy_min_bytes` or more, a lazy graph covering that
        file's neighbourhood; otherwise the full graph.
        """
        with _gc_paused():
            return self._graph(repo, focus)

    def _graph(self, repo: RepoFiles, focus: str | None) -> RepoGraph:
        hashes = {path: self._hash(data) for path, data in repo.files.items()}
        key = hashlib.blake2b(
            repr((repo.root_name, sorted(hashes.items()))).encode(), digest_size=16
        ).hexdigest()
        if focus is not None and self.lazy_min_bytes is not None and sizes(repo.files) >= self.lazy_min_bytes:
            return self._lazy(repo, hashes, key, focus)
        cached = self._graphs.get(key)
        if cached is not None:
            self._graphs.move_to_end(key)
            return cached[0]
        graph = self._incremental(repo, hashes)
        if graph is None:
            parsed = self._parse_all(repo.files, hashes)
            graph = RepoGraph(repo.files, parsed, repo.root_name)
            self.stats["full_builds"] += 1
            self._base = (graph, hashes)  # edits are usually made against the last full state
        else:
            self.stats["incremental_builds"] += 1
        self._keep(key, graph, hashes)
        return graph

    def _keep(self, key: str, graph: RepoGraph, hashes: dict[str, str]) -> None:
        self._graphs[key] = (graph, hashes)
        while len(self._graphs) > _GRAPHS_KEPT:
            self._graphs.popitem(last=False)

    def _lazy(self, repo: RepoFiles, hashes: dict[str, str], state: str, focus: str) -> RepoGraph:
        """The lazy graph covering `focus`'s neighbourhood: kept, patched after a one-file edit when
        the neighbourhood is unchanged, else built (only what resolution reaches gets parsed)."""
        key = f"{state}|{focus}"
        cached = self._graphs.get(key)
        if cached is not None:
            self._graphs.move_to_end(key)
            return cached[0]

        graph = self._incremental(repo, hashes, focus)
        if graph is not None:
            covered = self._cover(graph, repo, hashes, focus)
            if covered != list(graph.covered):
                # the edit changed what the file reaches: keep the patched parses and resolutions,
                # rebuild the repository-wide tables over the new neighbourhood
                graph = graph.restricted(covered, focus)
                self.stats["recovered"] += 1
        if graph is None:
            # full parses while choosing the neighbourhood (the files it reaches are mostly covered,
            # and covered files need their references), light ones for what ranking reaches later
            base = RepoGraph.lazy(repo.files, self._parse_one, repo.root_name)
            base.prime(self._parse_all({focus: repo.files[focus]}, hashes))
            graph = base.restricted(self._cover(base, repo, hashes, focus), focus, light=self._parse_light)
            self.stats["lazy_builds"] += 1
        else:
            self.stats["incremental_builds"] += 1
        self._flush()
        self._keep(key, graph, hashes)
        return graph

    def _cover(self, graph: RepoGraph, repo: RepoFiles, hashes: dict[str, str], focus: str) -> list[str]:
        """The files a lazy graph of `focus` covers (see `codegym.context.lazy`), parsed fully."""

        def words(path: str) -> frozenset[bytes]:
            return self._word_set(hashes[path], repo.files[path])[0]

        def lines(path: str) -> int:
            return self._word_set(hashes[path], repo.files[path])[1]

        covered = neighbourhood(graph, focus, words, self.neighbourhood_lines, lines)
        # in one batch (one disk-cache read), not one by one
        graph.prime(self._parse_all({p: repo.files[p] for p in covered}, hashes))
        probe = graph.restricted(covered, focus, light=self._parse_light)  # light parses from here
        more = most_used(probe, covered, focus, self.neighbourhood_lines // 4, lines)
        graph.prime(self._parse_all({p: repo.files[p] for p in more}, hashes))
        return [*covered, *more]

    def _incremental(
        self, repo: RepoFiles, hashes: dict[str, str], focus: str | None = None
    ) -> RepoGraph | None:
        """Patch the most recent kept graph (of the same focus) of the same file set that differs in
        one file's content."""
        kept = list(reversed(self._graphs.values()))
        for graph, old_hashes in [*kept, *([self._base] if self._base is not None else [])]:
            same_files = old_hashes.keys() == hashes.keys()
            if graph.focus != focus or graph.root_name != repo.root_name or not same_files:
                continue
            changed = [p for p, h in hashes.items() if old_hashes[p] != h]
            if len(changed) != 1:
                continue
            path = changed[0]
            parsed = self._parse_all({path: repo.files[path]}, {path: hashes[path]})[path]
            return graph.updated(path, repo.files[path], parsed)
        return None

    def _hash(self, data: bytes) -> str:
        """Content hash, remembered by the bytes object's identity: a training loop passes the same
        objects query after query, and hashing 26 MB of sympy costs ~40 ms each time."""
        hit = self._hashes.get(id(data))
        if hit is not None and hit[0] is data:
            self._hashes.move_to_end(id(data))
            return hit[1]
        h = content_hash(data)
        self._hashes[id(data)] = (data, h)  # the object is kept, so its id cannot be reused
        self._hashed_bytes += len(data)
        while self._hashed_bytes > _HASHED_BYTES_KEPT and len(self._hashes) > 1:
            self._hashed_bytes -= len(self._hashes.popitem(last=False)[1][0])
        return h

    def _word_set(self, h: str, data: bytes) -> tuple[frozenset[bytes], int]:
        """A file's word set and line count (what choosing a neighbourhood reads of every file)."""
        found = self._words.get(h)
        if found is None:
            found = self._words[h] = (words_of(data), line_count(data))
            while len(self._words) > _WORDS_KEPT:
                self._words.popitem(last=False)
        return found

    def _parse_one(self, path: str, data: bytes) -> ParsedFile:
        """A lazy graph's parse of one file: through the memory and disk caches, saved in a batch."""
        h = self._hash(data)
        return self._parse_all({path: data}, {path: h}, save=False)[path]

    def _parse_light(self, path: str, data: bytes) -> ParsedFile:
        """A parse without references (a lazy graph's files outside the neighbourhood); a full
        parse already made serves as well."""
        h = self._hash(data)
        full = self._parsed.get(h)
        if full is not None:
            return full
        return self._parse_all({path: data}, {path: h}, save=False, light=True)[path]

    def _flush(self) -> None:
        if self._unsaved:
            self._disk.put_many(self._unsaved)
            self._unsaved = []

    def _parse_all(
        self, files: Mapping[str, bytes], hashes: Mapping[str, str], save: bool = True, light: bool = False
    ) -> dict[str, ParsedFile]:
        # light parses are cached under their own keys (LIGHT_PREFIX + content hash)
        hashes = {p: LIGHT_PREFIX + hashes[p] for p in files} if light else hashes
        found: dict[str, ParsedFile] = {}
        missing = []
        for h in {hashes[p] for p in files}:
            hit = self._parsed.get(h)
            if hit is not None:
                found[h] = hit
                self.stats["memory_hits"] += 1
            else:
                missing.append(h)
        if missing:
            from_disk = self._disk.get_many(missing)
            self.stats["disk_hits"] += len(from_disk)
            found.update(from_disk)
            fresh = []
            by_hash = {hashes[path]: path for path in files}
            for h in missing:
                if h in from_disk:
                    continue
                if self._parser is None:
                    self._parser = PythonParser()
                if light:
                    parsed = self._parser.parse(files[by_hash[h]], h.removeprefix(LIGHT_PREFIX), light=True)
                else:
                    parsed = self._parser.parse(files[by_hash[h]], h)
                found[h] = parsed
                fresh.append(parsed)
            self.stats["parsed"] += len(fresh)
            if save:
                self._disk.put_many([*self._unsaved, *fresh])
                self._unsaved = []
            else:
                self._unsaved.extend(fresh)
            for h in missing:
                self._remember(h, found[h])
        return {path: found[hashes[path]] for path in files}

    def _remember(self, h: str, parsed: ParsedFile) -> None:
        self._parsed[h] = parsed
        while len(self._parsed) > _PARSED_KEPT:
            self._parsed.popitem(last=False)

    # --- queries -----------------------------------------------------------------------------------
    def query(
        self,
        repo: RepoFiles,
        file: str,
        line: int,
        budget_tokens: int,
        count_tokens: TokenCounter | None = None,
        options: RenderOptions | None = None,
    ) -> Context:
        """Context for the hole at `line` (1-based) of `file` (a path relative to the repository root)."""
        if budget_tokens < 0:
            raise ValueError("budget_tokens must be >= 0")
        file = Path(file).as_posix()
        if file not in repo.files:
            raise FileNotFoundError(f"{file} is not a Python file of the repository")
        with _gc_paused():
            return self._query(repo, file, line, budget_tokens, count_tokens, options)

    def _query(
        self,
        repo: RepoFiles,
        file: str,
        line: int,
        budget_tokens: int,
        count_tokens: TokenCounter | None,
        options: RenderOptions | None,
    ) -> Context:
        opts = options or RenderOptions()
        count = count_tokens or estimate_tokens
        t0 = time.perf_counter()
        graph = self._graph(repo, focus=file)
        t1 = time.perf_counter()
        hole = locate_hole(graph, file, max(1, line))
        ranked = rank(graph, hole, self.weights)
        t2 = time.perf_counter()
        window_budget = int(budget_tokens * opts.window_fraction) if opts.include_window else 0
        win_text, win_lines = window(graph, hole, window_budget, count)
        win_cost = count(win_text) + 2 if win_text else 0
        items = choose(graph, ranked, budget_tokens - win_cost, count, opts)
        text, total, win_text = _fit(graph, items, win_text, budget_tokens, count)
        for _ in range(_TOP_UP_ROUNDS):
            # additive estimates while choosing over-count (labels, shared headers): top up with what
            # the ranking still holds while the exact count leaves room
            if total >= opts.min_fill * budget_tokens or len(items) >= min(len(ranked), opts.max_candidates):
                break
            more = choose(graph, ranked, budget_tokens - total, count, opts, already=items)
            if len(more) == len(items):
                break
            items = more
            text, total, win_text = _fit(graph, items, win_text, budget_tokens, count)
        # `_fit` may have dropped window lines from the top
        win_lines = (win_lines[1] - win_text.count("\n") + 1, win_lines[1]) if win_text else (0, 0)
        t3 = time.perf_counter()
        context = Context(
            text=text,
            token_count=total,
            budget=budget_tokens,
            symbols=symbols_of(graph, items),  # `_fit` removed whatever did not fit
            file=file,
            line=line,
            window_lines=win_lines,
            counter=counter_name(count_tokens),
            timings_ms={"index": (t1 - t0) * 1e3, "rank": (t2 - t1) * 1e3, "render": (t3 - t2) * 1e3},
        )
        self._flush()  # files a lazy graph parsed on demand while ranking and rendering
        return context

    def query_path(
        self,
        root: Path | str,
        file: str,
        line: int,
        budget_tokens: int,
        count_tokens: TokenCounter | None = None,
        options: RenderOptions | None = None,
    ) -> Context:
        """Scan the repository at `root` (the hole's file is read whatever its size) and query it."""
        root = Path(root)
        rel = Path(file)
        if rel.is_absolute():
            rel = rel.resolve().relative_to(root.resolve())
        repo = scan_repo(root, max_file_bytes=self.max_file_bytes, include=[rel.as_posix()])
        return self.query(repo, rel.as_posix(), line, budget_tokens, count_tokens, options)

    def close(self) -> None:
        self._flush()
        self._disk.close()


def _fit(
    graph: RepoGraph, items: list[_Item], win_text: str, budget: int, count: TokenCounter
) -> tuple[str, int, str]:
    """Join definitions and window; shrink until it fits: the lowest-scored item goes down one tier
    (signature before name) and is dropped only at its cheapest tier, then window lines go.

    Works in place on `items`; returns the text, its token count and the window text that survived.
    """
    while True:
        body = assemble(graph, items)
        text = "\n\n".join(part for part in (body, win_text) if part)
        total = count(text) if text else 0
        if total <= budget:
            return text, total, win_text
        if items:
            worst = min(range(len(items)), key=lambda i: items[i].score)
            item = items[worst]
            lower = lower_tier(item.tier)
            if lower is None:
                items.pop(worst)
            else:
                text_lower = render_item(graph, item.sym, lower)
                items[worst] = _Item(item.sym, item.score, lower, text_lower, count(text_lower) + 1)
        elif win_text:
            win_text = _drop_first_window_line(win_text)
        else:
            return "", 0, ""


def _drop_first_window_line(win_text: str) -> str:
    label, _, rest = win_text.partition("\n")
    rest = rest.partition("\n")[2]
    return f"{label}\n{rest}" if rest else ""


def build_context(
    repo: Path | str,
    file: str,
    line: int,
    budget_tokens: int,
    count_tokens: TokenCounter | None = None,
    *,
    cache_dir: Path | None = None,
    engine: ContextEngine | None = None,
    options: RenderOptions | None = None,
) -> Context:
    """One-shot: context for the hole at `line` of `file` in the repository at `repo`.

    Pass an `engine` to reuse parses and graphs across calls; `cache_dir` adds the on-disk cache.
    """
    own = engine is None
    eng = engine or ContextEngine(cache_dir)
    try:
        return eng.query_path(repo, file, line, budget_tokens, count_tokens, options)
    finally:
        if own:
            eng.close()


def task_hole(task: Task) -> tuple[dict[str, bytes], int]:
    """The task's repository with the starter written at `solution_path`, and the hole's line.

    The repository's own copy of the solution file is replaced (it would give the answer away); the hole
    is the line after the starter, where the body being written begins.
    """
    files = {
        Path(p).as_posix(): (v.encode("utf-8") if isinstance(v, str) else v)
        for p, v in task.repo_files.items()
        if p.endswith(".py")
    }
    starter = task.prefix
    files[Path(task.solution_path).as_posix()] = starter.encode("utf-8")
    line = starter.count("\n") + 1 if starter.endswith("\n") or not starter else starter.count("\n") + 2
    return files, line


def build_task_context(
    task: Task,
    budget_tokens: int,
    count_tokens: TokenCounter | None = None,
    *,
    engine: ContextEngine | None = None,
    include_window: bool = False,
    root_name: str = "",
) -> Context:
    """Cross-file context for a repo task's hole (the body after its starter), for prompt builders.

    The window is off by default because prompts already end with the starter itself; every token of
    the budget then goes to definitions from the other files.
    """
    files, line = task_hole(task)
    eng = engine or ContextEngine()
    repo = RepoFiles(files, root_name=root_name)
    options = RenderOptions(include_window=include_window)
    return eng.query(repo, Path(task.solution_path).as_posix(), line, budget_tokens, count_tokens, options)
