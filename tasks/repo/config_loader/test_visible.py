from confschema.loader import load_config
from confschema.schema import Field, Schema

SCHEMA = Schema((Field("port", "int", required=True), Field("debug", "bool", default=False)))


def test_example():
    assert load_config("port = 8080", SCHEMA) == {"port": 8080, "debug": False}


def test_bool_value():
    assert load_config("port=1\ndebug=true", SCHEMA) == {"port": 1, "debug": True}
