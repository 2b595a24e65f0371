from datetime import date

import pytest

from ledger.book import Ledger, UnknownAccountError
from ledger.models import Statement, StatementLine, Transaction
from ledger.statement import monthly_statement


def build():
    book = Ledger()
    book.open_account("alice", 50_000)
    book.open_account("bob")
    txs = [
        Transaction(1, "alice", date(2024, 2, 28), "deposit", 1_000_000, "salary"),
        Transaction(7, "alice", date(2024, 3, 5), "withdrawal", 20_050, "ATM"),
        Transaction(3, "alice", date(2024, 3, 5), "transfer_out", 150_000, "bob"),
        Transaction(4, "alice", date(2024, 3, 31), "fee", 499),
        Transaction(5, "alice", date(2024, 3, 15), "interest", 1),
        Transaction(6, "alice", date(2024, 4, 1), "fee", 499),
        Transaction(8, "bob", date(2024, 3, 5), "transfer_in", 150_000, "alice"),
        Transaction(9, "alice", date(2024, 3, 20), "fee", 1),
    ]
    for tx in txs:
        book.record(tx)
    return book


def test_full_month():
    statement = monthly_statement(build(), "alice", 2024, 3)
    assert isinstance(statement, Statement)
    assert statement.account == "alice"
    assert statement.period == "2024-03"
    assert statement.opening_balance == "10,500.00"
    assert statement.lines == (
        StatementLine("2024-03-05", "Transfer to: bob", "-1,500.00", "9,000.00"),
        StatementLine("2024-03-05", "Withdrawal: ATM", "-200.50", "8,799.50"),
        StatementLine("2024-03-15", "Interest", "0.01", "8,799.51"),
        StatementLine("2024-03-20", "Bank fee", "-0.01", "8,799.50"),
        StatementLine("2024-03-31", "Bank fee", "-4.99", "8,794.51"),
    )
    assert statement.closing_balance == "8,794.51"
    assert statement.total_fees == "5.00"


def test_month_before_any_transaction():
    statement = monthly_statement(build(), "alice", 2024, 1)
    assert statement.opening_balance == statement.closing_balance == "500.00"
    assert statement.lines == ()
    assert statement.total_fees == "0.00"


def test_later_month_includes_all_history():
    statement = monthly_statement(build(), "alice", 2024, 4)
    assert statement.opening_balance == "8,794.51"
    assert statement.closing_balance == "8,789.52"
    assert statement.period == "2024-04"


def test_month_after_everything():
    statement = monthly_statement(build(), "alice", 2025, 1)
    assert statement.lines == ()
    assert statement.opening_balance == "8,789.52"


def test_other_account_isolated():
    statement = monthly_statement(build(), "bob", 2024, 3)
    assert statement.lines == (StatementLine("2024-03-05", "Transfer from: alice", "1,500.00", "1,500.00"),)
    assert statement.opening_balance == "0.00"


def test_negative_balance_formatting():
    book = Ledger()
    book.open_account("x", 100)
    book.record(Transaction(1, "x", date(2023, 12, 31), "withdrawal", 123_456_789))
    statement = monthly_statement(book, "x", 2023, 12)
    assert statement.lines[0].balance == "-1,234,566.89"
    assert statement.closing_balance == "-1,234,566.89"
    assert statement.opening_balance == "1.00"


def test_invalid_month_and_unknown_account():
    book = build()
    for month in (0, 13, -1):
        with pytest.raises(ValueError):
            monthly_statement(book, "alice", 2024, month)
    with pytest.raises(UnknownAccountError):
        monthly_statement(book, "carol", 2024, 3)


def test_lines_is_tuple():
    assert isinstance(monthly_statement(build(), "alice", 2024, 3).lines, tuple)
