"""VAT rules for a seller established in France."""

from decimal import Decimal

HOME_COUNTRY = "FR"

EU_COUNTRIES = frozenset({
    "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU",
    "IE", "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
})

RATES = {
    "standard": Decimal("0.20"),
    "intermediate": Decimal("0.10"),
    "reduced": Decimal("0.055"),
    "exempt": Decimal(0),
}


def tax_rate(category: str, country: str, *, business: bool = False) -> Decimal:
    """VAT rate for selling goods of `category` to a customer located in `country`.

    Exports outside the EU are zero-rated. Sales to businesses in another EU country fall under
    the reverse-charge mechanism and are zero-rated too. Every other sale pays the home rate.
    """
    if category not in RATES:
        raise ValueError(f"unknown tax category {category!r}")
    if country not in EU_COUNTRIES:
        return Decimal(0)
    if business and country != HOME_COUNTRY:
        return Decimal(0)
    return RATES[category]
