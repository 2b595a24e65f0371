from dataclasses import dataclass
from datetime import date

KIND_SIGNS = {
    "deposit": 1,
    "interest": 1,
    "transfer_in": 1,
    "withdrawal": -1,
    "fee": -1,
    "transfer_out": -1,
}

LABELS = {
    "deposit": "Deposit",
    "interest": "Interest",
    "transfer_in": "Transfer from",
    "withdrawal": "Withdrawal",
    "fee": "Bank fee",
    "transfer_out": "Transfer to",
}


@dataclass(frozen=True)
class Transaction:
    tx_id: int
    account: str
    day: date
    kind: str
    amount: int
    """Always positive; the kind decides whether money comes in or goes out."""
    memo: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KIND_SIGNS:
            raise ValueError(f"unknown transaction kind {self.kind!r}")
        if self.amount <= 0:
            raise ValueError("amount must be positive")

    def signed_amount(self) -> int:
        return KIND_SIGNS[self.kind] * self.amount

    def describe(self) -> str:
        label = LABELS[self.kind]
        return f"{label}: {self.memo}" if self.memo else label


@dataclass(frozen=True)
class StatementLine:
    day: str
    description: str
    amount: str
    balance: str


@dataclass(frozen=True)
class Statement:
    account: str
    period: str
    opening_balance: str
    closing_balance: str
    total_fees: str
    lines: tuple[StatementLine, ...]
