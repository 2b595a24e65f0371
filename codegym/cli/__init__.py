"""The `codegym` command line: parse, call one package function, render with rich."""
