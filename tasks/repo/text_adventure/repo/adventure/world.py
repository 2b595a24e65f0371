"""Rooms and the default world."""

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Room:
    name: str
    description: str
    exits: dict[str, str]
    locks: dict[str, str] = field(default_factory=dict)
    """direction -> item the player must carry to pass"""

    def describe(self, items: Iterable[str]) -> str:
        lines = [self.name, self.description]
        items = sorted(items)
        if items:
            lines.append("You see: " + ", ".join(items) + ".")
        lines.append("Exits: " + (", ".join(sorted(self.exits)) or "none") + ".")
        return "\n".join(lines)


START_ITEMS = {"hall": ("lamp",), "library": ("book", "brass key"), "garden": ("rose",)}


def build_world() -> dict[str, Room]:
    return {
        "hall": Room("Hall", "A draughty entrance hall.", {"north": "library", "east": "garden"}),
        "library": Room(
            "Library", "Dusty shelves everywhere.", {"south": "hall", "down": "vault"}, {"down": "brass key"}
        ),
        "garden": Room("Garden", "Overgrown roses.", {"west": "hall"}),
        "vault": Room("Vault", "Cold and silent.", {"up": "library"}),
    }
