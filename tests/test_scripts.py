"""scripts/setup.sh (sourced by scripts/run and scripts/test), run by bash on a copy: it
installs only when pyproject.toml or the extras changed, and names what the system lacks with
the command that installs it; the README's apt line is scripts/packages-debian's."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def clone(tmp_path) -> Path:
    """The scripts and pyproject.toml of a checkout, and a .venv whose nodwyn is there."""
    (tmp_path / "scripts").mkdir()
    for name in ("setup.sh", "packages-debian"):
        shutil.copyfile(ROOT / "scripts" / name, tmp_path / "scripts" / name)
    shutil.copyfile(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    nodwyn = tmp_path / ".venv" / "bin" / "nodwyn"
    nodwyn.write_text("#!/bin/sh\n")
    nodwyn.chmod(0o755)
    return tmp_path


def bash(clone: Path, script: str) -> subprocess.CompletedProcess:
    """`script` after sourcing setup.sh, under the options scripts/run and scripts/test set."""
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail; NAME=scripts/x; . scripts/setup.sh; {script}"],
        cwd=clone, capture_output=True, text=True, timeout=30,
    )  # fmt: skip


def stamp(clone: Path, extras: str) -> None:
    line = bash(clone, 'printf "%s" "$(cksum < pyproject.toml)"').stdout
    (clone / ".venv" / ".nodwyn-installed").write_text(f"{line}|{extras}\n")


def test_nothing_is_installed_again_while_pyproject_and_the_extras_are_those_installed(clone):
    assert bash(clone, "installed qt").returncode == 1  # no stamp: never installed here
    stamp(clone, "qt,test")
    assert bash(clone, "installed qt").returncode == 0  # scripts/run after scripts/test
    assert bash(clone, "installed test,qt").returncode == 0
    assert bash(clone, "installed").returncode == 0
    assert bash(clone, "installed package").returncode == 1  # an extra never installed
    with open(clone / "pyproject.toml", "a") as handle:
        handle.write("\n# a new dependency\n")
    assert bash(clone, "installed qt").returncode == 1  # pyproject.toml changed


def test_a_missing_debian_package_is_named_with_the_line_that_installs_it(clone):
    if shutil.which("dpkg-query") is None:
        pytest.skip("the Debian check runs only where dpkg is")
    (clone / "scripts" / "packages-debian").write_text("app: bash nodwyn-no-such-package\n")
    done = bash(clone, "check_debian app")
    assert done.returncode == 1
    assert done.stderr == (
        "scripts/x: missing Debian packages: nodwyn-no-such-package\n"
        "scripts/x: install them: sudo apt-get install -y nodwyn-no-such-package\n"
    )
    (clone / "scripts" / "packages-debian").write_text("app: bash\n")
    assert bash(clone, "check_debian app").returncode == 0


def test_the_readme_gives_the_debian_packages_the_scripts_check():
    groups = dict(
        line.split(": ", 1)
        for line in (ROOT / "scripts" / "packages-debian").read_text().splitlines()
        if line and not line.startswith("#")
    )
    line = f"sudo apt-get install -y {groups['app']} {groups['test']}"
    assert f"    {line}\n" in (ROOT / "README.md").read_text()
    assert "python3-venv" in groups["app"]
