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
    specs: dict[str, PluginSpec] = {}
    requires: dict[str, set[str]] = {}
    pending = [registry.get(name) for name in enabled]
    while pending:
        spec = pending.pop()
        if spec.name in specs:
            continue
        specs[spec.name] = spec
        requires[spec.name] = set()
        for text in spec.requires:
            requirement = version.parse_requirement(text)
            if requirement.name not in registry:
                raise MissingDependencyError(f"{spec.name} requires unknown plugin {requirement.name!r}")
            dependency = registry.get(requirement.name)
            if not version.satisfies(dependency.version, requirement):
                raise VersionConflictError(f"{spec.name} requires {text!r}, found {dependency.version}")
            requires[spec.name].add(dependency.name)
            pending.append(dependency)
    dependents: dict[str, list[str]] = {name: [] for name in specs}
    for name, needed in requires.items():
        for dependency in needed:
            dependents[dependency].append(name)
    waiting = {name: len(needed) for name, needed in requires.items()}
    ready = [(-specs[name].priority, name) for name, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, name = heapq.heappop(ready)
        order.append(name)
        for dependent in dependents[name]:
            waiting[dependent] -= 1
            if waiting[dependent] == 0:
                heapq.heappush(ready, (-specs[dependent].priority, dependent))
    if len(order) != len(specs):
        stuck = sorted(name for name, count in waiting.items() if count > 0)
        raise DependencyCycleError(f"dependency cycle among {stuck}")
    return order
