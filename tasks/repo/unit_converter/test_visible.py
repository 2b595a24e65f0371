from unitconv.convert import convert


def test_miles_to_km():
    assert convert("1 mi", "km") == "1.609 km"


def test_temperature_aliases():
    assert convert("100 celsius", "fahrenheit") == "212 F"
