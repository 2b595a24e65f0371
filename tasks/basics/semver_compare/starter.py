import re


def compare_versions(a: str, b: str) -> int:
    """Compare two SemVer 2.0.0 version strings; return -1, 0 or 1."""
