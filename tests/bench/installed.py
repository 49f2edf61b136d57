"""nodwyn installed as people install it, for the benchmarks that time new processes.

`pip install -e` (as scripts/test makes the .venv) puts an import hook in every start of that
interpreter, nodwyn's or not; people run a wheel installed into an environment. So a benchmark
builds a wheel of this checkout (`pip wheel`, in a copy of its sources so that the checkout
gains no build/ folder), makes a venv in its scratch folder and installs the wheel there with
pip (its `nodwyn` script, its byte-code), the dependencies being this environment's, named by
a .pth line. That venv's interpreter runs nodwyn and the peer processes (SQLite FTS5) alike.
"""

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "app", "frontend")


def install(scratch: Path) -> str:
    """The interpreter of a venv under `scratch` holding nodwyn installed from a wheel."""
    source, wheels, venv = scratch / "source", scratch / "wheel", scratch / "venv"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=skip)
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run([*pip, "wheel", "--no-deps", "-w", str(wheels), str(source)])
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    ours = {sysconfig.get_paths()[kind] for kind in ("purelib", "platlib")}
    (Path(site) / "nodwyn-dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    wheel = next(wheels.glob("nodwyn-*.whl"))
    # pip of this environment, run by the venv's interpreter: it installs into the venv, the
    # script's first line naming that interpreter; --ignore-installed, so that the nodwyn this
    # environment has (editable) is neither taken for it nor uninstalled
    _run([str(python), *pip[1:], "install", "--no-deps", "--no-index", "--ignore-installed",
          str(wheel)])  # fmt: skip
    return str(python)


def interpreter(python: str | None, scratch: Path) -> tuple[str, str]:
    """The interpreter a benchmark runs (`--python`, else one installed here) and, in words,
    which nodwyn that is."""
    if python:
        return python, f"the nodwyn of {python} (--python)"
    python = install(scratch)
    return python, f"nodwyn installed from a wheel of this checkout (not editable), {python}"


def _run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    return done.stdout.strip()
