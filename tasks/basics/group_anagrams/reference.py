def group_anagrams(words: list[str]) -> list[list[str]]:
    """Group the anagrams in `words`, ordering groups by first appearance."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault("".join(sorted(word)), []).append(word)
    return list(groups.values())
