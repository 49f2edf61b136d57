"""Score `nodwyn blame` and `nodwyn commit` against a repository's git history and the Claude
Code sessions that edited it (issue 36).

    .venv/bin/python tools/eval_blame.py REPO SESSION.jsonl... [--points N] [--json]

REPO is a git repository (bare or not); it is cloned into a temporary folder named as the
sessions' project folder (a person's checkout), and the sessions are imported into a temporary
data directory. The truth is built apart from nodwyn's blame code, from the raw logs and git:

- every successful Edit, MultiEdit and Write is replayed on text in time order: the text
  before is what Claude Code recorded with the result (originalFile, originalFileContents)
  where it did, else the text the replay holds; a Write sets the text, an Edit replaces its
  old_string (every one with replace_all); lines kept by a line diff (white space collapsed,
  as `git blame -w`) keep their turn, new or changed lines take the edit's turn;
- at each commit, renames git records (-M) carry a file's lines to its new path, and the
  commit's file is aligned with the replayed text by a line diff: a line equal to a replayed
  one keeps its turn, any other line is no session's; a file the commit changed goes on from
  the commit's version, each claim git blame -w there dates before its edit taken away (so a
  line is carried from commit to commit as git blame carries it, and a line older than its
  edit is not claimed later because a hand rewrite re-dated it);
- at the points measured, a line git blame -w dates to a commit made before the edit that
  claims it is no session's.

Points: the first commit after each session's last edit, and HEAD. At each, every text file of
the checkout is blamed by nodwyn (in process): precision is the right turns among the lines it
names a turn for, recall the lines the truth gives a turn that nodwyn names rightly. A turn is
(task, turn) as nodwyn's ledger numbers it, found for the truth through the edit's call id.
Commits: each commit's added lines (its diff against its parent) that its parent's file did
not hold give the turns that wrote them; `nodwyn commit` is right when every turn it names
is among them, and it names none
exactly when they are none.
"""

import argparse
import bisect
import datetime as dt
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

LONG_AGO = 946684800  # 2000-01-01: imported logs stand for finished sessions
SHOW = os.environ.get("EVAL_BLAME_SHOW")  # print each wrong line to stderr
SLACK = 120  # seconds: an edit this far after a commit's time may still be in it


def git(repo, *args, text=True) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    if done.returncode != 0:
        return ""
    return done.stdout.decode("utf-8", "replace") if text else done.stdout


def norm(line: str) -> str:
    return " ".join(line.split())


def epoch(at: str) -> float:
    return dt.datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def edits_of(logs: list[Path]) -> tuple[list[dict], dict[str, float]]:
    """Every successful edit of the logs, oldest first: time, call id, path, text before
    (where recorded), and how to make the text after; and each session's last edit time."""
    out, last = [], {}
    for log in logs:
        calls = {}
        for raw in log.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            content = (record.get("message") or {}).get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use" and block.get("name") in EDITORS:
                    calls[block.get("id")] = block
                elif block.get("type") == "tool_result" and block.get("tool_use_id") in calls:
                    call = calls.pop(block["tool_use_id"])
                    result = record.get("toolUseResult")
                    if block.get("is_error") or not isinstance(result, dict):
                        continue
                    given = call.get("input") or {}
                    before = result.get("originalFile", result.get("originalFileContents"))
                    at = epoch(record["timestamp"])
                    path = given.get("file_path") or ""
                    if path and not path.startswith("/"):  # as the tool resolves it
                        path = (record.get("cwd") or "").rstrip("/") + "/" + path
                    out.append(
                        {
                            "at": at,
                            "call": call["id"],
                            "tool": call["name"],
                            "path": path,
                            "input": given,
                            "before": before if isinstance(before, str) else None,
                        }
                    )
                    last[log.name] = max(last.get(log.name, 0), at)
    out.sort(key=lambda e: e["at"])
    return out, last


EDITORS = ("Edit", "MultiEdit", "Write")


def after_of(edit: dict, before: str | None) -> str | None:
    given = edit["input"]
    if edit["tool"] == "Write":
        return given.get("content") if isinstance(given.get("content"), str) else None
    if before is None:
        return None
    steps = given.get("edits") if edit["tool"] == "MultiEdit" else [given]
    text = before
    for step in steps or ():
        old, new = step.get("old_string", ""), step.get("new_string", "")
        if not isinstance(old, str) or not isinstance(new, str) or old not in text:
            return None
        text = text.replace(old, new) if step.get("replace_all") else text.replace(old, new, 1)
    return text


