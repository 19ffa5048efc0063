"""History and sync of a memory folder across machines, on top of the ``git`` command.

See :mod:`ihmt.sync.gitsync`.
"""
