"""Codex's one `notify` slot in `~/.codex/config.toml`: nodwyn's hook there, chained to the
program the person had in it, which still runs with the same argument after ours.

`notify = ["prog", "arg"]` becomes `notify = [<hook> "codex-notify" --data-dir D -- "prog"
"arg"]`; remove puts the person's back as it was (or takes the key out where there was none).
tomlkit keeps the rest of the file, comments and layout, as it was; the result is checked
with tomllib, the standard's reader, before it is written.
"""

import tomllib

import tomlkit

from ..errors import BadInput
from ..mcp import install as mcp
from .commands import command, ours


def _file():
    return mcp.codex_file()


def lines() -> str:
    words = ", ".join(tomlkit.string(w).as_string() for w in command("codex-notify"))
    return (
        f"and in {_file()}, nodwyn's hook in the notify slot (yours chained after it):\n"
        f"notify = [{words}]\n"
    )


def _load():
    file = _file()
    text = file.read_text(encoding="utf-8") if file.exists() else ""
    try:
        tomllib.loads(text)
        return file, text, tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, Exception) as exc:  # tomlkit's own errors too
        raise BadInput(f"{file} is not valid TOML ({exc}); nothing was changed") from None


def write() -> str:
    file, text, doc = _load()
    now = doc.get("notify")
    if now is not None and ours(list(now)):
        return f"{file}'s notify is nodwyn's already."
    if now is not None and not (isinstance(now, list) and all(isinstance(w, str) for w in now)):
        raise BadInput(f"{file}: notify is not a list of words; nothing was changed")
    theirs = [str(w) for w in now] if now else []
    doc["notify"] = command("codex-notify") + (["--", *theirs] if theirs else [])
    _save(file, text, doc)
    chained = f", chained to yours ({' '.join(theirs)})" if theirs else ""
    return f"Put nodwyn's hook in {file}'s notify{chained}."


def remove() -> str:
    file, text, doc = _load()
    now = doc.get("notify")
    if now is None or not ours(list(now)):
        return f"{file}'s notify is not nodwyn's; left as it is."
    words = [str(w) for w in now]
    theirs = words[words.index("--") + 1 :] if "--" in words else []
    if theirs:
        doc["notify"] = theirs
        said = f"{file}'s notify is yours again ({' '.join(theirs)})."
    else:
        del doc["notify"]
        said = f"Took nodwyn's notify out of {file}."
    _save(file, text, doc)
    return said


def _save(file, text: str, doc) -> None:
    new = tomlkit.dumps(doc)
    tomllib.loads(new)  # what Codex will read: raises before anything is written
    mcp._replace(file, new)  # noqa: SLF001 (the same atomic write and first backup)
