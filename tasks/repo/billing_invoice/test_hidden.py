from decimal import Decimal

import pytest

from billing.invoice import build_invoice
from billing.models import Customer, Invoice, LineItem

D = Decimal


def test_half_up_rounding_of_tax():
    invoice = build_invoice(Customer("Ana", "FR"), [LineItem("Book", D("1.25"), 1, "intermediate")])
    assert isinstance(invoice, Invoice)
    (line,) = invoice.lines
    assert line.tax == D("0.13")
    assert line.description == "Book"
    assert invoice.net_total == D("1.25")
    assert invoice.gross_total == D("1.38")


def test_multiple_lines_totals_are_sums_of_rounded_lines():
    items = [
        LineItem("Pen", D("1.99"), 3, "reduced"),
        LineItem("Desk", D("199.99"), 1, "standard"),
        LineItem("Stamp", D("1.16"), 1, "exempt"),
    ]
    invoice = build_invoice(Customer("Ana", "FR"), items)
    assert [line.net for line in invoice.lines] == [D("5.97"), D("199.99"), D("1.16")]
    assert [line.tax for line in invoice.lines] == [D("0.33"), D("40.00"), D("0.00")]
    assert [line.tax_rate for line in invoice.lines] == [D("0.055"), D("0.20"), D("0")]
    assert invoice.net_total == D("207.12")
    assert invoice.tax_total == D("40.33")
    assert invoice.gross_total == D("247.45")
    assert isinstance(invoice.lines, tuple)


def test_discount_applied_before_rounding():
    invoice = build_invoice(
        Customer("Cy", "FR", discount_percent=D("10")), [LineItem("Chair", D("19.99"), 1)]
    )
    (line,) = invoice.lines
    assert line.net == D("17.99")
    assert line.tax == D("3.60")


def test_export_outside_eu_zero_rated():
    invoice = build_invoice(Customer("Dee", "CH"), [LineItem("Watch", D("100"), 2)])
    assert invoice.lines[0].tax_rate == D("0")
    assert invoice.tax_total == D("0")
    assert invoice.gross_total == D("200.00")


def test_eu_business_reverse_charge_but_consumer_pays():
    items = [LineItem("Server", D("1000"), 1)]
    business = build_invoice(Customer("GmbH", "DE", business=True), items)
    consumer = build_invoice(Customer("Hans", "DE"), items)
    domestic_business = build_invoice(Customer("SARL", "FR", business=True), items)
    assert business.tax_total == D("0")
    assert consumer.tax_total == D("200.00")
    assert domestic_business.tax_total == D("200.00")


def test_customer_kept_on_invoice():
    customer = Customer("Eve", "IT")
    assert build_invoice(customer, [LineItem("Pasta", D("2.00"))]).customer == customer


def test_errors():
    customer = Customer("Ana", "FR")
    with pytest.raises(ValueError):
        build_invoice(customer, [])
    with pytest.raises(ValueError):
        build_invoice(customer, [LineItem("Bad", D("1"), 0)])
    with pytest.raises(ValueError):
        build_invoice(customer, [LineItem("Odd", D("1"), 1, "luxury")])
    with pytest.raises(ValueError):
        build_invoice(Customer("X", "FR", discount_percent=D("120")), [LineItem("A", D("1"))])


def test_full_discount():
    invoice = build_invoice(Customer("Vip", "FR", discount_percent=D("100")), [LineItem("Gift", D("50"))])
    assert invoice.gross_total == D("0")
