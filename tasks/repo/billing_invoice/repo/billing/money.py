"""Money helpers. All amounts are `Decimal`s in the invoice currency."""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def to_decimal(value: Decimal | int | str) -> Decimal:
    """Convert `value` to a Decimal (strings and ints are exact)."""
    return value if isinstance(value, Decimal) else Decimal(value)


def round_money(amount: Decimal) -> Decimal:
    """Round to whole cents, halves away from zero (commercial rounding)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def format_money(amount: Decimal, currency: str = "EUR") -> str:
    return f"{round_money(amount):,.2f} {currency}"
