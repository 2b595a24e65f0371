class LogicalClock:
    """A counter that gives every event a strictly increasing timestamp."""

    def __init__(self) -> None:
        self._now = 0

    def tick(self) -> int:
        self._now += 1
        return self._now
