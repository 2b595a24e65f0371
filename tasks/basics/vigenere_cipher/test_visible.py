from solution import vigenere


def test_classic_example():
    assert vigenere("ATTACK AT DAWN", "LEMON") == "LXFOPV EF RNHR"


def test_decrypt():
    assert vigenere("LXFOPV EF RNHR", "lemon", decrypt=True) == "ATTACK AT DAWN"
