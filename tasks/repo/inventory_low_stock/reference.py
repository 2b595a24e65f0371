import math

from inventory import units

from .storage import Warehouse


def low_stock_report(warehouse: Warehouse) -> list[dict]:
    """Return the active items whose available stock is below their reorder level."""
    rows: list[dict] = []
    for item in warehouse.active_items():
        available = item.on_hand() - warehouse.reserved(item.sku)
        shortfall = item.threshold() - available
        if shortfall <= 0:
            continue
        rows.append(
            {
                "sku": item.sku,
                "name": item.name,
                "available": available,
                "shortfall": shortfall,
                "packs_to_order": math.ceil(shortfall / units.pack_size(item.unit)),
            }
        )
    rows.sort(key=lambda row: (-row["shortfall"], row["sku"]))
    return rows
