"""Fixtures shared by every test folder."""
