"""Hale's standard library: the prelude natives, and the home of the `std/…` modules (none yet)."""
