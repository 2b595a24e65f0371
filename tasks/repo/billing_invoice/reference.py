from decimal import Decimal

from billing import tax
from billing.models import Customer, Invoice, InvoiceLine, LineItem
from billing.money import round_money


def build_invoice(customer: Customer, items: list[LineItem]) -> Invoice:
    """Price `items` for `customer` and return the finished invoice."""
    if not items:
        raise ValueError("an invoice needs at least one item")
    if not Decimal(0) <= customer.discount_percent <= Decimal(100):
        raise ValueError("discount_percent must be between 0 and 100")
    factor = 1 - customer.discount_percent / 100
    lines: list[InvoiceLine] = []
    for item in items:
        if item.quantity < 1:
            raise ValueError(f"invalid quantity for {item.description!r}")
        net = round_money(item.net() * factor)
        rate = tax.tax_rate(item.category, customer.country, business=customer.business)
        lines.append(InvoiceLine(item.description, net, rate, round_money(net * rate)))
    net_total = sum((line.net for line in lines), Decimal(0))
    tax_total = sum((line.tax for line in lines), Decimal(0))
    return Invoice(customer, tuple(lines), net_total, tax_total, net_total + tax_total)
