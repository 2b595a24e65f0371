def is_balanced(text: str) -> bool:
    """Return True if (), [] and {} are balanced in `text`, ignoring quoted string literals."""
    closing_to_opening = {")": "(", "]": "[", "}": "{"}
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    for ch in text:
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            stack.append(ch)
        elif ch in closing_to_opening and (not stack or stack.pop() != closing_to_opening[ch]):
            return False
    return quote is None and not stack
