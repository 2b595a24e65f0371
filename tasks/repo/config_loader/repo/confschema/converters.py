"""Turning raw strings into typed values."""

from confschema.errors import ConfigError

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def _to_bool(raw: str) -> bool:
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(raw)


def _to_list(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(",") if part.strip()]


CONVERTERS = {"str": str, "int": int, "float": float, "bool": _to_bool, "list": _to_list}


def convert(key: str, raw: str, type_name: str) -> object:
    """Convert the raw string of `key` to `type_name`; bad values raise ConfigError."""
    try:
        converter = CONVERTERS[type_name]
    except KeyError:
        raise ValueError(f"unknown field type {type_name!r}") from None
    try:
        return converter(raw)
    except ValueError:
        raise ConfigError(key, f"expected {type_name}, got {raw!r}") from None
