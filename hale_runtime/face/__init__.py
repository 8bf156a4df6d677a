"""The face: the organism in a browser (docs/face.md).

`server.py` serves pages over HTTP on loopback behind a one-time token;
`executions.py` keeps the executions listing as a small SQLite table fed
from the record's index by kind; `views.py` reads what each page shows;
`acts.py` runs the verbs a person acts through. Templates and the one
script ship in the package (`templates/`, `static/`).
"""
