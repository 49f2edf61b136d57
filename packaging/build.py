"""Build nodwyn's package for the OS this runs on: `python packaging/build.py`.

Runs PyInstaller on packaging/nodwyn.spec (into build/dist/), then the OS's own step:
Linux -> build/dist/nodwyn_<version>_<arch>.deb (packaging/linux.py),
macOS -> build/dist/nodwyn-<version>-macos.dmg holding nodwyn.app (packaging/macos.py),
Windows -> build/dist/nodwyn-<version>-windows.zip holding nodwyn\\nodwyn.exe
(packaging/windows.py).
Prints the bundle's size. Needs the project's dependencies and PyInstaller in the running
Python (`pip install -e '.[gtk,package]'` on Linux, `pip install -e '.[package]'`
elsewhere), and on Linux binutils' `strip` and `readelf`; the icons are already made
(icons/build.py) and committed.

Options: --fast compresses the .deb with gzip -1 (the CI check installs it and throws it
away); --no-bundle reuses the bundle already in build/dist/.
"""

import argparse
import importlib
import subprocess
import sys
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DIST = ROOT / "build" / "dist"
STEPS = {"linux": "linux", "darwin": "macos", "win32": "windows"}


def version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def bundle_path() -> Path:
    return DIST / ("nodwyn.app" if sys.platform == "darwin" else "nodwyn")


def size_mb(path: Path) -> float:
    files = (p for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return sum(p.stat().st_size for p in files) / 1e6


def pyinstaller() -> float:
    """Build the bundle; returns the seconds it took."""
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN"]
        + ["--distpath", str(DIST), "--workpath", str(ROOT / "build" / "pyinstaller")]
        + [str(HERE / "nodwyn.spec")],
        check=True,
        cwd=ROOT,
    )
    return time.monotonic() - started


def strip_symbols(bundle: Path) -> float:
    """Strip the symbol tables of the bundle's ELF files that carry them (on Linux): Python's
    own library and extension modules as this machine's Python was built, and the wheels'
    modules built with them. auditwheel's `*.libs` folders and the modules whose RPATH or
    RUNPATH points into one were rewritten by patchelf, which `strip` can break: left as they
    are. Returns the MB saved."""
    before = size_mb(bundle)
    for path in bundle.rglob("*.so*"):
        if path.is_symlink() or not path.is_file() or ".libs" in path.parent.name:
            continue
        dynamic = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True)
        paths = [line for line in dynamic.stdout.splitlines() if "PATH)" in line]  # R(UN)PATH
        if dynamic.returncode != 0 or any(".libs" in line for line in paths):
            continue
        subprocess.run(["strip", "--strip-unneeded", str(path)], check=True)
    return before - size_mb(bundle)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="quick .deb compression (CI)")
    parser.add_argument("--no-bundle", action="store_true", help="reuse build/dist's bundle")
    args = parser.parse_args(argv)
    platform = next((s for k, s in STEPS.items() if sys.platform.startswith(k)), None)
    if platform is None:
        print(f"no package recipe for {sys.platform}", file=sys.stderr)
        return 1
    if not args.no_bundle:
        print(f"bundle built in {pyinstaller():.0f} s")
        if platform == "linux":
            print(f"symbols stripped: {strip_symbols(bundle_path()):.0f} MB less")
    print(f"bundle {bundle_path()}: {size_mb(bundle_path()):.0f} MB")
    sys.path.insert(0, str(HERE))
    step = importlib.import_module(platform)
    started = time.monotonic()
    made = step.package(DIST, version(), fast=args.fast)
    took = time.monotonic() - started
    print(f"package {made}: {made.stat().st_size / 1e6:.0f} MB (made in {took:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
