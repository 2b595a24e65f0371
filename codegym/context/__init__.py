"""codegym.context: AST-aware cross-file context for a hole in a Python repository, under a token budget.

Parse with tree-sitter (`parser`), cache parses by content hash (`cache`), resolve imports, names and
class hierarchies across files (`graph`), rank definitions for the hole (`rank`) and render them with
the local window inside the budget (`render`). `engine` holds the entry points; on large repositories
it builds a lazy graph of the queried file's neighbourhood (`lazy`) instead of parsing everything.
"""

from codegym.context.engine import ContextEngine, build_context, build_task_context, task_hole
from codegym.context.model import ChosenSymbol, Context
from codegym.context.rank import RankWeights
from codegym.context.render import RenderOptions
from codegym.context.tokens import TokenCounter, estimate_tokens, load_token_counter

__all__ = [
    "ChosenSymbol",
    "Context",
    "ContextEngine",
    "RankWeights",
    "RenderOptions",
    "TokenCounter",
    "build_context",
    "build_task_context",
    "estimate_tokens",
    "load_token_counter",
    "task_hole",
]
