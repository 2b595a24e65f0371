"""Route patterns such as '/users/<int:user_id>/posts/<slug:title>'."""

import re
from collections.abc import Callable
from dataclasses import dataclass

CONVERTERS: dict[str, tuple[str, Callable[[str], object]]] = {
    "str": (r"[^/]+", str),
    "int": (r"[0-9]+", int),
    "slug": (r"[a-z0-9]+(?:-[a-z0-9]+)*", str),
}

_PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")


def compile_pattern(pattern: str) -> tuple[re.Pattern[str], dict[str, Callable[[str], object]]]:
    """Compile a route pattern into a regex with one named group per parameter."""
    converters: dict[str, Callable[[str], object]] = {}
    parts: list[str] = []
    position = 0
    for match in _PARAM.finditer(pattern):
        kind, name = match.group(1) or "str", match.group(2)
        if kind not in CONVERTERS:
            raise ValueError(f"unknown converter {kind!r} in {pattern!r}")
        regex, convert = CONVERTERS[kind]
        parts.append(re.escape(pattern[position : match.start()]))
        parts.append(f"(?P<{name}>{regex})")
        converters[name] = convert
        position = match.end()
    parts.append(re.escape(pattern[position:]))
    return re.compile("".join(parts)), converters


@dataclass(frozen=True)
class Route:
    method: str
    pattern: str
    handler: Callable
    regex: re.Pattern[str]
    converters: dict[str, Callable[[str], object]]

    def match(self, path: str) -> dict[str, object] | None:
        """Converted path parameters if `path` matches this route's pattern, else None."""
        found = self.regex.fullmatch(path)
        if found is None:
            return None
        return {name: self.converters[name](value) for name, value in found.groupdict().items()}


class Router:
    """An ordered list of routes; earlier routes win."""

    def __init__(self) -> None:
        self.routes: list[Route] = []

    def add(self, method: str, pattern: str, handler: Callable) -> None:
        regex, converters = compile_pattern(pattern)
        self.routes.append(Route(method.upper(), pattern, handler, regex, converters))

    def route(self, method: str, pattern: str) -> Callable[[Callable], Callable]:
        def decorator(handler: Callable) -> Callable:
            self.add(method, pattern, handler)
            return handler

        return decorator
