"""The Linux package: a .deb made with dpkg-deb from PyInstaller's one-folder bundle.

Layout inside the .deb:
  /opt/nodwyn/                       the bundle (the `nodwyn` executable and _internal/)
  /usr/bin/nodwyn-app                a link to it, the same name as the pip gui-script (the
                                     window's WM_CLASS is named after it: the .desktop
                                     file's StartupWMClass, so docks show the menu's icon)
  /usr/share/applications/nodwyn.desktop
  /usr/share/icons/hicolor/<N>x<N>/apps/nodwyn.png and scalable/apps/nodwyn.svg
No maintainer scripts: the hicolor and desktop-file triggers of Debian and Ubuntu refresh the
icon cache and the menu when files land in those folders.

`Depends` is measured, not guessed: every ELF file of the bundle is run through `ldd` (with
the bundle's own folders first on the library path, as PyInstaller's launcher sets it), and
each library found outside the bundle is mapped to its package with `dpkg -S`: the C library
and the system's GTK stack, which the spec leaves out (the window is the system's WebKit2GTK,
ADR 0060). Needs no ELF file shows are added by name: WebKit2GTK and GTK's typelibs (loaded
by name), fontconfig's configuration (/etc/fonts) and a font (the page names system fonts).
"""

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
# The window's web view and GTK, loaded by name through their typelibs (no ELF file of the
# bundle links them): the system's, with WebKit's own helper processes (ADR 0060).
ALSO_NEEDED = [
    "gir1.2-webkit2-4.1",
    "gir1.2-gtk-3.0",
    "fontconfig-config",
    "fonts-dejavu-core | fonts-liberation2 | fonts-noto-core",
]
DESCRIPTION = """\
Keeps the history of AI coding-agent sessions on your computer
 nodwyn imports the sessions of Claude Code and Codex into its own append-only
 task logs, lists them and finds any turn again by its words. Local only: a
 native window, a tray icon and a background worker in one process."""


def is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(4) == b"\x7fELF"
    except OSError:
        return False


def outside_libraries(bundle: Path) -> tuple[set[str], set[str]]:
    """(paths of libraries the bundle loads from the system, names ldd could not find)."""
    bundle = bundle.resolve()
    folders = {str(p.parent) for p in bundle.rglob("*.so*") if p.is_file()}
    env = {**os.environ, "LD_LIBRARY_PATH": ":".join(sorted(folders))}
    found, missing = set(), set()
    elves = [p for p in sorted(bundle.rglob("*")) if p.is_file() and is_elf(p)]

    def ldd(path: Path) -> str:
        return subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env).stdout

    with ThreadPoolExecutor(4) as pool:  # a few hundred files; ldd mostly waits on the disk
        answers = list(pool.map(ldd, elves))
    for path, answer in zip(elves, answers, strict=True):
        for line in answer.splitlines():
            name, _, where = line.strip().partition(" => ")
            where = where.split(" (")[0].strip()
            if where == "not found":
                missing.add(f"{name} (for {path.relative_to(bundle)})")
            elif where.startswith("/") and not Path(where).resolve().is_relative_to(bundle):
                found.add(where)
    return found, missing


def owner(path: str) -> str | None:
    """The Debian package that installed this file (merged /usr: tries both spellings)."""
    real = os.path.realpath(path)
    candidates = [path, real]
    for name in (path, real):
        if name.startswith("/usr/"):
            candidates.append(name[4:])
        else:
            candidates.append("/usr" + name)
    for candidate in dict.fromkeys(candidates):
        done = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout.split(":")[0].split(",")[0].strip()
    return None


