import re


def evaluate(expression: str) -> int | float:
    """Evaluate an arithmetic expression with + - * /, unary signs and parentheses."""
    tokens = re.findall(r"[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+|\S", expression)
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def advance() -> str | None:
        nonlocal pos
        token = peek()
        pos += 1
        return token

    def parse_expression() -> int | float:
        value = parse_term()
        while peek() in ("+", "-"):
            op = advance()
            rhs = parse_term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def parse_term() -> int | float:
        value = parse_unary()
        while peek() in ("*", "/"):
            op = advance()
            rhs = parse_unary()
            value = value * rhs if op == "*" else value / rhs
        return value

    def parse_unary() -> int | float:
        if peek() in ("+", "-"):
            op = advance()
            operand = parse_unary()
            return -operand if op == "-" else operand
        return parse_primary()

    def parse_primary() -> int | float:
        token = advance()
        if token is None:
            raise ValueError("unexpected end of expression")
        if token == "(":
            value = parse_expression()
            if advance() != ")":
                raise ValueError("expected ')'")
            return value
        if token[0] in "0123456789.":
            return float(token) if "." in token else int(token)
        raise ValueError(f"unexpected token {token!r}")

    result = parse_expression()
    if pos != len(tokens):
        raise ValueError(f"unexpected token {tokens[pos]!r}")
    return result
