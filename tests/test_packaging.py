"""The package recipes' parts that run in a second: icons, the .deb's layout and Depends.

The whole Linux package (PyInstaller bundle, .deb installed with dpkg, the app started under
Xvfb) takes a minute and root, so .ci/run runs it as its own step: packaging/check.py.
"""

import importlib.util
import io
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
ICONS = ROOT / "icons"
sys.path.insert(0, str(ROOT / "packaging"))
import linux  # noqa: E402  (packaging/linux.py)


def load(path: Path):
    """A script as a module, under a name of its own (icons/ and packaging/ both have build.py)."""
    spec = importlib.util.spec_from_file_location(f"nodwyn_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


icon_build = load(ICONS / "build.py")

debian = pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb (Debian)")


def picture(source) -> Image.Image:
    """The image at a path (or in a file object), read whole and its file closed."""
    with Image.open(source) as image:
        image.load()
        copy = image.copy()
        copy.info = dict(image.info)
        return copy


def chunks(data: bytes) -> dict[bytes, bytes]:
    """The chunks of an ICNS file, read by its format's rules (type, big-endian length)."""
    assert data[:4] == b"icns"
    assert struct.unpack(">I", data[4:8])[0] == len(data)
    found, at = {}, 8
    while at < len(data):
        kind, length = data[at : at + 4], struct.unpack(">I", data[at + 4 : at + 8])[0]
        found[kind] = data[at + 8 : at + length]
        at += length
    assert at == len(data)
    return found


def test_every_png_has_the_size_its_name_says():
    for size in icon_build.SIZES:
        assert picture(ICONS / "png" / f"nodwyn-{size}.png").size == (size, size)
    for name in icon_build.TRAY_COLOURS:
        for size in icon_build.TRAY_SIZES:
            image = picture(ICONS / "tray" / f"nodwyn-tray-{name}-{size}.png")
            assert image.size == (size, size)
    assert picture(ICONS / "tray" / "nodwynTemplate@2x.png").size == (36, 36)


def test_the_ico_holds_every_size_windows_asks_for():
    sizes = picture(ICONS / "nodwyn.ico").info["sizes"]
    assert sorted(sizes) == [(s, s) for s in icon_build.ICO_SIZES]


def test_the_icns_holds_each_size_under_its_type_with_a_table_of_contents():
    found = chunks((ICONS / "nodwyn.icns").read_bytes())
    toc = found.pop(b"TOC ")
    assert [toc[i : i + 4] for i in range(0, len(toc), 8)] == list(found)
    assert set(found) == set(icon_build.ICNS_TYPES)
    for kind, data in found.items():
        size = icon_build.ICNS_TYPES[kind]
        assert picture(io.BytesIO(data)).size == (size, size), kind
    assert picture(ICONS / "nodwyn.icns").size == (1024, 1024)  # Pillow reads its largest


def test_the_tray_glyphs_are_one_colour_each():
    for name, colour in icon_build.TRAY_COLOURS.items():
        image = picture(ICONS / "tray" / f"nodwyn-tray-{name}-32.png").convert("RGBA")
        solid = {pixel[:3] for _, pixel in image.getcolors(1 << 16) if pixel[3] == 255}
        want = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
        assert solid == {want}, name


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="needs rsvg-convert")
def test_the_committed_icons_are_what_the_script_makes_of_the_svg(tmp_path):
    copy = tmp_path / "icons"
    shutil.copytree(ICONS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, copy / "build.py"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "", f"icons/build.py changed files; run it and commit:\n{done.stdout}"


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils")
def test_the_desktop_file_validates():
    path = ROOT / "packaging" / "linux" / "nodwyn.desktop"
    done = subprocess.run(["desktop-file-validate", path], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, ""), done.stdout


def stand_in_bundle(folder: Path) -> Path:
    """A bundle-shaped folder whose one program is a copy of a system binary."""
    bundle = folder / "nodwyn"
    (bundle / "_internal").mkdir(parents=True)
    shutil.copy2(shutil.which("true"), bundle / "nodwyn")
    return bundle


@debian
def test_the_measured_depends_name_the_package_of_each_system_library(tmp_path):
    needs = linux.depends(stand_in_bundle(tmp_path))
    assert needs[0] == "libc6"  # what /bin/true links
    assert needs[1:] == linux.ALSO_NEEDED


@debian
def test_the_deb_holds_the_bundle_the_menu_entry_and_the_icons(tmp_path):
    bundle = stand_in_bundle(tmp_path / "dist")
    package = linux.deb(bundle, tmp_path, "9.8.7", needs=["libc6"], fast=True)
    fields = subprocess.run(["dpkg-deb", "-f", package], capture_output=True, text=True).stdout
    assert "Package: nodwyn\n" in fields and "Version: 9.8.7\n" in fields
    assert "Depends: libc6\n" in fields
    listing = subprocess.run(["dpkg-deb", "-c", package], capture_output=True, text=True).stdout
    for path in (
        "./opt/nodwyn/nodwyn",
        "./usr/share/applications/nodwyn.desktop",
        "./usr/share/icons/hicolor/16x16/apps/nodwyn.png",
        "./usr/share/icons/hicolor/512x512/apps/nodwyn.png",
        "./usr/share/icons/hicolor/scalable/apps/nodwyn.svg",
    ):
        assert f" {path}\n" in listing, path
    assert "./usr/bin/nodwyn-app -> /opt/nodwyn/nodwyn" in listing
    assert re.search(r"^-rwxr-xr-x root/root .* \./opt/nodwyn/nodwyn$", listing, re.M)


def test_the_check_prints_each_figure_beside_its_goal_and_fails_over_one(capsys):
    import check  # packaging/check.py

    idle = {"open": {"pss_mb": 180.4, "each": [{"kind": "window", "pss_mb": 60.0, "rss_mb": 90.0}]},
            "closed": {"pss_mb": 95.0, "each": []}}  # fmt: skip
    assert check.figures(187.0, 70.0, {"idle": idle}) == 0
    printed = capsys.readouterr().out
    assert "bundle_mb: 187 (goal under 200)" in printed
    assert "open_pss_mb: 180 (goal under 250)" in printed
    assert "open: window PSS 60 MB, RSS 90 MB" in printed
    assert check.figures(187.0, 92.0, {"idle": idle}) == 1  # the .deb over its goal
    assert "FAILED: over the goal or not measured: deb_mb" in capsys.readouterr().err
    assert check.figures(187.0, 70.0, {}) == 1  # no idle step in the report: not measured
    capsys.readouterr()
    heavy = {"open": {"pss_mb": 304.0, "each": []}, "closed": {"pss_mb": 70.0, "each": []}}
    assert check.figures(187.0, 70.0, {"idle": heavy}) == 0  # memory over its goal is said
    assert "open_pss_mb is over its goal" in capsys.readouterr().out
