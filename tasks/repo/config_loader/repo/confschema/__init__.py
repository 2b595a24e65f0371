"""Typed configuration files validated against a schema."""
