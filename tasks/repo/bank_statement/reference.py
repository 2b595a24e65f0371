from ledger.book import Ledger
from ledger.models import Statement, StatementLine
from ledger.money import format_cents


def monthly_statement(ledger: Ledger, account: str, year: int, month: int) -> Statement:
    """Build the statement of `account` for the calendar month `year`-`month`."""
    if not 1 <= month <= 12:
        raise ValueError(f"invalid month {month}")
    period = (year, month)
    balance = ledger.opening_balance(account)
    opening = None
    fees = 0
    lines: list[StatementLine] = []
    for tx in ledger.history(account):
        tx_period = (tx.day.year, tx.day.month)
        if tx_period < period:
            balance += tx.signed_amount()
            continue
        if tx_period > period:
            break
        if opening is None:
            opening = balance
        balance += tx.signed_amount()
        if tx.kind == "fee":
            fees += tx.amount
        amount, running = format_cents(tx.signed_amount()), format_cents(balance)
        lines.append(StatementLine(tx.day.isoformat(), tx.describe(), amount, running))
    if opening is None:
        opening = balance
    return Statement(
        account=account,
        period=f"{year:04d}-{month:02d}",
        opening_balance=format_cents(opening),
        closing_balance=format_cents(balance),
        total_fees=format_cents(fees),
        lines=tuple(lines),
    )
