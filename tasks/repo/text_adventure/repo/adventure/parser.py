"""Turning player input into (verb, object) pairs."""

DIRECTIONS = {
    "n": "north", "s": "south", "e": "east", "w": "west", "u": "up", "d": "down",
    "north": "north", "south": "south", "east": "east", "west": "west", "up": "up", "down": "down",
}

VERB_SYNONYMS = {
    "go": "go", "walk": "go", "move": "go",
    "take": "take", "get": "take", "grab": "take",
    "drop": "drop", "leave": "drop",
    "look": "look", "l": "look",
    "inventory": "inventory", "inv": "inventory", "i": "inventory",
}

ARTICLES = frozenset({"a", "an", "the"})


def parse_command(text: str) -> tuple[str, str | None]:
    """Normalise a command: ("go", "north"), ("take", "brass key"), ("look", None), ...

    Unknown verbs are returned unchanged; empty input gives ("", None).
    """
    words = [word for word in text.lower().split() if word not in ARTICLES]
    if not words:
        return "", None
    if len(words) == 1 and words[0] in DIRECTIONS:
        return "go", DIRECTIONS[words[0]]
    verb = VERB_SYNONYMS.get(words[0], words[0])
    obj = " ".join(words[1:]) or None
    if verb == "go" and obj in DIRECTIONS:
        obj = DIRECTIONS[obj]
    return verb, obj
