"""The History board (foundations: task memory): every turn's card of one task, or of every task
of a project folder since a day, newest first, each with its task's title and agent.

The cards are memory's, redacted as shown (memory.cards); the project is matched on the folder
each task's log names, as the sidebar groups them. Read only: nothing here is kept. Each card
carries the close summary covering its turn, and the newest card of each task its task's
digest (ADR 0033), redacted as every summary is read; and whether the board counts it failed
(`failed`: it ended failed, as its outcome says) and whether it shows an error (`errored`,
ADR 0057). `latest` lets the page open a folder on a range that has turns.
"""

from msgspec import Struct

from .. import memory
from ..errors import BadInput, TaskNotFound
from ..memory.cards import summaries
from ..memory.cards.fold import Card
from ..usage.figures import day_of, local_day


class BoardCard(Struct, frozen=True, kw_only=True):
    task: str
    title: str
    agent: str
    card: Card
    summary: str = ""  # the close summary covering the turn
    digest: str = ""  # the task's digest, on its newest card only
    failed: bool = False  # the turn ended failed: its card's outcome (failed())
    errored: bool = False  # its card shows a failed command or an error (errored())
    number: int = 0  # the turn as people count them: the task's 1st, 2nd ... turn
    turns: int = 0  # of the task's turns in all ("turn 3 of 9")


class Board(Struct, frozen=True, kw_only=True):
    task: str
    project: str
    since: str
    cards: list[BoardCard]
    latest: str = ""  # the newest turn's time, whatever `since` (the page opens on a range with it)


def board(store, task: str = "", project: str = "", since: str = "") -> Board:
    """The cards of `task`, or of `project`'s tasks whose turn began on or after `since`."""
    if bool(task) == bool(project):
        raise BadInput("the board shows one task or one project folder: give task or project")
    first = day_of(since, "since")
    if task:
        if not store.exists(task):
            raise TaskNotFound(f"no task {task}")
        infos = [store.get(task)]
    else:
        infos = [info for info in store.list(archived=None) if info.project == project]
    every = [card for info in infos for card in _cards(store, info)]
    found = [card for card in every if first is None or local_day(card.card.at) >= first]
    found.sort(key=lambda c: (c.card.at, c.card.first_seq), reverse=True)
    latest = max((card.card.at for card in every), default="")
    return Board(task=task, project=project, since=since, cards=found, latest=latest)


def failed(card: Card) -> bool:
    """Whether the board counts a turn as Failed: it ended failed, as its card's outcome says,
    so the count and the cards agree (ADR 0057; a completed turn with errors is `errored`)."""
    return card.outcome == "failed"


def errored(card: Card) -> bool:
    """Whether a card shows a failed command (an error result or a non-zero exit) or an error."""
    return bool(card.errors) or any(c.error for c in card.commands)


def _cards(store, info) -> list[BoardCard]:
    # a log is read for summaries only when the task list says it holds one (as search does)
    holds = info.closes or info.digest
    written = summaries.of_log(store.log_path(info.id)) if holds else []
    cards = memory.turn_cards(store, info.id)
    shown = summaries.digest(written)
    out = []
    for at, card in enumerate(cards):
        close = summaries.covering(written, card.first_seq)
        digest = shown if shown is not None and at == len(cards) - 1 else None
        out.append(
            BoardCard(
                task=info.id,
                title=info.title,
                agent=info.origin,
                card=card,
                summary=summaries.redacted(close).text if close else "",
                digest=summaries.redacted(digest).text if digest else "",
                failed=failed(card),
                errored=errored(card),
                number=at + 1,
                turns=len(cards),
            )
        )
    return out
