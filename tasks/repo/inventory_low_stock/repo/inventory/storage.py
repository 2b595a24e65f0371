"""In-memory warehouse with reservations."""

from inventory.models import Item


class Warehouse:
    """Holds items by SKU and tracks pieces reserved for open orders."""

    def __init__(self) -> None:
        self._items: dict[str, Item] = {}
        self._reservations: dict[str, int] = {}

    def add(self, item: Item) -> None:
        if item.sku in self._items:
            raise ValueError(f"duplicate SKU {item.sku!r}")
        self._items[item.sku] = item

    def get(self, sku: str) -> Item:
        return self._items[sku]

    def reserve(self, sku: str, pieces: int) -> None:
        """Reserve `pieces` single pieces of `sku` for an open order."""
        if sku not in self._items:
            raise KeyError(sku)
        if pieces <= 0:
            raise ValueError("pieces must be positive")
        self._reservations[sku] = self._reservations.get(sku, 0) + pieces

    def reserved(self, sku: str) -> int:
        """Pieces of `sku` currently reserved (0 if none)."""
        return self._reservations.get(sku, 0)

    def active_items(self) -> list[Item]:
        """Items that are not discontinued, sorted by SKU."""
        return sorted((i for i in self._items.values() if not i.discontinued), key=lambda i: i.sku)

    def __len__(self) -> int:
        return len(self._items)
