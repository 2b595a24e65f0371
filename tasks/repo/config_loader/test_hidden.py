import pytest

from confschema.errors import ConfigError
from confschema.loader import load_config
from confschema.schema import Field, Schema

SCHEMA = Schema(
    (
        Field("host", "str", default="localhost"),
        Field("port", "int", required=True),
        Field("ratio", "float", default=0.5),
        Field("debug", "bool", default=False),
        Field("tags", "list", default=()),
        Field("mode", "str", default="dev", choices=("dev", "prod")),
    )
)


def test_defaults_and_types():
    text = "# settings\nPORT = 8080\n\nratio=0.25\ntags = a, b ,,c\n"
    assert load_config(text, SCHEMA) == {
        "host": "localhost",
        "port": 8080,
        "ratio": 0.25,
        "debug": False,
        "tags": ["a", "b", "c"],
        "mode": "dev",
    }


def test_package_bool_words_and_quotes():
    config = load_config("port=1\ndebug = Off\nhost = 'example.org'", SCHEMA)
    assert config["debug"] is False
    assert config["host"] == "example.org"
    assert load_config("port=1\ndebug=YES", SCHEMA)["debug"] is True


def test_env_overrides_use_field_variable_names():
    env = {"MYAPP_PORT": "9000", "MYAPP_DEBUG": "on", "PORT": "1", "APP_HOST": "ignored"}
    config = load_config("port = 80\nhost = web", SCHEMA, env)
    assert config["port"] == 9000
    assert config["debug"] is True
    assert config["host"] == "web"


def test_env_supplies_required_value():
    assert load_config("", SCHEMA, {"MYAPP_PORT": "7"})["port"] == 7


def test_missing_required():
    with pytest.raises(ConfigError) as info:
        load_config("host = x", SCHEMA)
    assert info.value.key == "port"


def test_unknown_keys_reported_alphabetically():
    with pytest.raises(ConfigError) as info:
        load_config("zeta = 1\nport = 1\nalpha = 2", SCHEMA)
    assert info.value.key == "alpha"


def test_bad_value_and_choices():
    with pytest.raises(ConfigError) as info:
        load_config("port = eighty", SCHEMA)
    assert info.value.key == "port"
    with pytest.raises(ConfigError) as info:
        load_config("port = 1\nmode = staging", SCHEMA)
    assert info.value.key == "mode"
    assert load_config("port = 1\nmode = prod", SCHEMA)["mode"] == "prod"


def test_parser_errors_propagate():
    with pytest.raises(ConfigError):
        load_config("port = 1\nport = 2", SCHEMA)
    with pytest.raises(ConfigError):
        load_config("just words", SCHEMA)


def test_defaults_not_converted():
    schema = Schema((Field("limit", "int", default="unlimited"),))
    assert load_config("", schema) == {"limit": "unlimited"}
    assert load_config("", schema, None) == {"limit": "unlimited"}
