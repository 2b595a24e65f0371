"""Known units. A value in a unit maps to the base unit of its dimension as
`base = value * factor + offset`."""

from dataclasses import dataclass

from unitconv.errors import UnknownUnitError


@dataclass(frozen=True)
class Unit:
    symbol: str
    dimension: str
    factor: float
    offset: float = 0.0

    def to_base(self, value: float) -> float:
        return value * self.factor + self.offset

    def from_base(self, value: float) -> float:
        return (value - self.offset) / self.factor


UNITS = {
    unit.symbol: unit
    for unit in (
        Unit("m", "length", 1.0),
        Unit("km", "length", 1000.0),
        Unit("cm", "length", 0.01),
        Unit("mm", "length", 0.001),
        Unit("in", "length", 0.0254),
        Unit("ft", "length", 0.3048),
        Unit("mi", "length", 1609.344),
        Unit("g", "mass", 0.001),
        Unit("kg", "mass", 1.0),
        Unit("lb", "mass", 0.45359237),
        Unit("oz", "mass", 0.028349523125),
        Unit("K", "temperature", 1.0),
        Unit("C", "temperature", 1.0, 273.15),
        Unit("F", "temperature", 5 / 9, 273.15 - 32 * 5 / 9),
        Unit("l", "volume", 0.001),
        Unit("ml", "volume", 0.000001),
        Unit("gal", "volume", 0.003785411784),
    )
}

ALIASES = {
    "meter": "m", "meters": "m", "metre": "m", "metres": "m",
    "kilometer": "km", "kilometers": "km", "inch": "in", "inches": "in",
    "foot": "ft", "feet": "ft", "mile": "mi", "miles": "mi",
    "gram": "g", "grams": "g", "kilogram": "kg", "kilograms": "kg",
    "pound": "lb", "pounds": "lb", "lbs": "lb", "ounce": "oz", "ounces": "oz",
    "kelvin": "K", "celsius": "C", "°c": "C", "fahrenheit": "F", "°f": "F",
    "liter": "l", "litre": "l", "liters": "l", "litres": "l", "gallon": "gal", "gallons": "gal",
}


def lookup(name: str) -> Unit:
    """Find a unit by exact symbol, or by alias (aliases are case-insensitive)."""
    if name in UNITS:
        return UNITS[name]
    symbol = ALIASES.get(name.lower())
    if symbol is None:
        raise UnknownUnitError(f"unknown unit {name!r}")
    return UNITS[symbol]
