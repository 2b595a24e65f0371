from decimal import Decimal

from billing.invoice import build_invoice
from billing.models import Customer, LineItem


def test_single_domestic_line():
    invoice = build_invoice(Customer("Ana", "FR"), [LineItem("Book", Decimal("1.25"), 1, "intermediate")])
    (line,) = invoice.lines
    assert (line.net, line.tax_rate, line.tax) == (Decimal("1.25"), Decimal("0.10"), Decimal("0.13"))
    assert invoice.gross_total == Decimal("1.38")


def test_export_is_zero_rated():
    invoice = build_invoice(Customer("Bob", "US"), [LineItem("Lamp", Decimal("40.00"))])
    assert invoice.tax_total == Decimal("0.00")
