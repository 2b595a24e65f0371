"""RepoCoder-style sliding-window retrieval, the baseline of context_recall.py.

Every other file is cut into windows of WINDOW lines every STRIDE lines; the query is the WINDOW lines
before the hole (signature, docstring, code above). Windows are ranked by Jaccard similarity of their
identifier sets with the query and packed, best first, into the budget left after the same local
window codegym.context uses. A definition counts as retrieved when its header line is inside a packed
window, which is the criterion applied to codegym.context's output too (its header is rendered).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codegym.context.repo import RepoFiles
from codegym.context.tokens import TokenCounter

WINDOW = 20
STRIDE = 10
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Chunk:
    path: str
    start: int  # 1-based first line
    end: int  # inclusive
    text: str
    idents: frozenset[str]


class SlidingWindowIndex:
    def __init__(self, repo: RepoFiles) -> None:
        self.chunks: list[Chunk] = []
        for path, data in sorted(repo.files.items()):
            lines = data.decode("utf-8", "replace").split("\n")
            for start in range(0, max(1, len(lines)), STRIDE):
                part = lines[start : start + WINDOW]
                text = "\n".join(part)
                idents = frozenset(_IDENT.findall(text))
                self.chunks.append(Chunk(path, start + 1, start + len(part), text, idents))

    def retrieve(
        self,
        file: str,
        source: bytes,
        line: int,
        budget: int,
        count: TokenCounter,
        window_fraction: float = 0.25,
    ) -> list[Chunk]:
        lines = source.decode("utf-8", "replace").split("\n")
        before = lines[max(0, line - 1 - WINDOW) : line - 1]
        # the same local window budget codegym.context spends
        local_budget = int(budget * window_fraction)
        used = 0
        for text in reversed(before):
            cost = count(text) + 1
            if used + cost > local_budget:
                break
            used += cost
        query = frozenset(_IDENT.findall("\n".join(before)))
        scored = []
        for chunk in self.chunks:
            if chunk.path == file:
                continue
            union = len(query | chunk.idents)
            if union:
                scored.append((len(query & chunk.idents) / union, chunk))
        scored.sort(key=lambda item: -item[0])
        left = budget - used
        packed = []
        for _, chunk in scored:
            cost = count(f"# file: {chunk.path}\n{chunk.text}") + 2
            if cost <= left:
                packed.append(chunk)
                left -= cost
            if left < 20:
                break
        return packed
