from decimal import Decimal

from billing import tax
from billing.models import Customer, Invoice, InvoiceLine, LineItem
from billing.money import round_money


def build_invoice(customer: Customer, items: list[LineItem]) -> Invoice:
    """Price `items` for `customer` and return the finished invoice."""
