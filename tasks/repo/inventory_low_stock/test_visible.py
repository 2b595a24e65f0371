from inventory.models import Item
from inventory.report import low_stock_report
from inventory.storage import Warehouse


def test_example_item():
    wh = Warehouse()
    wh.add(Item("A-1", "Bolts", quantity=1, unit="dozen", reorder_level=30))
    wh.reserve("A-1", 4)
    assert low_stock_report(wh) == [
        {"sku": "A-1", "name": "Bolts", "available": 8, "shortfall": 22, "packs_to_order": 2}
    ]


def test_empty_warehouse():
    assert low_stock_report(Warehouse()) == []
