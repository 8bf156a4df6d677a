"""The Hale language: parse, check, compile, evaluate, format.

Knows nothing of dna: a host supplies the genome root, the bindings for
`host` items, and a step budget.
"""
