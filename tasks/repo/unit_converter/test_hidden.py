import pytest

from unitconv.convert import convert
from unitconv.errors import ConversionError, IncompatibleUnitsError, UnknownUnitError


def test_length_conversions():
    assert convert("1 mi", "km") == "1.609 km"
    assert convert("12 in", "ft") == "1 ft"
    assert convert("2.5km", "meters") == "2500 m"


def test_digits_parameter():
    assert convert("1 mi", "km", digits=7) == "1.609344 km"
    assert convert("1 mi", "km", digits=2) == "1.6 km"


def test_temperatures_with_offsets():
    assert convert("100 C", "F") == "212 F"
    assert convert("-40 °F", "celsius") == "-40 C"
    assert convert("0 K", "C") == "-273.1 C"
    assert convert("0 K", "C", digits=5) == "-273.15 C"
    assert convert("32 F", "C") == "0 C"


def test_mass_and_volume():
    assert convert("1 lb", "g") == "453.6 g"
    assert convert("16 oz", "pounds") == "1 lb"
    assert convert("1 gallon", "l") == "3.785 l"
    assert convert("250 ml", "Liters") == "0.25 l"


def test_scientific_notation_and_large_values():
    assert convert("1e6 mm", "km") == "1 km"
    assert convert("5e3 km", "m") == "5e+06 m"


def test_unknown_units():
    with pytest.raises(UnknownUnitError):
        convert("3 parsecs", "m")
    with pytest.raises(UnknownUnitError):
        convert("3 m", "furlong")


def test_symbols_are_case_sensitive_aliases_are_not():
    with pytest.raises(UnknownUnitError):
        convert("1 KM", "m")
    assert convert("1 Kilometer", "m") == "1000 m"


def test_incompatible_dimensions():
    with pytest.raises(IncompatibleUnitsError):
        convert("3 kg", "m")
    with pytest.raises(IncompatibleUnitsError):
        convert("20 C", "l")


def test_parse_errors_propagate():
    for bad in ("", "km", "1.2.3 m", "12", "1 2 m"):
        with pytest.raises(ConversionError):
            convert(bad, "m")
