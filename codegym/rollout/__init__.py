"""codegym.rollout: prompts for tasks (with cross-file context for repo tasks), feedback for failed
attempts, and multi-turn episodes. It owns no training state."""

from codegym.rollout.feedback import feedback_message
from codegym.rollout.prompts import Prompt, PromptBuilder, PromptConfig

__all__ = ["Prompt", "PromptBuilder", "PromptConfig", "feedback_message"]
