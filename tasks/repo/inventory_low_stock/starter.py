import math

from inventory import units

from .storage import Warehouse


def low_stock_report(warehouse: Warehouse) -> list[dict]:
    """Return the active items whose available stock is below their reorder level."""
