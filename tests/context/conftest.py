"""Fixtures for codegym.context tests: a copy of the `shop` fixture repo with the awkward files added,
and a real BPE tokenizer trained here on Python source (no model hub)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from context_samples import BROKEN, LATIN1

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """The shop repo in tmp_path, plus a broken file, a latin-1 file and an empty file."""
    root = tmp_path / "shop"
    shutil.copytree(FIXTURES / "shop", root)
    pkg = root / "src" / "shop"
    (pkg / "broken.py").write_text(BROKEN)
    (pkg / "latin.py").write_bytes(LATIN1.encode("latin-1"))
    (pkg / "empty.py").write_bytes(b"")
    return root


@pytest.fixture(scope="session")
def trained_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A byte-level BPE (vocab 4000) trained on standard-library Python files."""
    tokenizers = pytest.importorskip("tokenizers")  # part of the `train` extra
    Tokenizer, decoders, models = tokenizers.Tokenizer, tokenizers.decoders, tokenizers.models
    pre_tokenizers, trainers = tokenizers.pre_tokenizers, tokenizers.trainers

    stdlib = Path(os.__file__).parent
    texts = []
    for path in sorted(stdlib.glob("*.py"))[:150]:
        texts.append(path.read_text(encoding="utf-8", errors="replace"))
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=4000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(texts, trainer)
    out = tmp_path_factory.mktemp("tok") / "tokenizer.json"
    tok.save(str(out))
    return out
