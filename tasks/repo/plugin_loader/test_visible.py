from plugkit.loader import resolve_load_order
from plugkit.registry import PluginSpec, Registry


def make_registry():
    registry = Registry()
    registry.register(PluginSpec("core", "1.2.0"))
    registry.register(PluginSpec("auth", "0.9.0", ("core>=1.0",)))
    registry.register(PluginSpec("ui", "2.0.0", ("auth", "core")))
    return registry


def test_example():
    assert resolve_load_order(make_registry(), ["ui"]) == ["core", "auth", "ui"]


def test_nothing_enabled():
    assert resolve_load_order(make_registry(), []) == []
