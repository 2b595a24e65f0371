"""Domain objects."""

from dataclasses import dataclass

from inventory import units

DEFAULT_REORDER_LEVEL = 10


@dataclass(frozen=True)
class Item:
    """A stock-keeping unit. `quantity` is counted in packs of `unit`."""

    sku: str
    name: str
    quantity: int
    unit: str = "each"
    reorder_level: int | None = None
    discontinued: bool = False

    def on_hand(self) -> int:
        """Physical stock in single pieces."""
        return units.to_each(self.quantity, self.unit)

    def threshold(self) -> int:
        """Reorder level in single pieces (items without their own level use the default)."""
        return DEFAULT_REORDER_LEVEL if self.reorder_level is None else self.reorder_level
