import pytest

from plugkit.errors import (
    DependencyCycleError,
    MissingDependencyError,
    PluginError,
    UnknownPluginError,
    VersionConflictError,
)
from plugkit.loader import resolve_load_order
from plugkit.registry import PluginSpec, Registry


def registry_of(*specs):
    registry = Registry()
    for spec in specs:
        registry.register(spec)
    return registry


BASE = (
    PluginSpec("core", "1.2.0"),
    PluginSpec("auth", "0.9.0", ("core>=1.0",)),
    PluginSpec("ui", "2.0.0", ("auth", "core")),
    PluginSpec("metrics", "1.0", ("core",), priority=5),
    PluginSpec("zlib", "3.1"),
    PluginSpec("alpha", "1.0"),
)


def test_example_and_transitive_dependencies():
    assert resolve_load_order(registry_of(*BASE), ["ui"]) == ["core", "auth", "ui"]


def test_priority_then_name():
    order = resolve_load_order(registry_of(*BASE), ["zlib", "ui", "metrics", "alpha"])
    assert order == ["alpha", "core", "metrics", "auth", "ui", "zlib"]


def test_duplicates_and_unused_plugins_ignored():
    assert resolve_load_order(registry_of(*BASE), ["auth", "auth", "core"]) == ["core", "auth"]
    assert resolve_load_order(registry_of(*BASE), []) == []


def test_unknown_enabled_plugin():
    with pytest.raises(UnknownPluginError):
        resolve_load_order(registry_of(*BASE), ["ui", "ghost"])


def test_missing_dependency():
    registry = registry_of(PluginSpec("a", "1.0", ("b>=1",)))
    with pytest.raises(MissingDependencyError):
        resolve_load_order(registry, ["a"])


def test_version_conflicts_use_package_rules():
    registry = registry_of(
        PluginSpec("core", "1.2"),
        PluginSpec("old", "1.0", ("core<1.2",)),
        PluginSpec("exact", "1.0", ("core==1.2.0",)),
        PluginSpec("newer", "1.0", ("core > 1.1.9",)),
    )
    with pytest.raises(VersionConflictError):
        resolve_load_order(registry, ["old"])
    assert resolve_load_order(registry, ["exact", "newer"]) == ["core", "exact", "newer"]


def test_cycles_detected():
    registry = registry_of(
        PluginSpec("a", "1", ("b",)),
        PluginSpec("b", "1", ("c",)),
        PluginSpec("c", "1", ("a",)),
        PluginSpec("selfish", "1", ("selfish",)),
        PluginSpec("free", "1"),
    )
    with pytest.raises(DependencyCycleError):
        resolve_load_order(registry, ["free", "a"])
    with pytest.raises(DependencyCycleError):
        resolve_load_order(registry, ["selfish"])
    assert resolve_load_order(registry, ["free"]) == ["free"]


def test_errors_share_base_class():
    registry = registry_of(PluginSpec("a", "1", ("a",)))
    with pytest.raises(PluginError):
        resolve_load_order(registry, ["a"])


def test_priority_never_breaks_dependencies():
    registry = registry_of(
        PluginSpec("base", "1", priority=-10),
        PluginSpec("top", "1", ("base",), priority=100),
        PluginSpec("mid", "1", priority=50),
    )
    assert resolve_load_order(registry, ["top", "mid"]) == ["mid", "base", "top"]


def test_long_chain():
    specs = [PluginSpec(f"p{i:03d}", "1.0", (f"p{i + 1:03d}>=1",) if i < 299 else ()) for i in range(300)]
    order = resolve_load_order(registry_of(*specs), ["p000"])
    assert order == [f"p{i:03d}" for i in range(299, -1, -1)]
