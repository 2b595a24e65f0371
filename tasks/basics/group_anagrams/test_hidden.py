from solution import group_anagrams


def test_example():
    assert group_anagrams(["eat", "tea", "tan", "ate", "nat", "bat"]) == [
        ["eat", "tea", "ate"],
        ["tan", "nat"],
        ["bat"],
    ]


def test_empty_input():
    assert group_anagrams([]) == []


def test_empty_strings_and_duplicates():
    assert group_anagrams(["", "a", "", "a"]) == [["", ""], ["a", "a"]]


def test_case_sensitive():
    assert group_anagrams(["Listen", "Silent", "silent", "enlist"]) == [
        ["Listen"],
        ["Silent"],
        ["silent", "enlist"],
    ]


def test_multiplicity_matters():
    assert group_anagrams(["aab", "abb", "bba", "baa"]) == [["aab", "baa"], ["abb", "bba"]]


def test_spaces_and_unicode():
    assert group_anagrams(["dormitory", "dirty room", "dirtyroom", "été", "téé", "tee"]) == [
        ["dormitory", "dirtyroom"],
        ["dirty room"],
        ["été", "téé"],
        ["tee"],
    ]


def test_all_distinct():
    assert group_anagrams(["x", "y", "z"]) == [["x"], ["y"], ["z"]]


def test_large_input():
    words = ["".join(p) for p in ("abcd", "bcda", "cdab", "dabc")] * 10000 + ["zzzz"]
    result = group_anagrams(words)
    assert len(result) == 2
    assert len(result[0]) == 40000
    assert result[1] == ["zzzz"]
