"""Immutable game state."""

from collections.abc import Mapping
from dataclasses import dataclass, replace

from adventure.world import START_ITEMS


@dataclass(frozen=True)
class GameState:
    room: str
    inventory: tuple[str, ...] = ()
    """Carried items, always sorted alphabetically."""
    room_items: Mapping[str, tuple[str, ...]] = None  # type: ignore[assignment]
    moves: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "room_items", dict(self.room_items or {}))

    def items_here(self) -> tuple[str, ...]:
        return tuple(self.room_items.get(self.room, ()))

    def with_changes(self, **changes: object) -> "GameState":
        """A copy of this state with some fields replaced (the original is untouched)."""
        return replace(self, **changes)


def new_game() -> GameState:
    return GameState("hall", (), {room: tuple(items) for room, items in START_ITEMS.items()})
