"""Invoicing with VAT rules."""
