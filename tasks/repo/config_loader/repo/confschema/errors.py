"""Errors raised while loading configuration."""


class ConfigError(Exception):
    """A configuration problem; `key` names the offending key when there is one."""

    def __init__(self, key: str | None, message: str) -> None:
        self.key = key
        self.message = message
        super().__init__(f"{key}: {message}" if key else message)
