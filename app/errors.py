"""The few things that can go wrong that a person should be told about in words.

Each is raised deep inside and turned into a one-line message only at the edge (CLI, HTTP).
"""


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
