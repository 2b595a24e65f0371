from unitconv.errors import IncompatibleUnitsError
from unitconv.quantity import format_quantity, parse_quantity
from unitconv.registry import lookup


def convert(text: str, target: str, digits: int = 4) -> str:
    """Convert a quantity such as "12.5 km" into `target` units and format the result."""
