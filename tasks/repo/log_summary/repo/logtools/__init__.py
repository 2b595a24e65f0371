"""Helpers for reading application logs."""
