"""Prompts for tasks: completion style (the model continues the starter) or chat style (the model
answers with the whole file in a fenced block). Repo tasks carry tree-sitter cross-file context."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from codegym.context import ContextEngine, TokenCounter, build_task_context
from codegym.tasks.model import Task

Style = Literal["completion", "chat"]
DEFAULT_SYSTEM_PROMPT = (
    "You are an expert Python programmer. Write correct, clean, efficient code. "
    "Answer with the complete file in a single ```python code block."
)


@dataclass(frozen=True)
class PromptConfig:
    style: Style = field(
        default="chat", metadata={"help": "completion: continue the starter; chat: messages."}
    )
    include_visible_tests: bool = field(default=True, metadata={"help": "Show the task's visible tests."})
    context_budget_tokens: int = field(
        default=1024, metadata={"help": "Token budget of cross-file context for repo tasks (0 = none)."}
    )
    system_prompt: str = field(
        default=DEFAULT_SYSTEM_PROMPT, metadata={"help": "Chat style's system message."}
    )

    def __post_init__(self) -> None:
        if self.style not in ("completion", "chat"):
            raise ValueError(f"PromptConfig.style must be completion or chat, got {self.style!r}")
        if self.context_budget_tokens < 0:
            raise ValueError("PromptConfig.context_budget_tokens must be >= 0")


@dataclass(frozen=True)
class Prompt:
    task_id: str
    style: Style
    text: str = ""  # completion style
    messages: tuple[dict[str, str], ...] = ()  # chat style
    completion_format: str = "auto"  # how the reward reads the answer (see codegym.reward.extract)
    context_tokens: int = 0

    def as_trl(self) -> Any:
        """What a TRL dataset's `prompt` column holds: text, or a list of messages."""
        return self.text if self.style == "completion" else [dict(m) for m in self.messages]


def examples_text(task: Task, limit: int = 3, max_chars: int = 2000) -> str:
    """A task's visible cases as worked examples (input/output problems), shortest first."""
    suite = task.visible_cases
    if suite is None or not suite.cases:
        return ""
    blocks: list[str] = []
    for case in sorted(suite.cases, key=lambda c: len(repr(c.input)) + len(repr(c.expected)))[:limit]:
        if suite.kind == "stdio":
            block = f"Input:\n```\n{case.input.rstrip()}\n```\nOutput:\n```\n{case.expected.rstrip()}\n```"
        else:
            arguments = ", ".join(repr(a) for a in case.input)
            block = f"`{suite.function}({arguments})` returns `{case.expected!r}`"
        if sum(map(len, blocks)) + len(block) > max_chars:
            break
        blocks.append(block)
    return ("Examples:\n\n" + "\n\n".join(blocks)) if blocks else ""


def _commented(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in text.strip().splitlines())


class PromptBuilder:
    """Builds prompts; shares one context engine (and its parse cache) across tasks."""

    def __init__(self, config: PromptConfig | None = None, count_tokens: TokenCounter | None = None) -> None:
        self.config = config or PromptConfig()
        self.count_tokens = count_tokens
        self._engine: ContextEngine | None = None

    def _context(self, task: Task) -> tuple[str, int]:
        if not task.is_repo_task or self.config.context_budget_tokens == 0:
            return "", 0
        if self._engine is None:
            self._engine = ContextEngine()
        context = build_task_context(
            task, self.config.context_budget_tokens, self.count_tokens, engine=self._engine
        )
        return context.text, context.token_count

    def build(self, task: Task) -> Prompt:
        context, context_tokens = self._context(task)
        # some datasets' prompts already show their tests (MBPP's): never twice
        shows_tests = self.config.include_visible_tests and not task.metadata.get(
            "prompt_shows_visible_tests"
        )
        visible = "\n\n".join(task.visible_tests.files.values()) if shows_tests else ""
        examples = examples_text(task) if self.config.include_visible_tests else ""
        if self.config.style == "completion":
            return Prompt(
                task.task_id,
                "completion",
                text=self._completion_text(task, context, visible, examples),
                completion_format="append",
                context_tokens=context_tokens,
            )
        parts = [task.prompt.strip()]
        if context:
            parts.append(f"Relevant code from the repository:\n```python\n{context.rstrip()}\n```")
        if task.prefix and task.prefix.strip() != task.prompt.strip():
            starter = task.prefix.rstrip()
            parts.append(f"Write the file `{task.solution_path}`. It begins with:\n```python\n{starter}\n```")
        elif task.prefix:
            parts.append(f"Complete this code (file `{task.solution_path}`).")
        if visible.strip():
            parts.append(f"Your code must pass tests like these:\n```python\n{visible.strip()}\n```")
        if examples:
            parts.append(examples)
        parts.append("Reply with the complete file in one ```python block.")
        messages = (
            {"role": "system", "content": self.config.system_prompt},
            {"role": "user", "content": "\n\n".join(parts)},
        )
        return Prompt(
            task.task_id, "chat", messages=messages, completion_format="auto", context_tokens=context_tokens
        )

    @staticmethod
    def _completion_text(task: Task, context: str, visible: str, examples: str = "") -> str:
        if task.prefix and task.prompt.strip() == task.prefix.strip():
            header = []  # HumanEval style: the prompt is the code itself
        else:
            header = [_commented(task.prompt)]
        if context:
            header.append("# Code from other files of this repository:\n" + _commented(context))
        if visible.strip():
            header.append("# Tests the solution must pass:\n" + _commented(visible))
        if examples:
            header.append(_commented(examples))
        head = "\n#\n".join(header)
        return (head + "\n\n" if head else "") + task.prefix

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None
