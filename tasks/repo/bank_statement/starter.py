from ledger.book import Ledger
from ledger.models import Statement, StatementLine
from ledger.money import format_cents


def monthly_statement(ledger: Ledger, account: str, year: int, month: int) -> Statement:
    """Build the statement of `account` for the calendar month `year`-`month`."""
