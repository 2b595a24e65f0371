from .converters import convert
from .errors import ConfigError
from .parser import parse_lines
from .schema import Schema


def load_config(text: str, schema: Schema, env: dict[str, str] | None = None) -> dict:
    """Parse `text`, apply environment overrides and validate everything against `schema`."""
    raw_values = parse_lines(text)
    unknown = sorted(set(raw_values) - set(schema.names()))
    if unknown:
        raise ConfigError(unknown[0], "unknown key")
    overrides = env or {}
    config: dict = {}
    for field in schema.fields:
        raw = overrides.get(field.env_var(), raw_values.get(field.name))
        if raw is None:
            if field.required:
                raise ConfigError(field.name, "missing required key")
            config[field.name] = field.default
            continue
        value = convert(field.name, raw, field.type)
        if field.choices is not None and value not in field.choices:
            raise ConfigError(field.name, f"{value!r} is not one of {field.choices!r}")
        config[field.name] = value
    return config
