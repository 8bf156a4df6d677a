"""`hale dna debug`: a Textual app that steps through the record and the genome.

The models (model.py: cursor, filters, breakpoints and the fold as of the
cursor; genome.py: a recorded trace of one Scheduler tick) hold every
decision and are tested without a terminal; the widgets (widgets.py) and
the app (app.py) only draw them and map keys to their methods.
"""
