def flatten(items: list | tuple, depth: int | None = None) -> list:
    """Flatten nested lists/tuples in `items`, expanding at most `depth` levels (None: all)."""
    if not isinstance(items, (list, tuple)):
        raise TypeError("items must be a list or tuple")
    if depth is not None and depth < 0:
        raise ValueError("depth must be non-negative")
    result: list = []
    stack = [(iter(items), 0)]
    while stack:
        iterator, level = stack[-1]
        for element in iterator:
            if isinstance(element, (list, tuple)) and (depth is None or level < depth):
                stack.append((iter(element), level + 1))
                break
            result.append(element)
        else:
            stack.pop()
    return result
