import re


def decode_runs(s: str) -> str:
    return "".join(letter * int(count) for count, letter in re.findall(r"(\d+)([a-z])", s))
