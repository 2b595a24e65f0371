"""The errors codegym raises on purpose, and the one "did you mean" helper.

`CodegymError` is the base of every error that names a mistake in the user's input or setup (a pack,
a config field, a flag, a file): the CLI prints it as one line and exits 2. Any other exception is a
bug in codegym: the CLI prints a short message and the path of a file holding the traceback, and
exits 4 (`--debug` prints the traceback instead).

Exit codes of every command: 0 done; 1 done, but nothing valid to judge or some rows failed to be
processed; 2 user error; 3 training stopped by a safety stop; 4 internal error (a bug).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

EXIT_DONE = 0
EXIT_PARTIAL = 1
EXIT_USER_ERROR = 2
EXIT_SAFETY_STOP = 3
EXIT_INTERNAL_ERROR = 4


@dataclass(frozen=True)
class Setting:
    """A setting the user can change, named in library terms — a parameter or config field such as
    `ks`, `overwrite`, `output.dir` — with the value to give it where a message suggests one. An
    error names it as a typed part of its message, so a library caller reads `overwrite=True` and
    the CLI shows its own flag (`--overwrite`): flag names live in the CLI alone."""

    name: str
    value: str | bool | None = None  # None: the setting itself ("choose another out_dir")

    def __str__(self) -> str:
        if self.value is None:
            return self.name
        return f"{self.name}={self.value!r}"


class CodegymError(Exception):
    """A mistake in codegym's input or setup, with a message that says what and where.

    The message may be given in parts, text and `Setting`s: `str(error)` writes the settings in
    library terms, `error.render(name_setting)` as the caller names them (the CLI: as flags)."""

    def __init__(self, *parts: str | Setting) -> None:
        super().__init__(*parts)
        self.parts = parts

    @property
    def settings(self) -> tuple[Setting, ...]:
        """The settings the message names (what the user can change to get past it)."""
        return tuple(part for part in self.parts if isinstance(part, Setting))

    def render(self, name_setting: Callable[[Setting], str]) -> str:
        parts = getattr(self, "parts", ())  # absent where a subclass sets its own arguments
        if not any(isinstance(part, Setting) for part in parts):
            return super().__str__()  # a plain message
        return "".join(part if isinstance(part, str) else name_setting(part) for part in parts)

    def __str__(self) -> str:
        return self.render(str)


class BadValue(CodegymError, ValueError):
    """A value given by the user (a flag, an option) that cannot be used."""


def did_you_mean(name: str, valid: Iterable[str], *, count: int = 3, aside: bool = False) -> str:
    """ " Did you mean 'x', 'y'?" for the valid names closest to `name` ('' when none is close); with
    `aside`, " (did you mean 'x' or 'y'?)" for the middle of a sentence."""
    close = difflib.get_close_matches(name, list(valid), n=count)
    if not close:
        return ""
    if aside:
        return f" (did you mean {' or '.join(map(repr, close))}?)"
    return f" Did you mean {', '.join(map(repr, close))}?"
