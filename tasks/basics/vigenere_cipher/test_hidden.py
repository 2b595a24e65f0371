import pytest

from solution import vigenere


def test_classic_example():
    assert vigenere("ATTACKATDAWN", "LEMON") == "LXFOPVEFRNHR"


def test_non_letters_do_not_consume_key():
    assert vigenere("ATTACK AT DAWN", "LEMON") == "LXFOPV EF RNHR"
    assert vigenere("a-a-a", "ab") == "a-b-a"


def test_case_preserved_and_key_case_insensitive():
    assert vigenere("Hello, World", "b") == "Ifmmp, Xpsme"
    assert vigenere("Hello, World", "KEY") == vigenere("Hello, World", "key")


def test_key_a_is_identity():
    assert vigenere("Nothing changes 42!", "aaa") == "Nothing changes 42!"


def test_decrypt_round_trip_with_unicode():
    text = "Grüße aus Köln, 2024 — naïve café"
    secret = vigenere(text, "Schluessel")
    assert secret != text
    assert "ü" in secret and "—" in secret
    assert vigenere(secret, "SCHLUESSEL", decrypt=True) == text


def test_wraps_past_z():
    assert vigenere("xyz", "d") == "abc"
    assert vigenere("abc", "d", decrypt=True) == "xyz"


def test_invalid_keys():
    for bad in ("", "abc1", "key word", "clé"):
        with pytest.raises(ValueError):
            vigenere("text", bad)


def test_empty_text():
    assert vigenere("", "key") == ""


def test_long_text():
    text = "attack at dawn " * 5000
    secret = vigenere(text, "lemon")
    assert secret.startswith("lxfopv ef rnhr ")
    assert vigenere(secret, "lemon", decrypt=True) == text
