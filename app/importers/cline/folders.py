"""The user folders of the VS Code family on this computer, where extensions keep their
globalStorage: VS Code and its Insiders build, VSCodium, Cursor, Windsurf and the other forks,
and the servers that VS Code and its forks run on a remote machine or in a container
(Remote-SSH, Codespaces, Dev Containers: `~/.vscode-server/data/User`).

The root is `%APPDATA%` on Windows, `~/Library/Application Support` on macOS and
`$XDG_CONFIG_HOME` (else `~/.config`) on Linux; `VSCODE_APPDATA`, the variable VS Code itself
reads for it, replaces the root (and leaves the servers' folders out, as it says where all are).
"""

import os
import sys
from pathlib import Path

PRODUCTS = (
    "Code",
    "Code - Insiders",
    "VSCodium",
    "Code - OSS",
    "Cursor",
    "Windsurf",
    "Trae",
    "Kiro",
    "Positron",
)
SERVERS = (
    ".vscode-server",
    ".vscode-server-insiders",
    ".vscodium-server",
    ".cursor-server",
    ".windsurf-server",
    ".vscode-remote",
)


def user_dirs() -> list[Path]:
    """Each editor's `User` folder, whether it exists or not."""
    moved = os.environ.get("VSCODE_APPDATA")
    if moved:
        return [Path(moved) / product / "User" for product in PRODUCTS]
    home = Path.home()
    if sys.platform == "win32":
        root = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        root = home / "Library" / "Application Support"
    else:
        root = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    editors = [root / product / "User" for product in PRODUCTS]
    return editors + [home / server / "data" / "User" for server in SERVERS]
