"""Plugin registry with versioned dependencies."""
