"""Reading KEY=VALUE configuration text."""

from confschema.errors import ConfigError

QUOTES = ('"', "'")


def parse_lines(text: str) -> dict[str, str]:
    """Parse KEY=VALUE lines into raw strings.

    Blank lines and lines starting with '#' are skipped. Keys are stripped and lower-cased.
    Values are stripped; a value wrapped in matching single or double quotes loses the quotes.
    A line without '=', an empty key, or a repeated key raises ConfigError.
    """
    values: dict[str, str] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not sep or not key:
            raise ConfigError(None, f"line {lineno}: expected KEY=VALUE")
        if key in values:
            raise ConfigError(key, f"line {lineno}: duplicate key")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in QUOTES:
            value = value[1:-1]
        values[key] = value
    return values
