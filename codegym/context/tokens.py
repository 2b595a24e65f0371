"""Token counting: the model's tokenizer when given, else a deliberately pessimistic estimate.

The estimate (`estimate_tokens`) is built to over-count for subword tokenizers of code models with
vocabularies of 32k tokens or more (byte-level BPE / SentencePiece: GPT-2/4, Llama, Qwen, StarCoder,
DeepSeek-Coder). Rule: a lower-case or Capitalised word costs one token per 4 letters (rounded up),
an ALL-CAPS run one per 2 letters, every underscore, digit and punctuation character one, a newline
or an indentation run one, a single space nothing (BPE merges it into the next word), any other
character one per UTF-8 byte. Calibration: against a 32k byte-level BPE trained on Python code, on
all 40-line chunks of click, rich, urllib3, requests and pyyaml, estimate / real was never below
1.04 (median 1.42); with an 8k vocabulary it can undercount (minimum 0.85). Pass the model's
tokenizer for an exact guarantee.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

TokenCounter = Callable[[str], int]

_PIECES = re.compile(
    r"[a-z]+|[A-Z][a-z]+|[A-Z]+(?![a-z])|\n|[ \t]{2,}| |[\x21-\x7e]|[^\x00-\x7f]|[\x00-\x1f\x7f]"
)


def estimate_tokens(text: str) -> int:
    """Pessimistic token count for `text` (see the module docstring for the rule and its calibration)."""
    total = 0
    for piece in _PIECES.findall(text):
        first = piece[0]
        if "a" <= first <= "z" or ("A" <= first <= "Z" and len(piece) > 1 and piece[1].islower()):
            total += (len(piece) + 3) // 4
        elif "A" <= first <= "Z":
            total += (len(piece) + 1) // 2
        elif first == " " and len(piece) == 1:
            continue  # merged into the following word by BPE-style tokenizers
        elif ord(first) > 0x7F:
            total += len(piece.encode("utf-8"))
        else:
            total += 1
    return total


class TokenizerCounter:
    """Counts tokens with a Hugging Face tokenizer loaded from a local path (no hub access)."""

    def __init__(self, encode: Callable[[str], int], name: str) -> None:
        self._encode = encode
        self.name = name

    def __call__(self, text: str) -> int:
        return self._encode(text)


def load_token_counter(name_or_path: str | Path) -> TokenizerCounter:
    """A counter for a local tokenizer: a `tokenizer.json` file or a tokenizer directory.

    Directories with a `tokenizer.json` load through the `tokenizers` library; others (e.g. only
    SentencePiece files) through transformers' AutoTokenizer with `local_files_only=True`.
    A bare name is tried against the local Hugging Face cache only.
    """
    path = Path(name_or_path).expanduser()
    if path.is_file() or (path.is_dir() and (path / "tokenizer.json").is_file()):
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:  # the `train` extra is not installed
            raise ValueError(f"cannot load tokenizer {name_or_path!r}: {exc}") from exc
        try:
            tok = Tokenizer.from_file(str(path if path.is_file() else path / "tokenizer.json"))
        except Exception as exc:  # tokenizers raises its own error type for malformed files
            raise ValueError(f"cannot load tokenizer {name_or_path!r}: {exc}") from exc

        def encode(text: str) -> int:
            return len(tok.encode(text, add_special_tokens=False).ids)

        return TokenizerCounter(encode, str(name_or_path))
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:  # the `train` extra is not installed
        raise ValueError(f"cannot load tokenizer {name_or_path!r}: {exc}") from exc
    try:
        source = str(path) if path.is_dir() else str(name_or_path)
        hf = AutoTokenizer.from_pretrained(source, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"cannot load tokenizer {name_or_path!r} from local files: give a tokenizer.json or a directory"
        ) from exc

    def encode_hf(text: str) -> int:
        return len(hf.encode(text, add_special_tokens=False))

    return TokenizerCounter(encode_hf, str(name_or_path))


def counter_name(counter: TokenCounter | None) -> str:
    if counter is None:
        return "estimate"
    return str(getattr(counter, "name", getattr(counter, "__name__", "custom")))
