"""The settings as the page shows and changes them (Settings > Search, Summaries, Folders, Agents).

What the page sends is checked whole before anything is kept: an unknown agent, a relative
folder, or an embeddings provider whose address or model could not work is refused (400) and
the settings stay as they were. The API key is write-only: the page learns only whether one is
set; a key it refuses changes nothing, and an address changed without a new key forgets the old
one (it was for that server).
"""

import os
from pathlib import Path
from typing import Literal

import msgspec

from .. import settings
from ..errors import BadInput
from ..importers import registry
from ..memory.meaning.providers import KEY_VARIABLE, Provider
from ..reading import terminal
from ..summarizing.providers import keep_key


class SettingsChange(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The settings the page changes (Settings > Search); a field left out is kept."""

    follow_claude: bool | None = None
    follow_codex: bool | None = None
    search_tool_output: bool | None = None
    show_machine_runs: bool | None = None
    close_to_tray: bool | None = None
    search_mode: Literal["words", "meaning", "both"] | None = None
    # where vectors come from; a provider is checked (address, model) before it is
    # kept. The key is write-only: it is kept apart (settings.set_embeddings_key), "" forgets
    # it, and an address changed without a new key forgets the old one (it was for that server).
    embeddings: Literal["builtin", "ollama", "openai", "voyage"] | None = None
    embeddings_url: str | None = None
    embeddings_model: str | None = None
    embeddings_key: str | None = None
    # the model that summarizes past tasks when the person asks, checked and its key
    # kept the same way (summarizing.providers.keep_key)
    summaries: Literal["off", "ollama", "openai", "anthropic"] | None = None
    summaries_url: str | None = None
    summaries_model: str | None = None
    summaries_key: str | None = None
    # project folder -> whether agents may search its earlier tasks; merged into the
    # switches already set (false turns a switch off).
    earlier_tasks: dict[str, bool] | None = None
    # agent -> the imported folders the worker follows (the whole list; the page
    # sends it without a folder to stop following that one)
    extra_folders: dict[str, list[str]] | None = None
    # agent -> followed, for the agents after Claude Code and Codex; merged into
    # the switches already set
    follow: dict[str, bool] | None = None
    # the terminal "Open in terminal" starts ("" for $TERMINAL or the desktop's own)
    terminal: str | None = None
    # a desktop notification when a live session needs your answer
    notify_answers: bool | None = None


def shown(root: Path) -> dict:
    """The settings as the page reads them: the API key never, only whether one is set."""
    shown = msgspec.structs.asdict(settings.load(root))
    shown["embeddings_key_set"] = settings.key_path(root).exists()  # read only to be sent
    shown["summaries_key_set"] = settings.key_path(root, "summaries").exists()
    return shown


def change(root: Path, change: SettingsChange) -> dict:
    given = msgspec.structs.asdict(change)
    key, summaries_key = given.pop("embeddings_key"), given.pop("summaries_key")
    before = settings.load(root)
    if given["earlier_tasks"] is not None:
        switches = dict(before.earlier_tasks)
        for folder, allowed in given["earlier_tasks"].items():
            switches.pop(folder, None)
            if allowed:
                switches[folder] = True
        given["earlier_tasks"] = switches
    if given["follow"] is not None:
        unknown = set(given["follow"]) - set(registry.agent_keys())
        if unknown:
            raise BadInput(f"no agent named {', '.join(sorted(unknown))}")
        given["follow"] = {**before.follow, **given["follow"]}
    given = {name: value for name, value in given.items() if value is not None}
    if "extra_folders" in given:
        for agent, folders in given["extra_folders"].items():
            if agent not in registry.agent_keys() or not all(
                Path(each).is_absolute() for each in folders
            ):
                raise BadInput(
                    f"extra folders are full paths for {', '.join(registry.agent_keys())}"
                )
        given["extra_folders"] = {agent: on for agent, on in given["extra_folders"].items() if on}
    if given.get("terminal"):
        given["terminal"] = terminal.checked(given["terminal"])
    after = msgspec.structs.replace(before, **given)
    if after.embeddings != "builtin":
        # refuses a kind, address or model that could not work, before anything is kept
        Provider(after.embeddings, after.embeddings_url, after.embeddings_model)
    if after.embeddings == "voyage" and not _has_key(root, before, after, key):
        raise BadInput("Voyage AI needs an API key: type it in the API key field")
    if key is not None:
        settings.set_embeddings_key(root, key)  # first: a key it refuses changes nothing
    elif after.embeddings_url != before.embeddings_url:
        settings.set_embeddings_key(root, "")
    keep_key(root, before, after, summaries_key)
    settings.update(root, **given)
    return shown(root)


def _has_key(root: Path, before, after, key: str | None) -> bool:
    """Whether the embeddings provider would have a key once this change is kept."""
    if key is not None:
        return bool(key.strip())
    kept = after.embeddings_url == before.embeddings_url and settings.key_path(root).exists()
    return kept or bool(os.environ.get(KEY_VARIABLE))
