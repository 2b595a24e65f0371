import re


def roman_to_int(numeral: str) -> int:
    """Return the value of the canonical uppercase Roman numeral `numeral`."""
    pattern = r"M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})"
    if not numeral or re.fullmatch(pattern, numeral) is None:
        raise ValueError(f"not a canonical Roman numeral: {numeral!r}")
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    total = 0
    for i, ch in enumerate(numeral):
        value = values[ch]
        if i + 1 < len(numeral) and values[numeral[i + 1]] > value:
            total -= value
        else:
            total += value
    return total
