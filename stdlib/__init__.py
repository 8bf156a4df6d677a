"""Hale's standard library: prelude natives and the `std/…` modules."""
