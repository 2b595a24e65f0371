"""A small double-checked bank ledger. All amounts are integer cents."""
