from ledger.models import Transaction


class UnknownAccountError(KeyError):
    pass


class Ledger:
    def __init__(self) -> None:
        self._opening: dict[str, int] = {}
        self._transactions: dict[str, list[Transaction]] = {}
        self._ids: set[int] = set()

    def open_account(self, account: str, opening_cents: int = 0) -> None:
        if account in self._opening:
            raise ValueError(f"account {account!r} already exists")
        self._opening[account] = opening_cents
        self._transactions[account] = []

    def record(self, tx: Transaction) -> None:
        if tx.account not in self._opening:
            raise UnknownAccountError(tx.account)
        if tx.tx_id in self._ids:
            raise ValueError(f"duplicate transaction id {tx.tx_id}")
        self._ids.add(tx.tx_id)
        self._transactions[tx.account].append(tx)

    def opening_balance(self, account: str) -> int:
        """Balance (cents) when the account was opened, before any transaction."""
        try:
            return self._opening[account]
        except KeyError:
            raise UnknownAccountError(account) from None

    def history(self, account: str) -> list[Transaction]:
        """All transactions of `account`, oldest first (by day, then id)."""
        if account not in self._transactions:
            raise UnknownAccountError(account)
        return sorted(self._transactions[account], key=lambda tx: (tx.day, tx.tx_id))
