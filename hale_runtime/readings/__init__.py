"""Readings and concerns: what the spine does with an application event.

A reflex fires outside the spine (the seed's "Where reflexes run"); its
firing reaches the organism as an application event: a line the
application appends to the file `$HALE_DNA_EVENTS` names, the host seeing
its application exit, or `hale dna sense TARGET KIND` from any clone. The
spine records it as a `reading.taken` row before anything acts on it
(sense.py). The node whose instance the reading names restarts that
instance and records what it did (`reading.acted`, node/instance.py). A
second firing for the same target within the window becomes a concern
the organization raises (`concern.raised`), and `concern-escalate` is
admitted for it once (concerns.py). Nothing plans on a reading: no ask,
no Leader, no model call.
"""
