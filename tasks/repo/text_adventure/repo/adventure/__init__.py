"""A minimal text adventure engine."""
