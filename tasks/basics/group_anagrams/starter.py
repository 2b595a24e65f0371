def group_anagrams(words: list[str]) -> list[list[str]]:
    """Group the anagrams in `words`, ordering groups by first appearance."""
