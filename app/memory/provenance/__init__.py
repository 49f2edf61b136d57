"""Provenance: which turn wrote a line or a commit. Each log's edits as line
keys (ledger.py), all of them held in one process (ledgers.py), replayed over a file (blame.py),
matched to commits (commits.py) and to a pasted piece of code (holders.py).
"""
