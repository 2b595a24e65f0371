from .converters import convert
from .errors import ConfigError
from .parser import parse_lines
from .schema import Schema


def load_config(text: str, schema: Schema, env: dict[str, str] | None = None) -> dict:
    """Parse `text`, apply environment overrides and validate everything against `schema`."""
