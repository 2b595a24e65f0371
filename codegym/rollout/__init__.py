"""codegym.rollout: prompts for tasks (with cross-file context for repo tasks), feedback for failed
attempts, and generation backends. It owns no training state (multi-turn episodes are run by
codegym.train.multiturn)."""

from codegym.rollout.feedback import feedback_message
from codegym.rollout.prompts import Prompt, PromptBuilder, PromptConfig

__all__ = ["Prompt", "PromptBuilder", "PromptConfig", "feedback_message"]
