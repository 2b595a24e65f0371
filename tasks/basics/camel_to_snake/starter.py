import re


def camel_to_snake(name: str) -> str:
    """Convert a CamelCase or camelCase identifier to snake_case."""
