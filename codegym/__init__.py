"""codegym: a Python code-generation RL gym (generate -> execute in a sandbox -> reward -> train)."""

__version__ = "0.2.0"
