"""Invoice data model."""

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Customer:
    name: str
    country: str
    business: bool = False
    discount_percent: Decimal = Decimal(0)


@dataclass(frozen=True)
class LineItem:
    description: str
    unit_price: Decimal
    quantity: int = 1
    category: str = "standard"

    def net(self) -> Decimal:
        """Undiscounted, unrounded net amount."""
        return self.unit_price * self.quantity


@dataclass(frozen=True)
class InvoiceLine:
    description: str
    net: Decimal
    tax_rate: Decimal
    tax: Decimal

    @property
    def gross(self) -> Decimal:
        return self.net + self.tax


@dataclass(frozen=True)
class Invoice:
    customer: Customer
    lines: tuple[InvoiceLine, ...]
    net_total: Decimal
    tax_total: Decimal
    gross_total: Decimal
