"""Errors that name exactly what is wrong: pack, task, file and field."""

from __future__ import annotations

from collections.abc import Iterable

from codegym.errors import CodegymError, did_you_mean


class TaskPackError(CodegymError, ValueError):
    """A malformed task pack. The message names pack, task, file and field where they are known."""

    def __init__(
        self,
        message: str,
        *,
        pack: str | None = None,
        task: str | None = None,
        file: str | None = None,
        field: str | None = None,
    ) -> None:
        self.pack, self.task, self.file, self.field = pack, task, file, field
        self.reason = message
        where = ", ".join(
            f"{label} {value!r}"
            for label, value in (("pack", pack), ("task", task), ("file", file), ("field", field))
            if value
        )
        super().__init__(f"{where}: {message}" if where else message)


class UnknownNameError(CodegymError, KeyError):
    """An unknown pack/task/backend name; the message lists the valid names."""

    def __init__(self, kind: str, name: str, valid: Iterable[str], *, where: str = "") -> None:
        valid_names = sorted(valid)
        self.kind, self.name, self.valid = kind, name, valid_names
        hint = did_you_mean(name, valid_names)
        shown = ", ".join(valid_names[:40]) + (" ..." if len(valid_names) > 40 else "")
        location = f" in {where}" if where else ""
        self.message = f"unknown {kind} {name!r}{location}.{hint} Valid {kind} names: {shown or '(none)'}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message
