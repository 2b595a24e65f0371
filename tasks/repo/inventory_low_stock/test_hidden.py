from inventory.models import DEFAULT_REORDER_LEVEL, Item
from inventory.report import low_stock_report
from inventory.storage import Warehouse


def make(*items):
    wh = Warehouse()
    for item in items:
        wh.add(item)
    return wh


def test_example_item():
    wh = make(Item("A-1", "Bolts", quantity=1, unit="dozen", reorder_level=30))
    wh.reserve("A-1", 4)
    assert low_stock_report(wh) == [
        {"sku": "A-1", "name": "Bolts", "available": 8, "shortfall": 22, "packs_to_order": 2}
    ]


def test_empty_warehouse():
    assert low_stock_report(Warehouse()) == []


def test_default_reorder_level_used():
    wh = make(
        Item("B", "Nuts", quantity=DEFAULT_REORDER_LEVEL - 3),
        Item("C", "Pins", quantity=DEFAULT_REORDER_LEVEL),
    )
    assert low_stock_report(wh) == [
        {
            "sku": "B",
            "name": "Nuts",
            "available": DEFAULT_REORDER_LEVEL - 3,
            "shortfall": 3,
            "packs_to_order": 3,
        }
    ]


def test_units_are_converted_to_pieces():
    wh = make(
        Item("D", "Gloves", quantity=4, unit="pair", reorder_level=8),
        Item("E", "Crates", quantity=1, unit="case", reorder_level=24),
    )
    assert low_stock_report(wh) == []
    wh.reserve("D", 1)
    assert low_stock_report(wh) == [
        {"sku": "D", "name": "Gloves", "available": 7, "shortfall": 1, "packs_to_order": 1}
    ]


def test_discontinued_items_skipped():
    wh = make(Item("X", "Old", quantity=0, discontinued=True), Item("Y", "New", quantity=0, reorder_level=1))
    assert [row["sku"] for row in low_stock_report(wh)] == ["Y"]


def test_negative_available_and_pallets():
    wh = make(Item("P", "Bricks", quantity=1, unit="pallet", reorder_level=1000))
    wh.reserve("P", 500)
    (row,) = low_stock_report(wh)
    assert row["available"] == -20
    assert row["shortfall"] == 1020
    assert row["packs_to_order"] == 3


def test_sorted_by_shortfall_then_sku():
    wh = make(
        Item("m", "M", quantity=0, reorder_level=5),
        Item("a", "A", quantity=0, reorder_level=5),
        Item("z", "Z", quantity=0, reorder_level=50),
        Item("k", "K", quantity=100, reorder_level=5),
    )
    assert [row["sku"] for row in low_stock_report(wh)] == ["z", "a", "m"]


def test_exact_pack_multiple():
    wh = make(Item("Q", "Eggs", quantity=0, unit="dozen", reorder_level=24))
    assert low_stock_report(wh)[0]["packs_to_order"] == 2


def test_zero_reorder_level_never_reported_unless_negative():
    wh = make(Item("R", "Rare", quantity=0, reorder_level=0), Item("S", "Sold", quantity=1, reorder_level=0))
    assert low_stock_report(wh) == []
    wh.reserve("S", 3)
    assert low_stock_report(wh) == [
        {"sku": "S", "name": "Sold", "available": -2, "shortfall": 2, "packs_to_order": 2}
    ]
