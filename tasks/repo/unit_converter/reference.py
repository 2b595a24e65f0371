from unitconv.errors import IncompatibleUnitsError
from unitconv.quantity import format_quantity, parse_quantity
from unitconv.registry import lookup


def convert(text: str, target: str, digits: int = 4) -> str:
    """Convert a quantity such as "12.5 km" into `target` units and format the result."""
    value, unit_name = parse_quantity(text)
    source = lookup(unit_name)
    destination = lookup(target)
    if source.dimension != destination.dimension:
        raise IncompatibleUnitsError(f"cannot convert {source.dimension} to {destination.dimension}")
    converted = destination.from_base(source.to_base(value))
    return format_quantity(converted, destination.symbol, digits)
