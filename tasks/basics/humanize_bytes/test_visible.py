from solution import humanize_bytes


def test_decimal():
    assert humanize_bytes(1500) == "1.5 kB"


def test_binary():
    assert humanize_bytes(1536, binary=True) == "1.5 KiB"


def test_bytes():
    assert humanize_bytes(999) == "999 B"
