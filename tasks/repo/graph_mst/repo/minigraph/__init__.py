"""A small weighted graph library."""
