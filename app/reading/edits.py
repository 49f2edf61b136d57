"""An agent's edit as a unified diff: files, hunks and lines with their numbers where known.

One small function per edit tool, chosen from `READERS` by the call's tool name (STYLE 15): a
new agent's edit tool is one more function and one more line. A diff is plain data:
`{"files": [{"path", "op", "added", "removed", "hunks": [{"head", "lines": [[mark, text,
old_no, new_no]]}]}]}` with mark one of " ", "+", "-"; a number is None where the input does
not say it (Claude's Edit gives the old and new text, not where they stand in the file).
"""

import difflib
import re
from collections.abc import Callable

OLD = ("old_string", "oldString", "old_str", "search", "oldText")  # the agents' spellings
NEW = ("new_string", "newString", "new_str", "replace", "newText")
CONTEXT = 3  # unchanged lines kept around a change, as `diff -u` keeps them
MAX_LINES = 5_000  # lines of one diff; past that the rest is left out, and said


def diff_of(tool: str, data) -> dict | None:
    """The diff a call makes, or None where the tool is no edit or its input is not one."""
    reader = READERS.get(tool) or READERS.get(tool.rsplit("__", 1)[-1])
    if reader is None:
        return None
    try:
        files = reader(data)
    except (TypeError, AttributeError, KeyError, ValueError):
        return None  # an input of a shape this reader does not know: shown as it is
    return {"files": files} if files else None


def _edit(data: dict) -> list[dict]:
    if "content" in data and "search" not in data:
        return _write(data)  # Aider's whole file (its `edit` with no SEARCH part)
    if isinstance(data.get("edits"), list):  # Pi: path, edits [{oldText, newText}]
        path = _field(data, "path", "file_path", "filePath")
        steps = [_replace(path, _field(e, *OLD), _field(e, *NEW)) for e in data["edits"]]
        return [_merged(path, "update", [hunk for step in steps for hunk in step["hunks"]])]
    old = next((data[k] for k in OLD if k in data), "")
    new = _field(data, *NEW)
    return [_replace(_field(data, *_PATHS), old, new)]


def _sketch(data: dict) -> list[dict]:
    """Cursor's edit_file (Continue's edit_existing_file): `code_edit` (`changes`) is the new
    code with the unchanged stretches elided by `// ... existing code ...` lines; its other
    lines are what the call adds (where they stand is not said)."""
    text = _field(data, "code_edit", "codeEdit", "changes")
    kept = [line for line in _lines(text) if "... existing code ..." not in line]
    lines = [["+", line, None, None] for line in kept]
    return [_merged(_field(data, "target_file", "targetFile", *_PATHS), "update", [_hunk(lines)])]


def _multi_edit(data: dict) -> list[dict]:
    path = _field(data, "file_path", "filePath", "path")
    edits = [
        _replace(path, e.get("old_string", ""), e.get("new_string", "")) for e in data["edits"]
    ]
    return [_merged(path, "update", [hunk for edit in edits for hunk in edit["hunks"]])]


def _write(data: dict) -> list[dict]:
    text = _field(data, "content", "contents", "file_text")
    lines = [["+", line, None, n] for n, line in enumerate(_lines(text), 1)]
    path = _field(data, *_PATHS)
    return [_merged(path, "write", [_hunk(lines)])]


_PATHS = ("file_path", "filePath", "path", "target_file", "absolutePath", "filepath")
_BLOCK = re.compile(
    r"^(?:-{3,}|<{3,}) SEARCH\n(?::start_line:\s*\d+\n-{3,}\n)?(.*?)^={3,}\n(.*?)"
    r"^(?:\+{3,}|>{3,}) REPLACE",
    re.S | re.M,
)


def _search_blocks(data: dict) -> list[dict]:
    """Cline's replace_in_file and Roo Code's apply_diff: `diff` holds SEARCH/REPLACE blocks
    (`------- SEARCH` … `=======` … `+++++++ REPLACE`, or with `<<<<<<<`/`>>>>>>>`)."""
    path, text = _field(data, *_PATHS), _field(data, "diff")
    edits = [_replace(path, m.group(1), m.group(2)) for m in _BLOCK.finditer(text)]
    return [_merged(path, "update", [h for e in edits for h in e["hunks"]])] if edits else []


def _replace(path: str, old: str, new: str) -> dict:
    """Old text replaced by new, as the hunks difflib finds (no line numbers: not known)."""
    a, b = _lines(old), _lines(new)
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(CONTEXT):
        lines = []
        for op, i1, i2, j1, j2 in group:
            if op == "equal":
                lines += [[" ", line, None, None] for line in a[i1:i2]]
                continue
            lines += [["-", line, None, None] for line in a[i1:i2]]
            lines += [["+", line, None, None] for line in b[j1:j2]]
        hunks.append(_hunk(lines))
    return _merged(path, "update", hunks)


