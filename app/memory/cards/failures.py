"""What failed, said on a card: the line of a failed call's output that names the failure (an
error line, a LaTeX `!` line, a traceback's last line) rather than its first line, which is
often a banner ("This is pdfTeX, Version 3.14…"), with the call's exit code; each once."""

import re

from .headline import one_line

_ERROR = re.compile(
    r"(?i)\b(error|errors|fatal|fail|failed|failure|exception|panic|denied|not found|no such file"
    r"|cannot|can't|could not|undefined|refused|timed out|invalid|missing)\b"
)
_TAGS = re.compile(
    r"</?tool_use_error>|\x1b\[[0-9;?]*[@-~]"
)  # Claude Code's tags, terminal colours


def failing_line(output: str) -> str:
    """The line of `output` that says what failed; the last non-empty line where none does."""
    lines = [line.strip() for line in _TAGS.sub("", output).splitlines() if line.strip()]
    if not lines:
        return ""
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        return lines[-1]  # Python: the exception is the traceback's last line
    latex = next((line for line in lines if line.startswith("! ")), None)
    if latex:
        return latex
    return next((line for line in lines if _ERROR.search(line)), lines[-1])


def said(tool: str, output: str, exit: int | None, width: int) -> str:
    """A failed call on one line: "Bash (exit 1): ! Undefined control sequence."."""
    where = f"{tool} (exit {exit})" if exit not in (None, 0) else tool
    line = failing_line(output)
    return one_line(f"{where}: {line}" if line else f"{where} failed", width)


def add(errors: list[str], error: str) -> None:
    """`error` onto the card's errors unless it is there already."""
    if error not in errors:
        errors.append(error)
