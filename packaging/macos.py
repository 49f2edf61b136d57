"""The macOS package: nodwyn.app (made by the spec's BUNDLE step) in a compressed disk image.

The .app carries Info.plist (bundle id, version, local networking for the page's own server)
and icons/nodwyn.icns; `hdiutil` (part of macOS) makes the .dmg a person opens and drags
the app out of. The app is not signed or notarised here: that needs an Apple Developer ID,
and without it Gatekeeper asks the person to confirm the first start (right click > Open).
"""

import plistlib
import subprocess
from pathlib import Path


def package(dist: Path, version: str, fast: bool = False) -> Path:
    app = dist / "nodwyn.app"
    info = plistlib.loads((app / "Contents" / "Info.plist").read_bytes())
    if info.get("CFBundleShortVersionString") != version:
        raise SystemExit(f"{app} says version {info.get('CFBundleShortVersionString')}")
    if not (app / "Contents" / "Resources" / "nodwyn.icns").exists():
        raise SystemExit(f"{app} has no icon (Contents/Resources/nodwyn.icns)")
    image = dist / f"nodwyn-{version}-macos.dmg"
    image.unlink(missing_ok=True)
    subprocess.run(
        ["hdiutil", "create", "-volname", "nodwyn", "-srcfolder", str(app), "-ov"]
        + ["-format", "UDZO", str(image)],
        check=True,
    )
    return image
