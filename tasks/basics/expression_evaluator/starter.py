import re


def evaluate(expression: str) -> int | float:
    """Evaluate an arithmetic expression with + - * /, unary signs and parentheses."""
