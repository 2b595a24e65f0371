class SchedulingError(Exception):
    """Invalid scheduling request."""


class ConflictError(SchedulingError):
    """Two events overlap."""