def _apply_patch(data) -> list[dict]:
    """Codex's patch: `*** Begin Patch`, then per file `*** Update|Add|Delete File: path`,
    an optional `*** Move to: path`, and hunks opened by `@@ [context]` with lines marked
    " ", "+" or "-"."""
    text = data if isinstance(data, str) else data.get("input") or data.get("patch") or ""
    if "*** Begin Patch" not in text:
        return []
    files: list[dict] = []
    current: dict | None = None
    for line in text.splitlines():
        header = _file_header(line)
        if header:
            current = {"path": header[1], "op": header[0], "hunks": []}
            files.append(current)
        elif current is None or line.startswith(("*** End", "*** Begin")):
            continue
        elif line.startswith("*** Move to: "):
            current["path"] = f"{current['path']} → {line[13:].strip()}"
        elif line.startswith("@@") or not current["hunks"]:
            current["hunks"].append(
                {"head": line[2:].strip() if line.startswith("@@") else "", "lines": []}
            )
            if not line.startswith("@@"):
                _patch_line(current, line)
        else:
            _patch_line(current, line)
    return [
        _merged(f["path"], f["op"], [_hunk(h["lines"], h["head"]) for h in f["hunks"]])
        for f in files
    ]


def _file_header(line: str) -> tuple[str, str] | None:
    for prefix, op in (
        ("*** Update File: ", "update"),
        ("*** Add File: ", "add"),
        ("*** Delete File: ", "delete"),
    ):
        if line.startswith(prefix):
            return op, line[len(prefix) :].strip()
    return None


def _patch_line(file: dict, line: str) -> None:
    mark = line[:1] if line[:1] in ("+", "-", " ") else " "
    text = line[1:] if line[:1] in ("+", "-", " ") else line
    file["hunks"][-1]["lines"].append([mark, text, None, None])


def _hunk(lines: list, head: str = "") -> dict:
    return {"head": head, "lines": lines}


def _merged(path: str, op: str, hunks: list[dict]) -> dict:
    """A file's entry with its counts; lines past MAX_LINES left out (`cut` says so)."""
    kept, total, cut = [], 0, False
    for hunk in hunks:
        room = MAX_LINES - total
        if room <= 0:
            cut = True
            break
        if len(hunk["lines"]) > room:
            hunk = {**hunk, "lines": hunk["lines"][:room]}
            cut = True
        total += len(hunk["lines"])
        kept.append(hunk)
    lines = [line for hunk in kept for line in hunk["lines"]]
    entry = {
        "path": path,
        "op": op,
        "hunks": kept,
        "added": sum(1 for line in lines if line[0] == "+"),
        "removed": sum(1 for line in lines if line[0] == "-"),
    }
    if cut:
        entry["cut"] = True
    return entry


def _lines(text: str) -> list[str]:
    return text.splitlines() if isinstance(text, str) else []


def _text_editor(data: dict) -> list[dict]:
    """Copilot CLI's (and Anthropic's) text editor tool: one `command` per call."""
    command = data.get("command")
    if command == "str_replace":
        return _edit(data)
    if command == "create":
        return _write(data)
    return []  # view, insert, undo: no diff of their own


def _field(data: dict, *names: str):
    """The first of `names` the input has: agents spell one field several ways."""
    for name in names:
        if name in data:
            return data[name]
    raise KeyError(names[0])


READERS: dict[str, Callable] = {
    "Edit": _edit,  # Claude Code
    "MultiEdit": _multi_edit,
    "Write": _write,
    "apply_patch": _apply_patch,  # Codex
    "replace": _edit,  # Gemini CLI: file_path, old_string, new_string
    "write_file": _write,  # Gemini CLI: file_path, content
    "edit": _edit,  # OpenCode: filePath, oldString, newString; Pi: path, edits or oldText, newText
    "write": _write,  # OpenCode: filePath, content; Pi: path, content
    "str_replace_editor": _text_editor,  # Copilot CLI: command, path, old_str, new_str
    "create": _write,  # Copilot CLI: path, file_text
    # Aider's `edit` (its importer's: path, search, replace; or path, content) is `edit` above
    "edit_file": _sketch,  # Cursor: target_file, instructions, code_edit
    "search_replace": _edit,  # Cursor: file_path, old_string, new_string
    "write_to_file": _write,  # Cline, Roo Code: path (absolutePath), content
    "replace_in_file": _search_blocks,  # Cline: path (absolutePath), diff
    "apply_diff": _search_blocks,  # Roo Code: path, diff
    "create_new_file": _write,  # Continue: filepath, contents
    "single_find_and_replace": _edit,  # Continue: filepath, old_string, new_string
    "edit_existing_file": _sketch,  # Continue: filepath, changes (elided as Cursor's are)
}
