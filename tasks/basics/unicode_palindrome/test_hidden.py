from solution import is_palindrome


def test_classic_sentence():
    assert is_palindrome("A man, a plan, a canal: Panama") is True
    assert is_palindrome("No 'x' in Nixon") is True


def test_accents_are_stripped():
    assert is_palindrome("Ésope reste ici et se repose") is True
    assert is_palindrome("Ésope reste ici et se reposé") is True


def test_not_palindromes():
    assert is_palindrome("hello") is False
    assert is_palindrome("ab") is False
    assert is_palindrome("Ésope reste ici et se reposa") is False


def test_empty_and_punctuation_only():
    assert is_palindrome("") is True
    assert is_palindrome("  !?, ") is True


def test_casefold_sharp_s():
    assert is_palindrome("Saß") is False
    assert is_palindrome("sSß") is True


def test_compatibility_decomposition():
    assert is_palindrome("ﬁf") is True
    assert is_palindrome("①1") is True


def test_digits_count():
    assert is_palindrome("12321") is True
    assert is_palindrome("1a2") is False


def test_non_latin():
    assert is_palindrome("たけやぶやけた") is True
    assert is_palindrome("日本") is False


def test_long_input():
    half = "Ab, c" * 20000
    assert is_palindrome(half + half[::-1]) is True
    assert is_palindrome(half + "x" + half) is False
