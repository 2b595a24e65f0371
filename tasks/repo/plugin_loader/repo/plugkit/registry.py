from dataclasses import dataclass

from plugkit.errors import PluginError, UnknownPluginError


@dataclass(frozen=True)
class PluginSpec:
    name: str
    version: str
    requires: tuple[str, ...] = ()
    """Requirement strings, e.g. ("core>=1.2", "auth")."""
    priority: int = 0
    """Among plugins that could be loaded next, higher priority loads first."""


class Registry:
    def __init__(self) -> None:
        self._specs: dict[str, PluginSpec] = {}

    def register(self, spec: PluginSpec) -> None:
        if spec.name in self._specs:
            raise PluginError(f"plugin {spec.name!r} registered twice")
        self._specs[spec.name] = spec

    def get(self, name: str) -> PluginSpec:
        try:
            return self._specs[name]
        except KeyError:
            raise UnknownPluginError(name) from None

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def names(self) -> list[str]:
        return sorted(self._specs)
