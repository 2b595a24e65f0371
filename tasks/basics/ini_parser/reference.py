def parse_ini(text: str) -> dict[str, dict[str, str]]:
    """Parse INI-style `text` into a mapping of section name -> {key: value}."""
    result: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1].strip()
            if not name:
                raise ValueError(f"line {lineno}: empty section name")
            current = result.setdefault(name, {})
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"line {lineno}: expected 'key = value' or '[section]'")
        key = key.strip().lower()
        if not key:
            raise ValueError(f"line {lineno}: empty key")
        if current is None:
            raise ValueError(f"line {lineno}: key outside of any section")
        current[key] = value.strip()
    return result
