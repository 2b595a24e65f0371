"""Every sentence the game can print."""

MESSAGES = {
    "unknown": "I don't understand that.",
    "no_exit": "You can't go that way.",
    "locked": "The way {direction} is locked.",
    "moved": "You go {direction}.",
    "taken": "Taken: {item}.",
    "not_here": "There is no {item} here.",
    "dropped": "Dropped: {item}.",
    "not_carried": "You are not carrying the {item}.",
    "inventory_empty": "You are empty-handed.",
    "inventory": "You are carrying: {items}.",
}


def say(key: str, **values: str) -> str:
    """Render the message `key` with `values`."""
    return MESSAGES[key].format(**values)
