"""Physical unit conversion."""
