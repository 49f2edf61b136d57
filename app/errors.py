"""The few things that can go wrong that a person should be told about in words.

Each is raised deep inside and turned into a one-line message only at the edge (CLI, HTTP).
"""

import errno

# What a write can meet that is the disk's, not ours: full, over quota, failing.
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO})


class NodwynError(Exception):
    """Base of every expected error; its text is the message a person reads."""

    status = 400


class TaskNotFound(NodwynError):
    """No task has that id."""

    status = 404


class TaskBusy(NodwynError):
    """The task's log is held by another writer (this or another process)."""

    status = 409


class TaskNotClosed(NodwynError):
    """The action needs a closed task and this one is open."""

    status = 409


class BadInput(NodwynError):
    """What was given cannot be used (an empty id, a title of two lines, ...)."""

    status = 400


class NotALog(NodwynError):
    """A file that should be a log is not one."""

    status = 422


class BadLine(NodwynError):
    """A line of an agent's file that is not a record of its format (reported and skipped)."""

    status = 422


class NotWritten(NodwynError):
    """A file could not be written (disk full, over quota, or failing); nothing already
    written is lost."""

    status = 507


def no_room(exc: BaseException) -> bool:
    """Whether `exc` says the disk could not take a write (full, over quota, failing)."""
    return isinstance(exc, OSError) and exc.errno in NO_ROOM


def not_written(what: str, exc: OSError) -> NotWritten:
    """The one line a person reads when `what` could not be written for lack of room."""
    why = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up"}.get(
        exc.errno, "the disk failed to write"
    )
    return NotWritten(
        f"could not write {what}: {why}; nothing already written is lost "
        "(free some space, then try again)"
    )
