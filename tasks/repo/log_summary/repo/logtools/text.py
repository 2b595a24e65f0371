import re

_DIGITS = re.compile(r"[0-9]+")
_SPACES = re.compile(r"\s+")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def fingerprint(message: str) -> str:
    """Group similar messages: quoted strings become '<str>', numbers '#', whitespace collapses.

    >>> fingerprint("user 'bob' failed 3 times")
    'user <str> failed # times'
    """
    message = _QUOTED.sub("<str>", message)
    message = _DIGITS.sub("#", message)
    return _SPACES.sub(" ", message).strip()
