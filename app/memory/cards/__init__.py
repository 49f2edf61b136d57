"""Cards: what memory folds of each log, kept beside it: L1 turn cards and L2 episodes
(fold.py), the `.mem` file and its frames (mem.py, frames.py), a turn's head as search shows it
(headline.py, heads.py), and summaries and digests (summaries.py).
"""
