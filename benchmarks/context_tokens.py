"""Calibration of codegym.context's token estimate against real byte-level BPE tokenizers of code.

    .venv/bin/python benchmarks/context_tokens.py [--chunks 3000]

No model hub is reachable, so two tokenizers are trained here (once, cached under
~/.cache/codegym-bench/tok/) on the Python standard library, the way code models' tokenizers are:
  bpe32k-gpt2   32k vocabulary, GPT-2 pre-tokenization (DeepSeek-Coder / StarCoder-sized)
  bpe100k-cl    100k vocabulary, cl100k-style pre-tokenization (GPT-4 / Llama 3 / Qwen-sized)
They are then run on every 40-line chunk of the benchmark's packages (none of which is in the
training data) and on rendered contexts; the table gives estimate / real per chunk (p1, p5, median,
p95). A ratio below 1 means the estimate undercounts: with it, a budget can be exceeded by that much
in the model's tokens (pass the model's tokenizer to rule that out).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from context_data import CACHE, PACKAGES, fetch

from codegym.context import estimate_tokens
from codegym.context.repo import scan_repo

CL100K_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def train(name: str, vocab: int, style: str):
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    out = CACHE / "tok" / f"{name}.json"
    if out.is_file():
        return Tokenizer.from_file(str(out))
    stdlib = Path(os.__file__).parent
    files = sorted(
        p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts and "test" not in p.parts
    )
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    tok = Tokenizer(models.BPE())
    if style == "gpt2":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(CL100K_SPLIT), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(texts, trainer)
    out.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(out))
    return tok


def chunks(limit: int) -> list[str]:
    out = []
    for name, version, package, _role in PACKAGES:
        repo = scan_repo(fetch(name, version, package))
        for data in repo.files.values():
            lines = data.decode("utf-8", "replace").split("\n")
            out.extend("\n".join(lines[i : i + 40]) for i in range(0, len(lines), 40))
    random.Random(0).shuffle(out)
    return [c for c in out if c.strip()][:limit]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=3000)
    args = ap.parse_args()
    sample = chunks(args.chunks)
    print(f"{len(sample)} chunks of 40 lines from {len(PACKAGES)} packages")
    print(f"{'tokenizer':<14}{'p1':>7}{'p5':>7}{'median':>8}{'p95':>7}{'total':>8}")
    for name, vocab, style in (("bpe32k-gpt2", 32000, "gpt2"), ("bpe100k-cl", 100000, "cl")):
        tok = train(name, vocab, style)
        ratios, est_total, real_total = [], 0, 0
        for text in sample:
            real = len(tok.encode(text, add_special_tokens=False).ids)
            est = estimate_tokens(text)
            if real:
                ratios.append(est / real)
                est_total += est
                real_total += real
        print(
            f"{name:<14}{pct(ratios, 0.01):>7.2f}{pct(ratios, 0.05):>7.2f}{statistics.median(ratios):>8.2f}"
            f"{pct(ratios, 0.95):>7.2f}{est_total / real_total:>8.2f}"
        )


if __name__ == "__main__":
    main()
