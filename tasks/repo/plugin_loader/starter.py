import heapq

from plugkit import version
from plugkit.errors import (
    DependencyCycleError,
    MissingDependencyError,
    VersionConflictError,
)
from plugkit.registry import PluginSpec, Registry


def resolve_load_order(registry: Registry, enabled: list[str]) -> list[str]:
    """Return the enabled plugins and their dependencies in a valid load order."""