def carry(old_lines, old_turns, new_lines, fresh=None) -> list:
    """Turns of `new_lines`: a line the diff keeps has its old turn, any other `fresh`."""
    a, b = [norm(x) for x in old_lines], [norm(x) for x in new_lines]
    turns = [fresh] * len(new_lines)
    for op, i1, _, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            turns[j1:j2] = old_turns[i1 : i1 + j2 - j1]
    return turns


class Truth:
    """The replay: per path (inside the repository) its text and each line's turn."""

    def __init__(self, root: str):
        self.root = root.rstrip("/") + "/"
        self.work: dict[str, tuple[list[str], list]] = {}

    def edit(self, edit: dict, label) -> None:
        path = edit["path"]
        if not path.startswith(self.root):
            return
        path = path[len(self.root) :]
        lines, turns = self.work.get(path, ([], []))
        before = edit["before"]
        if before is not None:
            seen = before.splitlines()
            turns, lines = carry(lines, turns, seen), seen
        elif edit["tool"] != "Write" and path not in self.work:
            return
        after = after_of(edit, "\n".join(lines) + "\n" if before is None else before)
        if after is None:
            return
        new = after.splitlines()
        self.work[path] = (new, carry(lines, turns, new, label))

    def commit(self, repo, sha: str) -> None:
        """Renames carry a file's lines to its new path; each file the commit changed becomes
        the commit's version, its claims checked against git blame there, so the truth goes
        from commit to commit as git blame does: a line git dates before its edit in the
        commit that first holds the edit stays no session's when a later commit re-dates it."""
        changed = []
        for line in git(repo, "show", "-M", "--name-status", "--format=", sha).splitlines():
            parts = line.split("\t")
            if parts[0].startswith("R") and parts[1] in self.work:
                self.work[parts[2]] = self.work.pop(parts[1])
            if len(parts) > 1 and parts[-1] in self.work:
                changed.append(parts[-1])
        for path, turns in self.at(repo, sha, changed).items():
            blob = git(repo, "show", f"{sha}:{path}", text=False).decode("utf-8", "replace")
            self.work[path] = (blob.splitlines(), checked(repo, sha, {path: turns})[path])

    def at(self, repo, sha: str, paths=None) -> dict[str, list]:
        """Each replayed file (of `paths`, where given) as the commit holds it: its lines'
        turns."""
        out = {}
        for path, (lines, turns) in self.work.items():
            if paths is not None and path not in paths:
                continue
            if not any(turns):
                continue
            blob = git(repo, "show", f"{sha}:{path}", text=False)
            if not blob and not git(repo, "cat-file", "-e", f"{sha}:{path}"):
                continue
            out[path] = carry(lines, turns, blob.decode("utf-8", "replace").splitlines())
        return out


def dated(repo, sha: str, path: str) -> list[float]:
    """git blame -w: the commit time of each line of the file at `sha`."""
    times, out, commit = {}, [], None
    for line in git(repo, "blame", "-w", "--porcelain", sha, "--", path).splitlines():
        head = line.split(" ")
        if len(head) >= 3 and len(head[0]) == 40 and not line.startswith("\t"):
            commit = head[0]
        elif line.startswith("committer-time "):
            times[commit] = float(line.split()[1])
        elif line.startswith("\t"):
            out.append(times.get(commit, 0.0))
    return out


def checked(repo, sha, truth: dict) -> dict:
    """The truth with each claim git dates before its edit taken away."""
    for path, turns in truth.items():
        times = dated(repo, sha, path)
        for n, label in enumerate(turns):
            if label and n < len(times) and times[n] + SLACK < label[2]:
                turns[n] = None
    return truth


def nodwyn_side(logs: list[Path], into: Path):
    """A data directory with the logs imported (dated long ago: finished sessions)."""
    from nodwyn import memory
    from nodwyn.importers.sync import import_paths
    from nodwyn.tasks.store import Store

    folder = into / "logs"
    folder.mkdir()
    for log in logs:
        copy = folder / log.name.rsplit("__", 1)[-1]
        shutil.copyfile(log, copy)
        os.utime(copy, (LONG_AGO, LONG_AGO))
    store = Store(into / "data")
    import_paths(store, "claude", [folder])
    memory.refresh_words(store)
    return store


