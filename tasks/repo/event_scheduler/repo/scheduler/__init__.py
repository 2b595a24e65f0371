"""Meeting scheduling for a single person."""
