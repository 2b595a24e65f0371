"""A tiny WSGI-free HTTP router."""
