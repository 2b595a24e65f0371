"""A tiny warehouse inventory package."""

__all__ = ["models", "storage", "units"]
