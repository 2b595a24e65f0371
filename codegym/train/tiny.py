"""A tiny Qwen2-style causal LM and a BPE tokenizer trained on the task corpus, built offline.

For tests, CPU quick starts and GPU smoke checks where no model hub is reachable: nothing is
downloaded. The model is random (or briefly SFT-warmed by the caller); the tokenizer is a real
byte-level BPE trained with `tokenizers` on the prompts and reference solutions of task packs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

EOS = "<|endoftext|>"
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@dataclass(frozen=True)
class TinyModelSpec:
    vocab_size: int = field(default=2048, metadata={"help": "BPE vocabulary size."})
    hidden_size: int = field(default=64, metadata={"help": "Model width."})
    layers: int = field(default=2, metadata={"help": "Transformer layers."})
    heads: int = field(default=4, metadata={"help": "Attention heads."})
    kv_heads: int = field(default=2, metadata={"help": "Key/value heads (grouped-query attention)."})
    intermediate_size: int = field(default=128, metadata={"help": "MLP width."})
    max_positions: int = field(default=2048, metadata={"help": "Context length."})
    seed: int = field(default=0, metadata={"help": "Initialisation seed."})
    pad_vocab_to: int = field(
        default=0,
        metadata={"help": "Embedding rows (0 = the tokenizer's size); e.g. 151936 for a Qwen2.5 shape."},
    )

    def __post_init__(self) -> None:
        if self.hidden_size % self.heads or self.heads % self.kv_heads:
            raise ValueError("hidden_size must divide by heads, and heads by kv_heads")
        if self.vocab_size < 300:
            raise ValueError("vocab_size must be >= 300 (256 bytes plus merges and special tokens)")


def train_tokenizer(corpus: Iterable[str], vocab_size: int):
    """A byte-level BPE (PreTrainedTokenizerFast) trained on `corpus`, with EOS/pad and a chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[EOS, "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(list(corpus), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token=EOS, pad_token=EOS, bos_token=None)
    fast.chat_template = CHAT_TEMPLATE
    fast.padding_side = "left"
    return fast


def build_tiny_model(out_dir: str | Path, corpus: Iterable[str], spec: TinyModelSpec | None = None) -> Path:
    """Save a tokenizer trained on `corpus` and a randomly initialised Qwen2 model to `out_dir`."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    spec = spec or TinyModelSpec()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(corpus, spec.vocab_size)
    config = Qwen2Config(
        vocab_size=max(len(tokenizer), spec.pad_vocab_to),
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.layers,
        num_attention_heads=spec.heads,
        num_key_value_heads=spec.kv_heads,
        max_position_embeddings=spec.max_positions,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(spec.seed)
    model = Qwen2ForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def task_corpus(packs: Iterable) -> list[str]:
    """Prompts, starters and reference solutions of every task: the tokenizer's training text."""
    texts: list[str] = []
    for pack in packs:
        for task in pack.tasks.values():
            texts.extend([task.prompt, task.prefix, task.reference_solution])
    return [t for t in texts if t]
