"""An agent's code as code: the fences Aider tells models to use besides Markdown's
(`<source>…</source>`, `<code>`, `<pre>`, `<codeblock>`, `<sourcecode>` on lines of their own)
and edit blocks written without a fence (`<<<<<<< SEARCH` … `=======` … `>>>>>>> REPLACE`)
are turned into Markdown fences before the text is parsed, so a `# comment` in them stays a
comment and `__init__` stays a name. A file name on the line before a block gives its
language. Text inside Markdown's own fences is left as it is."""

import re

_OPEN = re.compile(r"^\s*<(source|code|pre|codeblock|sourcecode)>\s*$")
_SEARCH = re.compile(r"^\s*<{5,9} SEARCH\b")
_REPLACE = re.compile(r"^\s*>{5,9} REPLACE\b")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_NAMED = re.compile(r"^\s*`?([\w./\\-]+\.(\w+))`?:?\s*$")
_LANGUAGES = {"py": "python", "js": "javascript", "ts": "typescript", "tsx": "tsx", "jsx": "jsx",
              "go": "go", "rs": "rust", "java": "java", "kt": "kotlin", "c": "c", "h": "c",
              "cpp": "cpp", "cc": "cpp", "hpp": "cpp", "cs": "csharp", "rb": "ruby", "php": "php",
              "sh": "bash", "bash": "bash", "json": "json", "yaml": "yaml", "yml": "yaml",
              "toml": "toml", "html": "html", "css": "css", "sql": "sql", "md": "markdown",
              "swift": "swift", "tex": "latex", "txt": "text"}  # fmt: skip


def fenced(text: str) -> str:
    """`text` with its agent's other fences and unfenced edit blocks as Markdown fences."""
    if "<" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    at = 0
    while at < len(lines):
        line = lines[at]
        fence = _FENCE.match(line)
        if fence:  # Markdown's own fence: copied through to its end
            end = _closing(lines, at + 1, fence.group(1))
            out.extend(lines[at : end + 1])
            at = end + 1
            continue
        block = _block(lines, at)
        if block is None:
            out.append(line)
            at += 1
            continue
        end, body = block
        out.extend(_fence(body, _language(out)))
        at = end + 1
    return "\n".join(out)


def _closing(lines: list[str], start: int, mark: str) -> int:
    """The line closing a fence opened by `mark` (the last line when it is never closed)."""
    for at in range(start, len(lines)):
        found = _FENCE.match(lines[at])
        run = found.group(1) if found else ""
        if (
            run[:1] == mark[0]
            and len(run) >= len(mark)
            and not lines[at].strip()[len(run) :].strip()
        ):
            return at
    return len(lines) - 1


def _block(lines: list[str], at: int) -> tuple[int, list[str]] | None:
    """(its last line, its lines) where a tag fence or an edit block starts at `at`."""
    opened = _OPEN.match(lines[at])
    if opened:
        closing = f"</{opened.group(1)}>"
        for end in range(at + 1, len(lines)):
            if lines[end].strip() == closing:
                return end, lines[at + 1 : end]
        return None
    if _SEARCH.match(lines[at]):
        for end in range(at + 1, len(lines)):
            if _REPLACE.match(lines[end]):
                return end, lines[at : end + 1]
            if _FENCE.match(lines[end]):
                return None
    return None


def _language(before: list[str]) -> str:
    """The language of the file named on the last line written before a block, or ""."""
    named = _NAMED.match(before[-1]) if before else None
    return _LANGUAGES.get(named.group(2).lower(), "") if named else ""


def _fence(body: list[str], language: str) -> list[str]:
    """`body` in a fence longer than any run of backticks in it."""
    longest = max((len(run) for line in body for run in re.findall(r"`+", line)), default=0)
    mark = "`" * max(3, longest + 1)
    return [mark + language, *body, mark]
