from solution import compare_versions


def test_prerelease_lower():
    assert compare_versions("1.0.0-alpha", "1.0.0") == -1


def test_numeric_compare():
    assert compare_versions("1.10.0", "1.9.3") == 1
