"""What many test folders share: one hand-moved clock, one project maker.

Importable as `support.*` from every test (pyproject puts tests/ on pytest's
pythonpath)."""
