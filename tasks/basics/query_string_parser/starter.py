from urllib.parse import unquote_plus


def parse_query_string(query: str) -> dict[str, list[str]]:
    """Parse a URL query string into a mapping of name -> list of values."""
