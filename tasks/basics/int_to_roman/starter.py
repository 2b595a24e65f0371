def int_to_roman(number: int) -> str:
    """Return the canonical Roman numeral for `number` (1..3999)."""
