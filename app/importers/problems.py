"""Lines of an agent's file that an import could not read, and the guard that keeps one such
line from stopping an import.

Invariants:
- one line never stops an import: whatever a parser raises for it, the records it had begun
  to give for that line are dropped and the line is counted, with its number and a reason;
- the person is told: one `Problem` per file and reason, naming the first such line and how
  many there were (CLI output, `/api/import`'s status note, the worker's log);
- an error we did not foresee (not a `BadLine`) is logged with its traceback for whoever
  mends the parser, and its reason starts with "unexpected", so tests can tell the two apart.
"""

import logging

import msgspec

from ..errors import BadLine

log = logging.getLogger("nodwyn.import")
UNEXPECTED = "unexpected"


class Problem(msgspec.Struct, frozen=True, kw_only=True):
    """Lines of one file skipped for one reason: the first one's number and how many."""

    path: str
    line: int
    reason: str
    count: int = 1

    def message(self) -> str:
        more = f" (and {self.count - 1} more lines like it)" if self.count > 1 else ""
        return f"{self.path}:{self.line}: {self.reason}{more}"


class Lines:
    """The problems met in one file, grouped by reason in the order first met."""

    def __init__(self, path: str):
        self.path = path
        self._found: dict[str, Problem] = {}

    def add(self, line: int, reason: str) -> None:
        known = self._found.get(reason)
        if known is None:
            self._found[reason] = Problem(path=self.path, line=line, reason=reason)
        else:
            self._found[reason] = msgspec.structs.replace(known, count=known.count + 1)

    def clear(self) -> None:
        self._found.clear()

    def found(self) -> list[Problem]:
        return list(self._found.values())


def feed(parser, n: int, raw: bytes, out: list, lines: Lines | None) -> None:
    """Feed one line to a parser; a line it cannot take is counted in `lines`, not raised."""
    mark = len(out)
    try:
        parser.feed(n, raw, out)
    except BadLine as exc:
        _drop(out, mark, lines, n, str(exc))
    except RecursionError:
        _drop(out, mark, lines, n, "nested too deeply to read (over a thousand levels)")
    except Exception as exc:  # noqa: BLE001 (one line must not stop the import; logged)
        log.exception("line %d of %s could not be read", n, lines.path if lines else "?")
        _drop(out, mark, lines, n, f"{UNEXPECTED} {type(exc).__name__}: {exc}"[:200])


def _drop(out: list, mark: int, lines: Lines | None, n: int, reason: str) -> None:
    del out[mark:]
    if lines is not None:
        lines.add(n, reason)


def unreadable(exc: msgspec.MsgspecError) -> BadLine:
    """The BadLine a parser raises for a line it cannot decode."""
    text = str(exc)
    if text.startswith(("JSON is malformed", "Input data was truncated")):
        return BadLine("not a JSON line")
    return BadLine(f"not a record of this format ({text[:120]})")
