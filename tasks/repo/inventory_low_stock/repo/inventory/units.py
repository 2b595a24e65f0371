"""Pack units. Stock is counted in packs but compared in single pieces."""

UNIT_SIZES = {"each": 1, "pair": 2, "dozen": 12, "case": 24, "pallet": 480}


def pack_size(unit: str) -> int:
    """Number of single pieces in one pack of `unit`."""
    try:
        return UNIT_SIZES[unit]
    except KeyError:
        raise ValueError(f"unknown unit {unit!r}") from None


def to_each(quantity: int, unit: str) -> int:
    """Convert `quantity` packs of `unit` into single pieces."""
    return quantity * pack_size(unit)
