from solution import slugify


def test_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_accents():
    assert slugify("  Crème brûlée à Paris  ") == "creme-brulee-a-paris"
