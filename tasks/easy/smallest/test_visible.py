from solution import smallest


def test_0():
    assert smallest([1, 5, 3]) == 1
