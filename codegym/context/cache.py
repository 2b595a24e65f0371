"""Parse cache: ParsedFile records in SQLite, keyed by the file's content hash and the parser version.

Records are zlib-compressed JSON (not pickle, so a tampered cache file can at worst give wrong
context, never run code). A cache that cannot be opened or read degrades to no cache.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from collections.abc import Iterable
from pathlib import Path

from codegym.context.model import Definition, ImportBinding, ParsedFile, Reference, Scope

PARSER_VERSION = 8  # bump whenever extraction changes what a ParsedFile holds


def default_cache_dir() -> Path:
    return Path.home() / ".cache" / "codegym" / "context"


def content_hash(source: bytes) -> str:
    return hashlib.blake2b(source, digest_size=16).hexdigest()


def _encode(parsed: ParsedFile) -> bytes:
    data = {
        "h": parsed.content_hash,
        "d": [
            [
                d.name,
                d.qualname,
                d.kind,
                d.parent,
                d.start_byte,
                d.header_end,
                d.doc_start,
                d.doc_end,
                d.end_byte,
                d.start_line,
                d.end_line,
                d.body_line,
                d.column,
                list(d.bases),
                list(d.decorators),
            ]
            for d in parsed.definitions
        ],
        "i": [
            [b.local, b.module, b.level, b.name, b.scope, b.line, b.binds_top, b.star] for b in parsed.imports
        ],
        "r": [[list(r.chain), r.scope, r.line, r.byte, r.is_call] for r in parsed.references],
        "s": {
            str(k): [sorted(v.bound), sorted(v.globals), sorted(v.nonlocals), v.first_param]
            for k, v in parsed.scopes.items()
        },
        "m": sorted(parsed.module_bound),
        "a": list(parsed.dunder_all) if parsed.dunder_all is not None else None,
        "e": parsed.has_errors,
        "n": parsed.line_count,
    }
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 1)


def _decode(blob: bytes) -> ParsedFile:
    data = json.loads(zlib.decompress(blob))
    return ParsedFile(
        content_hash=data["h"],
        definitions=tuple(
            Definition(*row[:13], bases=tuple(row[13]), decorators=tuple(row[14])) for row in data["d"]
        ),
        imports=tuple(ImportBinding(*row) for row in data["i"]),
        references=tuple(Reference(tuple(r[0]), r[1], r[2], r[3], r[4]) for r in data["r"]),
        scopes={
            int(k): Scope(frozenset(v[0]), frozenset(v[1]), frozenset(v[2]), v[3])
            for k, v in data["s"].items()
        },
        module_bound=frozenset(data["m"]),
        dunder_all=tuple(data["a"]) if data["a"] is not None else None,
        has_errors=data["e"],
        line_count=data["n"],
    )


class ParseCache:
    """SQLite-backed store of ParsedFile by content hash; `ParseCache(None)` is a no-op cache."""

    def __init__(self, directory: Path | None) -> None:
        self._db: sqlite3.Connection | None = None
        if directory is None:
            return
        try:
            directory = Path(directory)
            directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(directory / "parse.sqlite"), timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS parsed (key TEXT PRIMARY KEY, version INTEGER, data BLOB)"
            )
            self._db.commit()
        except (OSError, sqlite3.Error):
            self._db = None  # an unusable cache must not stop context building

    @property
    def enabled(self) -> bool:
        return self._db is not None

    def get_many(self, hashes: Iterable[str]) -> dict[str, ParsedFile]:
        if self._db is None:
            return {}
        wanted = list(dict.fromkeys(hashes))
        found: dict[str, ParsedFile] = {}
        try:
            for start in range(0, len(wanted), 500):  # stay under SQLite's host-parameter limit
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, data FROM parsed WHERE version = ? AND key IN ({marks})",
                    [PARSER_VERSION, *chunk],
                )
                for key, blob in rows:
                    try:
                        found[key] = _decode(blob)
                    except (ValueError, KeyError, TypeError, zlib.error):
                        continue  # a corrupt record is just a miss
        except sqlite3.Error:
            return found
        return found

    def put_many(self, parsed: Iterable[ParsedFile]) -> None:
        if self._db is None:
            return
        rows = [(p.content_hash, PARSER_VERSION, _encode(p)) for p in parsed]
        if not rows:
            return
        try:
            self._db.executemany("INSERT OR REPLACE INTO parsed (key, version, data) VALUES (?, ?, ?)", rows)
            self._db.commit()
        except sqlite3.Error:
            pass  # read-only or full disk: keep working without persisting

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
