"""Amounts are integer cents; these helpers convert to and from text."""

import re

_AMOUNT = re.compile(r"([0-9]+)(?:\.([0-9]{1,2}))?")


def parse_amount(text: str) -> int:
    """'12.3' -> 1230 cents. Only non-negative amounts with up to two decimals."""
    match = _AMOUNT.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"invalid amount {text!r}")
    whole, fraction = match.groups()
    return int(whole) * 100 + int((fraction or "0").ljust(2, "0"))


def format_cents(cents: int) -> str:
    """1234567 -> '12,345.67'; negative amounts get a leading '-'."""
    sign = "-" if cents < 0 else ""
    whole, fraction = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{fraction:02d}"