def depends(bundle: Path) -> list[str]:
    """The packages to declare, measured from the bundle (see the module's docstring)."""
    found, missing = outside_libraries(bundle)
    if missing:
        # Optional plugins (Wayland's Vulkan glue, CUPS printing) may link libraries this
        # machine lacks; Qt skips a plugin it cannot load. Shown so a new need is noticed.
        print("libraries not on this machine (their plugins stay unused):", file=sys.stderr)
        for name in sorted(missing):
            print(f"  {name}", file=sys.stderr)
    packages = set()
    for path in found:
        package = owner(path)
        if package is None:
            raise SystemExit(f"no Debian package owns {path}: cannot declare it in Depends")
        packages.add(package)
    return sorted(packages) + ALSO_NEEDED


def architecture() -> str:
    done = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True)
    return done.stdout.strip()


def control(version: str, arch: str, size_kb: int, needs: list[str]) -> str:
    return (
        "Package: nodwyn\n"
        f"Version: {version}\n"
        f"Architecture: {arch}\n"
        "Maintainer: nodwyn maintainers <maintainers@nodwyn.invalid>\n"
        f"Installed-Size: {size_kb}\n"
        f"Depends: {', '.join(needs)}\n"
        "Section: devel\n"
        "Priority: optional\n"
        f"Description: {DESCRIPTION}\n"
    )


def lay_out(bundle: Path, tree: Path) -> None:
    """The installed files under `tree`, as they will sit under / (see the docstring)."""
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(bundle, tree / "opt" / "nodwyn", symlinks=True)
    resources = tree / "opt" / "nodwyn" / "_internal" / "PyQt6" / "Qt6" / "resources"
    if resources.is_dir():
        # Qt WebEngine makes an empty `locales` folder here when it first runs with the right
        # to (as root); shipped empty, it belongs to the package and `dpkg -r` removes it.
        (resources / "locales").mkdir(exist_ok=True)
    (tree / "usr" / "bin").mkdir(parents=True)
    (tree / "usr" / "bin" / "nodwyn-app").symlink_to("/opt/nodwyn/nodwyn")
    apps = tree / "usr" / "share" / "applications"
    apps.mkdir(parents=True)
    shutil.copyfile(HERE / "linux" / "nodwyn.desktop", apps / "nodwyn.desktop")
    icons = tree / "usr" / "share" / "icons" / "hicolor"
    for size in ICON_SIZES:
        folder = icons / f"{size}x{size}" / "apps"
        folder.mkdir(parents=True)
        shutil.copyfile(ROOT / "icons" / "png" / f"nodwyn-{size}.png", folder / "nodwyn.png")
    (icons / "scalable" / "apps").mkdir(parents=True)
    shutil.copyfile(ROOT / "icons" / "nodwyn.svg", icons / "scalable" / "apps" / "nodwyn.svg")
    for path in tree.rglob("*"):  # dpkg wants 0755 folders and no group- or world-writable files
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)


def deb(
    bundle: Path, out: Path, version: str, needs: list[str] | None = None, fast: bool = False
) -> Path:
    """Build out/nodwyn_<version>_<arch>.deb from the bundle folder; returns its path.

    `needs` overrides the measured Depends (tests of the layout use a stand-in bundle);
    `fast` compresses with gzip -1 instead of xz, for the CI check, which only installs it.
    """
    arch = architecture()
    tree = out / "deb-root"
    lay_out(bundle, tree)
    if needs is None:
        needs = depends(bundle)
    size_kb = sum(p.stat().st_size for p in tree.rglob("*") if p.is_file()) // 1024
    (tree / "DEBIAN").mkdir(mode=0o755)
    (tree / "DEBIAN" / "control").write_text(control(version, arch, size_kb, needs))
    package = out / f"nodwyn_{version}_{arch}.deb"
    compression = ["-Zgzip", "-z1"] if fast else ["-Zxz"]
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", *compression, "--build", str(tree), str(package)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    shutil.rmtree(tree)
    return package


def package(dist: Path, version: str, fast: bool = False) -> Path:
    """What packaging/build.py calls on Linux: the .deb beside the bundle."""
    return deb(dist / "nodwyn", dist, version, fast=fast)
