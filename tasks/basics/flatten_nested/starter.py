def flatten(items: list | tuple, depth: int | None = None) -> list:
    """Flatten nested lists/tuples in `items`, expanding at most `depth` levels (None: all)."""
