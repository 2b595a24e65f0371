def parse_ini(text: str) -> dict[str, dict[str, str]]:
    """Parse INI-style `text` into a mapping of section name -> {key: value}."""
