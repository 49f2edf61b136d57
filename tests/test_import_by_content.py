"""A folder of agents' logs kept under names of a person's own (issue 40): the files below a
folder named for an import that the agent does not name as sessions are read by their content,
become the tasks they would under their own names (no task twice when the original turns up),
and what gave nothing says why, one line a reason. The real files of ../shared/corpus, copied
into tmp_path under other names."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nodwyn.importers.sync import import_paths
from nodwyn.tasks.store import Store

GEMINI = sorted(
    [
        "AshmitSingh-Developer__Deploy-an-Agent-with-Agent-Development-Kit__session-2026-08-17T17-31-a2a-serv.jsonl",
        "wingorithm__Vibe-Coding-Comparison-Project__session-2026-04-25T08-46-c737eb36.jsonl",
        "sharthak-sev__sat-test-app__my-session.json",
        "wingorithm__Vibe-Coding-Comparison-Project__logs.json",
    ]
)  # fmt: skip


def copies(files: list[Path], folder: Path) -> list[Path]:
    """The files as copy1.<type>, copy2.<type>, ... (their times kept: finished sessions)."""
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for number, file in enumerate(files, 1):
        made.append(folder / f"copy{number}{file.suffix}")
        shutil.copy2(file, made[-1])
    return made


def nodwyn(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "nodwyn.cli", *args],
        capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def test_renamed_gemini_sessions_are_read_by_their_content_and_say_why(corpus, tmp_path):
    folder = tmp_path / "kept"
    copies([corpus / "other" / "gemini-cli" / name for name in GEMINI], folder)
    lines = nodwyn("import", "gemini", str(folder)).stdout.splitlines()
    assert lines[1:] == [
        "2 created, 0 extended, 0 unchanged, 2 skipped",
        "  4 files are not named as Gemini CLI names its sessions: read by their content",
        f"  skipped {folder / 'copy1.jsonl'}: no conversation in it (only Gemini CLI's session "
        "context, nothing a person wrote)",
        f"  skipped {folder / 'copy3.json'}: Gemini CLI's prompt log (logs.json), not a session "
        "(its prompts are in them)",
    ]


def test_a_folder_of_another_agents_files_says_why_none_became_a_task(corpus, tmp_path):
    folder = tmp_path / "kept"
    files = sorted((corpus / "other" / "copilot-cli").glob("*events.jsonl"))
    copies(files, folder)
    lines = nodwyn("import", "gemini", str(folder)).stdout.splitlines()
    assert lines[1] == "0 created, 0 extended, 0 unchanged, 2 skipped"
    assert lines[2] == (
        "  2 files are not named as Gemini CLI names its sessions: read by their content"
    )
    assert lines[3].startswith(
        "  2 skipped: not a Gemini CLI session (its first line is not a session's metadata) "
        '(first line: {"type":"session.start","data":{"sessionId":"'
    )
    assert lines[3].endswith("…): copy1.jsonl, copy2.jsonl") and len(lines) == 4


def test_a_folder_with_nothing_to_read_says_so(tmp_path):
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("not a log")
    lines = nodwyn("import", "gemini", str(tmp_path / "kept")).stdout.splitlines()
    assert lines[1:] == [
        "0 created, 0 extended, 0 unchanged, 0 skipped",
        "  no file there could be a Gemini CLI session: none named as its sessions nor of its "
        "types (.jsonl, .json)",
    ]


def test_files_an_agent_names_are_not_read_twice_and_other_types_not_at_all(corpus, tmp_path):
    folder = tmp_path / "kept"
    copies([corpus / "other" / "gemini-cli" / GEMINI[3]], folder)  # a session, named by Gemini
    (folder / "copy1.jsonl").rename(folder / "session-2026-04-25T08-46-c737eb36.jsonl")
    (folder / "notes.txt").write_text("not a log")
    (folder / ".git").mkdir()
    shutil.copy2(corpus / "other" / "gemini-cli" / GEMINI[2], folder / ".git" / "x.json")
    report = import_paths(Store(), "gemini", [folder])
    assert (len(report.created), report.renamed, report.skipped) == (1, [], [])


# agent -> (its real files, where each goes under the agent's own name)
OWN_NAMES = {
    "gemini": ("other/gemini-cli", "*.json*", lambda i, f: f"chats/session-0{i}-abcd{i}{f.suffix}"),
    "copilot": ("other/copilot-cli", "*.jsonl", lambda i, f: f"session-state/{i}/events.jsonl"),
    "cursor": ("other/cursor", "*.vscdb", lambda i, f: f"workspaceStorage/w{i}/state.vscdb"),
    "opencode": ("other/opencode", "*.json", lambda i, f: f"export/{i}-{f.name.split('__')[-1]}"),
    "antigravity": ("other/antigravity", "*_full.jsonl", lambda i, f: "b/transcript_full.jsonl"),
    "claude": ("claude", "d-kimuson*.jsonl", lambda i, f: f"projects/p/{f.name.split('__')[-1]}"),
    "codex": ("codex", "*.jsonl", lambda i, f: f"sessions/rollout-{i}.jsonl"),
}  # fmt: skip


@pytest.mark.parametrize("agent", sorted(OWN_NAMES))
def test_a_renamed_copy_is_the_same_task_as_its_original(corpus, tmp_path, agent):
    where, pattern, own_name = OWN_NAMES[agent]
    files = sorted((corpus / where).glob(pattern))[:4]
    copies(files, tmp_path / "renamed")
    for number, file in enumerate(files):
        (tmp_path / "own" / own_name(number, file)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(file, tmp_path / "own" / own_name(number, file))
    store = Store()
    by_content = import_paths(store, agent, [tmp_path / "renamed"])
    # Claude Code's, Codex's and OpenCode's exports are any .jsonl or .json: already looked at
    named_anyhow = agent in ("claude", "codex", "opencode")
    assert by_content.created and len(by_content.renamed) == (0 if named_anyhow else len(files))
    original = import_paths(store, agent, [tmp_path / "own"])  # the originals turn up later
    assert original.created == [] and not original.renamed
    assert sorted(original.unchanged) == sorted(by_content.created)
    alone = import_paths(Store(tmp_path / "other-data"), agent, [tmp_path / "own"])
    assert sorted(alone.created) == sorted(by_content.created)


def test_renamed_aider_histories_are_read_by_their_content(corpus, tmp_path):
    """Aider's task ids hold the history's own path (ADR 0023: its runs are told apart by the
    second they started), so a copy is a task of its own, but it is imported."""
    files = sorted((corpus / "other" / "aider").glob("*.chat.history.md"))
    copies(files, tmp_path / "kept")
    (tmp_path / "kept" / "README.md").write_text("# pager\n\nA pager.\n")
    report = import_paths(Store(), "aider", [tmp_path / "kept"])
    assert len(report.renamed) == 3 and len(report.created) >= 2
    (readme,) = report.skipped
    assert readme.path.endswith("README.md") and readme.first_line == "# pager"
