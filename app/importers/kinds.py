"""What a file is, in words a person knows, for the reason an importer gives when it refuses
one: "a workspace.yaml", "a YAML file", "a SQLite database", "a protobuf file". An importer
says "not a Copilot CLI session: a workspace.yaml" rather than "its first line is not JSON"."""

from pathlib import Path

_NAMED = {
    "workspace.yaml": "a workspace.yaml (Copilot CLI's note of a session's folder, "
    "read beside its events.jsonl)",
    "state.vscdb": "a Cursor state database",
    ".aider.input.history": "Aider's history of typed inputs (its chats are in "
    ".aider.chat.history.md)",
    "logs.json": "Gemini CLI's prompt log",
}
_SUFFIXES = {
    ".yaml": "a YAML file", ".yml": "a YAML file", ".toml": "a TOML file",
    ".md": "a Markdown file", ".pb": "a protobuf file (binary)", ".db": "a SQLite database",
    ".sqlite": "a SQLite database", ".vscdb": "a SQLite database", ".json": "a JSON file",
    ".txt": "a text file", ".log": "a log file", ".html": "an HTML file", ".csv": "a CSV file",
}  # fmt: skip


def named(path: Path, opening: bytes = b"") -> str:
    """The file as a person would name it, from its name, then its suffix, then its start."""
    for name, said in _NAMED.items():
        if path.name == name or path.name.endswith(f"__{name}"):
            return said
    said = _SUFFIXES.get(path.suffix.lower())
    if said:
        return said
    if opening.startswith(b"SQLite format 3\0"):
        return "a SQLite database"
    if b"\0" in opening:
        return "a binary file"
    if opening.lstrip().startswith((b"---", b"%YAML")):
        return "a YAML file"
    if opening.lstrip().startswith(b"#"):
        return "a Markdown or text file"
    return "a text file whose first line is not JSON"
