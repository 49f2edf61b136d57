"""The person's settings, kept in `<data>/settings.json`.

Only the person changes these (from the page or the CLI); no model, agent or repository can
write them. A missing file means the defaults; a damaged one is kept aside as
`settings.json.damaged` and the defaults are used, so nothing the person wrote is lost.
Read at every use, so a change takes effect at once in every process.

A provider's API key is a secret, so it is not a setting: the embeddings provider's lives alone
in `<data>/embeddings.key`, the summaries provider's in `<data>/summaries.key`, each readable
only by its owner, and nothing that shows the settings (the page, `nodwyn settings`) ever reads
one back; they say only whether one is set.
"""

import _thread  # threading's RLock and get_ident, without threading's import
import os
from pathlib import Path
from typing import Literal

import msgspec

from .errors import BadInput, no_room, not_written


class Settings(msgspec.Struct, kw_only=True, omit_defaults=True):
    follow_claude: bool = True  # import and follow Claude Code's projects folder
    follow_codex: bool = True  # import and follow Codex's sessions folder
    search_tool_output: bool = True  # whether tool output is searched
    show_machine_runs: bool = False  # list sessions no person typed into
    close_to_tray: bool = True  # closing the window hides it; False quits
    earlier_tasks: dict[str, bool] = {}  # project folder -> agents may search its earlier tasks
    # search by words (BM25), meaning (vectors) or both fused (docs/decisions: search by meaning)
    search_mode: Literal["words", "meaning", "both"] = "both"
    # vectors from the built-in model, or from a provider (sends text to embeddings_url)
    embeddings: Literal["builtin", "ollama", "openai", "voyage"] = "builtin"
    embeddings_url: str = ""  # e.g. http://127.0.0.1:11434 (Ollama), http://127.0.0.1:8080
    embeddings_model: str = ""  # the provider's model name, e.g. nomic-embed-text
    # folders the person imported with "Import a folder…", per agent ("claude"/"codex"); the
    # worker follows them as it follows the agents' own folders, until the person stops it
    extra_folders: dict[str, list[str]] = {}
    # every other agent (gemini, copilot, ...) -> followed or not; an agent not named here is
    # followed when one of its folders exists on this computer (docs/decisions: registry)
    follow: dict[str, bool] = {}
    # a search that needs the model with no app running starts the search service, which
    # ends after search_service_idle seconds unused (app/background/service.py); False: each search
    # loads the model in its own process
    search_service: bool = True
    search_service_idle: int = 600
    # past tasks summarized by a model the person chooses (ADR 0033), off until chosen; the
    # turns' cards are sent to summaries_url only after an estimate the person confirmed
    summaries: Literal["off", "ollama", "openai", "anthropic"] = "off"
    summaries_url: str = ""  # e.g. http://127.0.0.1:11434 (Ollama), https://api.anthropic.com
    summaries_model: str = ""  # e.g. llama3.2, gpt-5-mini, claude-haiku-4-5
    # the terminal "Open in terminal" starts (a command line: "kitty", "alacritty"); "" means
    # $TERMINAL, else the desktop's own (reading/terminal.py)
    terminal: str = ""
    # a desktop notification when a live session needs your answer (live/, the tray)
    notify_answers: bool = True


# one writer at a time in this process: the page's requests run on several threads, and a
# change is a read, a merge and a write (two at once lost one, or failed on one temp file)
_writing = _thread.RLock()


def _tmp(file: Path) -> Path:
    return file.with_name(f".{file.name}.{os.getpid()}.{_thread.get_ident()}.tmp")


def path(root: Path) -> Path:
    return root / "settings.json"


KEYS = {"embeddings": "Settings > Search", "summaries": "Settings > Summaries"}


def key_path(root: Path, name: str = "embeddings") -> Path:
    return root / f"{name}.key"


def embeddings_key(root: Path, name: str = "embeddings") -> str:
    """The API key the person gave for provider `name` (KEYS), or "" when none is set."""
    file = key_path(root, name)
    try:
        return file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:  # the file is kept: the person may mend it
        raise BadInput(
            f"the API key kept in {file} cannot be read ({exc.__class__.__name__}): "
            f"enter it again in {KEYS[name]}"
        ) from exc


def set_embeddings_key(root: Path, key: str, name: str = "embeddings") -> None:
    """Keep the key of provider `name` where only its owner can read it; "" forgets it."""
    key = key.strip()
    if any(ch.isspace() for ch in key) or not key.isprintable():
        raise BadInput("an API key is one word of printable characters")
    file = key_path(root, name)
    with _writing:
        if not key:
            file.unlink(missing_ok=True)
            return
        tmp = _tmp(file)
        tmp.unlink(missing_ok=True)  # made anew below, so only its owner can read it
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(key + "\n")
        os.replace(tmp, file)


def load(root: Path) -> Settings:
    file = path(root)
    try:
        return msgspec.json.decode(file.read_bytes(), type=Settings)
    except FileNotFoundError:
        return Settings()
    except (msgspec.DecodeError, msgspec.ValidationError):
        os.replace(file, file.with_name("settings.json.damaged"))
        return Settings()


def save(root: Path, settings: Settings) -> None:
    file = path(root)
    tmp = _tmp(file)
    with _writing:
        try:
            tmp.write_bytes(msgspec.json.format(msgspec.json.encode(settings)) + b"\n")
            os.replace(tmp, file)
        except BaseException as exc:
            tmp.unlink(missing_ok=True)
            if no_room(exc):
                raise not_written("the settings", exc) from None
            raise


def follow_folder(root: Path, agent: str, folder: str) -> Settings:
    """Add a folder the person imported to those followed for `agent` (once)."""
    with _writing:
        extra = {name: list(folders) for name, folders in load(root).extra_folders.items()}
        if folder in extra.get(agent, []):
            return load(root)
        extra.setdefault(agent, []).append(folder)
        return update(root, extra_folders=extra)


def update(root: Path, **changes) -> Settings:
    """Change some settings and keep the rest; unknown names are refused."""
    with _writing:
        current = msgspec.structs.asdict(load(root))
        unknown = set(changes) - set(current)
        if unknown:
            raise BadInput(f"no setting named {', '.join(sorted(unknown))}")
        current.update(changes)
        try:
            settings = msgspec.convert(current, Settings)
        except msgspec.ValidationError as exc:
            raise BadInput(f"not a valid setting: {exc}") from None
        save(root, settings)
        return settings
