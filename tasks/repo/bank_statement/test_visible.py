from datetime import date

from ledger.book import Ledger
from ledger.models import StatementLine, Transaction
from ledger.statement import monthly_statement


def test_single_fee():
    book = Ledger()
    book.open_account("acc", 100_000)
    book.record(Transaction(1, "acc", date(2024, 3, 2), "fee", 250))
    statement = monthly_statement(book, "acc", 2024, 3)
    assert statement.lines == (StatementLine("2024-03-02", "Bank fee", "-2.50", "997.50"),)
    assert statement.opening_balance == "1,000.00"
    assert statement.total_fees == "2.50"


def test_empty_month():
    book = Ledger()
    book.open_account("acc")
    statement = monthly_statement(book, "acc", 2024, 1)
    assert statement.lines == ()
    assert statement.closing_balance == "0.00"
