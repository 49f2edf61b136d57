"""Every icon file the packages need, made from icons/nodwyn.svg.

Run `python icons/build.py` after changing the SVG, and commit what it writes: building a
package only copies these files, so it needs no SVG renderer. Rendering needs `rsvg-convert`
(Debian/Ubuntu: `apt-get install librsvg2-bin`; macOS: `brew install librsvg`); the rest is
the standard library.

What it writes, all beside this file:
- png/nodwyn-<N>.png for N in SIZES: the app icon (Linux hicolor theme, window icons);
- nodwyn.ico: Windows, PNG-compressed entries at ICO_SIZES (Windows Vista and later read them);
- nodwyn.icns: macOS, PNG entries under the types of ICNS_TYPES, with a table of contents;
- tray/: the one-colour glyph for panels where the colour square would not fit the style:
  nodwyn-tray-dark-<N>.png (a dark glyph for light panels), nodwyn-tray-light-<N>.png (a white
  glyph for dark panels), and nodwynTemplate.png / nodwynTemplate@2x.png (macOS menu-bar
  "template" images: black plus alpha, which macOS recolours for light and dark menu bars).

Invariants: every PNG is rendered from the SVG at its own size (never scaled from another PNG),
so small sizes stay sharp; the output is a pure function of the SVG and the renderer, so
running the script twice changes nothing.
"""

import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "nodwyn.svg"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = (16, 20, 24, 32, 40, 48, 64, 256)
# ICNS chunk type -> pixel size. icp4/icp5/icp6 and ic07..ic10 are the 1x sizes, ic11..ic14
# the Retina (2x) ones; all hold PNG data, which macOS reads since 10.7.
ICNS_TYPES = {
    b"icp4": 16,
    b"icp5": 32,
    b"icp6": 64,
    b"ic07": 128,
    b"ic08": 256,
    b"ic09": 512,
    b"ic10": 1024,
    b"ic11": 32,
    b"ic12": 64,
    b"ic13": 256,
    b"ic14": 512,
}
TRAY_SIZES = (16, 22, 24, 32, 48, 64)
TRAY_COLOURS = {"dark": "#1d2127", "light": "#ffffff"}
SVG_NS = "http://www.w3.org/2000/svg"


def render(svg: bytes, size: int) -> bytes:
    """The SVG as a size x size PNG, by rsvg-convert."""
    done = subprocess.run(
        ["rsvg-convert", "--width", str(size), "--height", str(size), "--format", "png"],
        input=svg,
        capture_output=True,
        check=True,
    )
    return done.stdout


def glyph_svg(colour: str) -> bytes:
    """The glyph alone (the SVG's <path>), in one colour, filling a square canvas."""
    path = ET.parse(SOURCE).getroot().find(f"{{{SVG_NS}}}path")
    if path is None:
        raise SystemExit(f"{SOURCE} has no <path>: the glyph is what the tray icons are made of")
    attrs = " ".join(f'{name}="{value}"' for name, value in path.attrib.items() if name != "stroke")
    # The glyph spans x 56..200 and y 38..218 of the 256 grid: a 188-unit square around it.
    return (
        f'<svg xmlns="{SVG_NS}" width="188" height="188" viewBox="34 34 188 188">'
        f'<path {attrs} stroke="{colour}"/></svg>'
    ).encode()


def ico(pngs: dict[int, bytes]) -> bytes:
    """An ICO file: a 6-byte header, one 16-byte entry per image, then the PNG data."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries, blobs = b"", b""
    for size, data in sorted(pngs.items()):
        side = 0 if size >= 256 else size  # 0 stands for 256 in the one-byte fields
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    return header + entries + blobs


def icns(chunks: dict[bytes, bytes]) -> bytes:
    """An ICNS file: 'icns' + total length, a 'TOC ' chunk listing the others, then each
    chunk as its 4-byte type, its length (header included, big-endian) and its data."""
    body = b"".join(kind + struct.pack(">I", 8 + len(data)) + data for kind, data in chunks.items())
    toc = b"".join(kind + struct.pack(">I", 8 + len(data)) for kind, data in chunks.items())
    toc = b"TOC " + struct.pack(">I", 8 + len(toc)) + toc
    return b"icns" + struct.pack(">I", 8 + len(toc) + len(body)) + toc + body


def write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
        print(f"wrote {path.relative_to(HERE.parent)} ({len(data):,} bytes)")


def main() -> int:
    if shutil.which("rsvg-convert") is None:
        print(
            "icons/build.py needs rsvg-convert: `apt-get install librsvg2-bin` "
            "(Debian, Ubuntu) or `brew install librsvg` (macOS).",
            file=sys.stderr,
        )
        return 1
    svg = SOURCE.read_bytes()
    pngs = {size: render(svg, size) for size in sorted({*SIZES, *ICO_SIZES})}
    for size in SIZES:
        write(HERE / "png" / f"nodwyn-{size}.png", pngs[size])
    write(HERE / "nodwyn.ico", ico({size: pngs[size] for size in ICO_SIZES}))
    write(HERE / "nodwyn.icns", icns({kind: pngs[size] for kind, size in ICNS_TYPES.items()}))
    for name, colour in TRAY_COLOURS.items():
        glyph = glyph_svg(colour)
        for size in TRAY_SIZES:
            write(HERE / "tray" / f"nodwyn-tray-{name}-{size}.png", render(glyph, size))
    template = glyph_svg("#000000")
    write(HERE / "tray" / "nodwynTemplate.png", render(template, 18))
    write(HERE / "tray" / "nodwynTemplate@2x.png", render(template, 36))
    return 0


if __name__ == "__main__":
    sys.exit(main())
