"""Sessions shaped like real Claude Code ones that write a file and then edit it (issue 25),
with the file they leave: the edits applied in order to text, as the agent's tool applied them.

`pager_session` is on another machine (/home/ana/pager): a Write, an Edit, a MultiEdit, an
Edit and a commit in a later turn, an Edit that failed, and a `git mv` that renames the file.
"""

import difflib

from corpus_writers import Claude, text, use

PROJECT = "/home/ana/pager"
SHA = "0afe44b"
FULL = "0afe44b9c1d2e3f405162738495a6b7c8d9e0f12"
FIRST = """import sys

def order(pages):
    return sorted(pages, key=lambda p: p.name)

def main():
    pages = load(sys.argv[1])
    print(order(pages))
"""
EDITS = [  # (turn's prompt index, old, new, replace in a MultiEdit)
    (1, "    return sorted(pages, key=lambda p: p.name)\n",
     "    numbered = [p for p in pages if p.number is not None]\n"
     "    return sorted(numbered, key=lambda p: p.number)\n"),
    (1, "import sys\n", "import sys\nfrom pathlib import Path\n"),
    (1, "    pages = load(sys.argv[1])\n", "    pages = load(Path(sys.argv[1]))\n"),
    (2, "    print(order(pages))\n",
     "    for page in order(pages):\n        print(page.number, page.name)\n"),
]  # fmt: skip
FAILED = ("def nothing():\n", "def never_written():\n")
PROMPTS = [
    "Write the pager ordering module",
    "Sort pages by number, not by name",
    "Print each page on its own line and commit",
]


def pager_session() -> Claude:
    c = Claude("5e55a0e1-0000-4000-8000-00000000a001", PROJECT, "2.1.20", "2026-11-20")
    path = PROJECT + "/order.py"
    c.prompt(PROMPTS[0])
    c.reply("msg_w", use("t_w", "Write", file_path=path, content=FIRST))
    c.result("t_w", "File created successfully", {"type": "create"})
    c.reply("msg_w2", text("Written."))
    c.prompt(PROMPTS[1])
    old, new = EDITS[0][1:]
    c.reply("msg_e1", use("t_e1", "Edit", file_path=path, old_string=old, new_string=new))
    c.result("t_e1", "The file has been updated.", {"type": "update"})
    multi = [{"old_string": o, "new_string": n} for _, o, n in EDITS[1:3]]
    c.reply("msg_e2", use("t_e2", "MultiEdit", file_path=path, edits=multi))
    c.result("t_e2", "Applied 2 edits.", {"type": "update"})
    c.reply("msg_e3", text("Sorted by number."))
    c.prompt(PROMPTS[2])
    old, new = EDITS[3][1:]
    c.reply("msg_e4", use("t_e4", "Edit", file_path="order.py", old_string=old, new_string=new))
    c.result("t_e4", "The file has been updated.", {"type": "update"})
    c.reply("msg_f", use("t_f", "Edit", file_path=path, old_string=FAILED[0],
                         new_string=FAILED[1]))  # fmt: skip
    c.result("t_f", "<tool_use_error>String to replace not found</tool_use_error>", "Error",
             error=True)  # fmt: skip
    commit = "git add -A && git commit -m 'Print pages by number'"
    c.reply("msg_c", use("t_c", "Bash", command=commit))
    out = f"[main {SHA}] Print pages by number\n 1 file changed, 4 insertions(+), 2 deletions(-)"
    c.result("t_c", out, {"stdout": out, "stderr": ""})
    c.reply("msg_l", use("t_l", "Bash", command="git log -1"))
    log = f"commit {FULL}\nAuthor: Ana <ana@example.com>\n\n    Print pages by number"
    c.result("t_l", log, {"stdout": log, "stderr": ""})
    c.reply("msg_m", use("t_m", "Bash", command="git mv order.py pages.py"))
    c.result("t_m", "", {"stdout": "", "stderr": ""})
    c.reply("msg_end", text("Done: pages.py prints each page."))
    return c


def applied() -> tuple[str, list[int]]:
    """The file the session leaves, and for each of its lines the index (into EDITS, or -1 for
    the Write) of the edit that last wrote it: by text, the way the Edit tool replaces."""
    content, origins = FIRST, [-1] * len(FIRST.splitlines())
    for number, (_, old, new) in enumerate(EDITS):
        at = content.index(old)
        start = content[:at].count("\n")
        removed, added = old.splitlines(), new.splitlines()
        mine = [number if line not in removed else -2 for line in added]
        kept = iter(origins[start : start + len(removed)])
        made = [next(kept) if m == -2 else m for m in mine]
        origins[start : start + len(removed)] = made
        content = content[:at] + new + content[at + len(old) :]
    return content, origins


def rebuild(steps: list[tuple[object, str, str, str]]) -> tuple[str, list[object]]:
    """A file made by steps (who, "write" or "edit", old, new) applied to its text in order, as
    Write and Edit apply them (an edit whose old text is not there is skipped, as the tool
    refuses it), and for each line the `who` of the step that last wrote it (a line an edit
    keeps, equal in its old and new text, keeps its writer)."""
    content, origins = "", []
    for who, kind, old, new in steps:
        if kind == "write":
            content, origins = new, [who] * len(new.splitlines())
            continue
        if not old or old not in content:
            continue
        at = content.index(old)
        first = content.rfind("\n", 0, at) + 1  # the whole lines the edit touches
        end = content.find("\n", at + len(old))
        end = len(content) if end < 0 else end
        start = content[:first].count("\n")
        a = content[first:end].splitlines()
        b = (content[first:at] + new + content[at + len(old) : end]).splitlines()
        made = []
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            made += origins[start + i1 : start + i2] if op == "equal" else [who] * (j2 - j1)
        origins[start : start + len(a)] = made
        content = content[:at] + new + content[at + len(old) :]
    return content, origins
