"""Task memory: turn cards (L1), episodes (L2), the word index of all logs, search and recall.

Dependencies inside the package point one way: words <- cards <- mem <- index <- search, recall.
Everything here is derived from the logs and may be deleted at any time; it is rebuilt.
"""

from collections.abc import Callable

from . import index as _index
from .cards import Card, Command, Episode
from .recall import Recall, Window, cards, context, episodes, recall
from .search import EventHit, Results, TurnHit, search


def refresh(store, progress: Callable[[int, int], None] | None = None) -> None:
    """Bring every .mem and the word index up to date with the logs (deleted tasks removed)."""
    _index.refresh(store, progress)


__all__ = [
    "Card",
    "Command",
    "Episode",
    "EventHit",
    "Recall",
    "Results",
    "TurnHit",
    "Window",
    "cards",
    "context",
    "episodes",
    "recall",
    "refresh",
    "search",
]