def labels_of(store) -> dict[str, tuple[str, int]]:
    """Each edit call's (task, turn) as nodwyn's ledgers number them."""
    from nodwyn.memory.provenance import ledgers

    return {edit.call: (task, edit.turn) for task, (_, held) in ledgers.book(store).ledgers.items()
            for edit in held.edits}  # fmt: skip


def project_of(logs: list[Path]) -> str:
    """The sessions' project folder: the shortest working folder most of their records name."""
    seen = Counter()
    for log in logs:
        for raw in log.read_text(encoding="utf-8").splitlines():
            cwd = json.loads(raw).get("cwd") if '"cwd"' in raw else None
            if cwd:
                seen[cwd] += 1
    names = Counter(Path(c).name for c in seen.elements())
    top = Path(min(seen, key=lambda c: (-names[Path(c).name], len(c)))) if seen else None
    return str(top) if top else ""


def text_files(checkout: Path) -> list[str]:
    out = []
    for path in git(checkout, "ls-files", "-z").split("\0"):
        file = checkout / path
        if path and file.is_file() and file.stat().st_size < 2_000_000:
            with file.open("rb") as handle:
                if b"\0" not in handle.read(8192):
                    out.append(path)
    return out


def score_blame(store, checkout: Path, truth: dict) -> dict:
    from nodwyn.errors import BadInput
    from nodwyn.memory.provenance.blame import blame

    right = claimed = written = found = 0
    started = time.perf_counter()
    files = text_files(checkout)
    for path in files:
        try:
            done = blame(store, checkout / path)
        except BadInput:
            continue
        turns = truth.get(path, [])
        for n, line in enumerate(done.lines):
            want = turns[n][:2] if n < len(turns) and turns[n] else None
            got = None
            if line.origin is not None and line.status != "changed since":
                origin = done.origins[line.origin]
                got = (origin.task, getattr(origin, "turn_seq", origin.turn))
            if SHOW and got != want and (got or want):
                print(
                    checkout.name,
                    path,
                    n + 1,
                    "got",
                    got,
                    "want",
                    want and want[:2],
                    line.status,
                    repr(line.text[:60]),
                    file=sys.stderr,
                )
            claimed += got is not None
            right += got is not None and got == want
            written += want is not None
            found += want is not None and got == want
    took = (time.perf_counter() - started) / max(len(files), 1)
    return {"claimed": claimed, "right": right, "written": written, "found": found,
            "files": len(files), "ms_per_file": round(took * 1000, 1)}  # fmt: skip


def score_commit(store, repo, checkout: Path, sha: str, truth: dict) -> tuple[bool, dict]:
    """Whether `nodwyn commit` names only turns that wrote the commit's added lines."""
    from nodwyn.memory.provenance.commits import find

    wrote, before = Counter(), set()
    path, old, line = None, None, 0
    for raw in git(repo, "show", "-M", "-U0", "--format=", "--no-color", sha).splitlines():
        if raw.startswith("+++ "):
            path = raw[6:] if raw.startswith("+++ b/") else None
            source = git(repo, "show", f"{sha}^:{old or path}") if path else ""
            before = {norm(x) for x in source.splitlines()}
        elif raw.startswith("--- "):
            old = raw[6:] if raw.startswith("--- a/") else None
        elif raw.startswith("@@"):
            line = int(raw.split("+")[1].split(" ")[0].split(",")[0]) - 1
        elif raw.startswith("+") and path is not None:
            turns = truth.get(path, [])
            if line < len(turns) and turns[line] and norm(raw[1:]) not in before:
                wrote[turns[line][:2]] += 1
            line += 1
    answer = find(store, sha, checkout)
    named = [(f.origin.task, getattr(f.origin, "turn_seq", f.origin.turn)) for f in answer.found]
    ok = bool(named) == bool(wrote) and all(turn in wrote for turn in named)
    if SHOW and not ok:
        print(sha[:7], "named", named, "wrote", dict(wrote), file=sys.stderr)
    return ok, {"sha": sha[:7], "ok": ok, "named": len(named), "turns": len(wrote)}


