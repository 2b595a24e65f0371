import re


def roman_to_int(numeral: str) -> int:
    """Return the value of the canonical uppercase Roman numeral `numeral`."""
