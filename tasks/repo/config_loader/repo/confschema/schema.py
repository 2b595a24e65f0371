"""Schema description."""

from dataclasses import dataclass

ENV_PREFIX = "MYAPP_"


@dataclass(frozen=True)
class Field:
    name: str
    type: str = "str"
    required: bool = False
    default: object = None
    choices: tuple | None = None

    def env_var(self) -> str:
        """Name of the environment variable that overrides this field."""
        return ENV_PREFIX + self.name.upper()


@dataclass(frozen=True)
class Schema:
    fields: tuple[Field, ...]

    def names(self) -> list[str]:
        return [field.name for field in self.fields]

    def get(self, name: str) -> Field | None:
        return next((field for field in self.fields if field.name == name), None)