def materialize(checkout: Path, sha: str) -> None:
    """The checkout at `sha` (HEAD, index, files), like `git checkout --detach`, except that a
    blob a partial snapshot lacks is left out rather than failing the whole checkout."""
    for entry in checkout.iterdir():
        if entry.name != ".git":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    git(checkout, "update-ref", "--no-deref", "HEAD", sha)
    git(checkout, "read-tree", sha)
    listed = git(checkout, "ls-tree", "-r", "-z", sha).split("\0")
    blobs = [(item.split("\t", 1)[1], item.split()[2]) for item in listed if " blob " in item]
    batch = subprocess.run(["git", "-C", str(checkout), "cat-file", "--batch"],
                           input="".join(f"{b}\n" for _, b in blobs).encode(),
                           capture_output=True, check=False).stdout  # fmt: skip
    at = 0
    for path, _ in blobs:
        head_end = batch.index(b"\n", at)
        head = batch[at:head_end].split()
        at = head_end + 1
        if len(head) < 3 or head[1] != b"blob":
            continue
        size = int(head[2])
        file = checkout / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(batch[at : at + size])
        at += size + 1
    git(checkout, "update-index", "-q", "--refresh")


def timeline(repo) -> list[tuple[float, str]]:
    """(committer time, hash) of the first-parent history, oldest first."""
    out = []
    for line in git(repo, "log", "--first-parent", "--reverse", "--format=%ct %H").splitlines():
        stamp, sha = line.split()
        out.append((float(stamp), sha))
    return out


def measure(repo: Path, logs: list[Path], work: Path, points: int = 0) -> dict:
    project = project_of(logs)
    checkout = work / (Path(project).name or "repo")
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(repo), str(checkout)], check=True)
    store = nodwyn_side(logs, work)
    calls = labels_of(store)
    edits, last = edits_of(logs)
    history = timeline(checkout)
    stamps = [t for t, _ in history]
    wanted = {history[-1][1]}
    for end in last.values():
        at = bisect.bisect_left(stamps, end)
        if at < len(history):
            wanted.add(history[at][1])
    truth, pending = Truth(project), list(edits)
    blame_rows, commit_rows, snapshots = [], [], {}
    for stamp, sha in history:
        while pending and pending[0]["at"] <= stamp + SLACK:
            edit = pending.pop(0)
            label = calls.get(edit["call"])
            truth.edit(edit, (*label, edit["at"]) if label else None)
        truth.commit(checkout, sha)
        snapshots[sha] = truth.at(checkout, sha)
    chosen = [sha for _, sha in history if sha in wanted]
    if points:
        chosen = chosen[-points:]
    for sha in chosen:
        materialize(checkout, sha)
        found = checked(checkout, sha, {k: list(v) for k, v in snapshots[sha].items()})
        blame_rows.append({"sha": sha[:7], **score_blame(store, checkout, found)})
    for _, sha in history[-points:] if points else history:
        materialize(checkout, sha)
        commit_rows.append(score_commit(store, checkout, checkout, sha, snapshots[sha])[1])
    return {"blame": blame_rows, "commits": commit_rows, "edits": len(edits),
            "sessions": len(logs), "project": project}  # fmt: skip


def report(found: dict) -> str:
    rows = found["blame"]
    claimed = sum(r["claimed"] for r in rows)
    right = sum(r["right"] for r in rows)
    written = sum(r["written"] for r in rows)
    hit = sum(r["found"] for r in rows)
    out = [f"{found['sessions']} sessions, {found['edits']} successful edits, "
           f"project {found['project']}",
           f"{'point':<8} {'files':>5} {'claimed':>8} {'right':>6} {'written':>8} {'found':>6}"
           f" {'ms/file':>7}"]  # fmt: skip
    for r in rows:
        out.append(f"{r['sha']:<8} {r['files']:>5} {r['claimed']:>8} {r['right']:>6} "
                   f"{r['written']:>8} {r['found']:>6} {r['ms_per_file']:>7}")  # fmt: skip
    out.append(
        f"precision {right / max(claimed, 1):.3f} ({claimed - right} of {claimed} false)"
        f" · recall {hit / max(written, 1):.3f} ({written - hit} of {written} missed)"
    )
    commits = found["commits"]
    wrong = " ".join(f"{c['sha']}({c['named']} named, {c['turns']} wrote)"
                     for c in commits if not c["ok"])  # fmt: skip
    out.append(
        f"commit right {sum(c['ok'] for c in commits)} of {len(commits)}"
        + (f" · wrong: {wrong}" if wrong else "")
    )
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("logs", type=Path, nargs="+")
    parser.add_argument("--points", type=int, default=0, help="only the last N points/commits")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="eval-blame-") as work:
        found = measure(args.repo, args.logs, Path(work), args.points)
    print(json.dumps(found) if args.json else report(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
