"""Parsing and formatting quantities such as '12.5 km'."""

import re

from unitconv.errors import ConversionError

_QUANTITY = re.compile(r"\s*([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(\S+)\s*")


def parse_quantity(text: str) -> tuple[float, str]:
    """Split '12.5 km' / '-3°C' style text into (value, unit name)."""
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise ConversionError(f"cannot parse quantity {text!r}")
    return float(match.group(1)), match.group(2)


def format_quantity(value: float, symbol: str, digits: int = 4) -> str:
    """Format with `digits` significant digits, e.g. format_quantity(1.609344, "km") -> '1.609 km'."""
    if digits < 1:
        raise ValueError("digits must be positive")
    text = f"{value:.{digits}g}"
    if text in ("-0", "-0.0"):
        text = "0"
    return f"{text} {symbol}"
