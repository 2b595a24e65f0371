import re


def camel_to_snake(name: str) -> str:
    """Convert a CamelCase or camelCase identifier to snake_case."""
    boundary = r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])"
    return re.sub(boundary, "_", name).lower()
