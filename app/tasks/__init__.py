"""Tasks: the data directory's sessions as a list (the task store and what it keeps beside the
logs).

Holds store.py (Store: create, append, rename, archive, delete a task's log), catalogue.py (the
fold of each log into the list's row, kept in catalogue.jsonl), listing.py (that file's format
and the listing's fast path), starred.py (starred turns), board.py (the History board of
turn cards) and demo.py with demo.toml (the demo's tasks).

May import: the top modules (errors, paths, settings), log/, memory/ (cards, for the board) and
usage/ (rate-limit readings folded per log, the board's days). Nothing here imports bottle,
webview or the importers. Empty on purpose: `nodwyn sessions` imports listing.py alone.
"""
