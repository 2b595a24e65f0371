"""Source samples shared by the codegym.context tests."""

# kept out of the fixture tree because ruff lints tests/ and would reject the syntax error
BROKEN = '''"""A file with a syntax error in the middle: the rest must still be parsed."""


def before_error(x):
    return x + 1


def oops(:
    return ]


class AfterError:
    def still_here(self) -> int:
        return 42


def last_one() -> str:
    return "ok"
'''

LATIN1 = (
    '# -*- coding: latin-1 -*-\n"""Caf\xe9 helpers."""\n\n\n'
    'def caf\u00e9_name() -> str:\n    return "caf\xe9"\n\n\nPRICE = 3\n'
)
