import re


def compare_versions(a: str, b: str) -> int:
    """Compare two SemVer 2.0.0 version strings; return -1, 0 or 1."""
    number = r"0|[1-9][0-9]*"
    pre_ident = r"0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*"
    build_ident = r"[0-9A-Za-z-]+"
    pattern = re.compile(
        rf"({number})\.({number})\.({number})"
        rf"(?:-((?:{pre_ident})(?:\.(?:{pre_ident}))*))?"
        rf"(?:\+(?:{build_ident})(?:\.(?:{build_ident}))*)?"
    )

    def key(version: str) -> tuple:
        match = pattern.fullmatch(version)
        if match is None:
            raise ValueError(f"invalid semantic version: {version!r}")
        major, minor, patch, pre = match.groups()
        core = (int(major), int(minor), int(patch))
        if pre is None:
            return core, (1,)
        idents = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
        return core, (0, idents)

    key_a, key_b = key(a), key(b)
    return (key_a > key_b) - (key_a < key_b)
