"""The Windows package: the one-folder bundle (nodwyn.exe, windowed, with icons/nodwyn.ico,
beside its _internal folder) in a .zip a person unpacks anywhere and double-clicks.

One folder rather than one file: a one-file .exe unpacks itself into a temporary folder on
every start, which costs seconds and trips some virus scanners. WebView2 itself is not
bundled: Windows 10 and 11 ship the Evergreen WebView2 runtime (docs/decisions/0007).
"""

import shutil
from pathlib import Path


def package(dist: Path, version: str, fast: bool = False) -> Path:
    folder = dist / "nodwyn"
    if not (folder / "nodwyn.exe").exists():
        raise SystemExit(f"{folder} has no nodwyn.exe")
    archive = dist / f"nodwyn-{version}-windows"
    return Path(shutil.make_archive(str(archive), "zip", root_dir=dist, base_dir="nodwyn"))
