"""Log levels from least to most severe."""

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
ALIASES = {"WARN": "WARNING", "ERR": "ERROR", "FATAL": "CRITICAL"}


def normalize_level(name: str) -> str:
    """Canonical upper-case level name; accepts aliases and any letter case."""
    level = name.strip().upper()
    level = ALIASES.get(level, level)
    if level not in LEVELS:
        raise ValueError(f"unknown log level {name!r}")
    return level


def severity(level: str) -> int:
    return LEVELS.index(normalize_level(level))
