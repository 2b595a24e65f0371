from urllib.parse import unquote_plus


def parse_query_string(query: str) -> dict[str, list[str]]:
    """Parse a URL query string into a mapping of name -> list of values."""
    query = query.removeprefix("?")
    result: dict[str, list[str]] = {}
    for segment in query.split("&"):
        if not segment:
            continue
        name, _, value = segment.partition("=")
        result.setdefault(unquote_plus(name), []).append(unquote_plus(value))
    return result
