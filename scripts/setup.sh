# Sourced by scripts/run and scripts/test. On a first run, or when pyproject.toml (which holds
# the version and the dependencies) or the extras asked for changed since the last install (a
# stamp in .venv), they check what the system must have, then make .venv and install nodwyn
# into it; otherwise they go straight on. The code is installed editable, so a changed
# checkout needs no reinstall. Every check says what is missing and the command that installs it.

say() { printf '%s: %s\n' "$NAME" "$*" >&2; }

packages() {  # the Debian packages of the groups named, from scripts/packages-debian
  local group
  for group in "$@"; do
    sed -n "s/^$group: //p" scripts/packages-debian
  done | tr '\n' ' '
}

check_python() {
  if ! command -v python3 >/dev/null; then
    say "python3 is missing: nodwyn needs Python 3.11 or newer."
    hint_python
    exit 1
  fi
  if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    say "python3 is $(python3 -V 2>&1 | cut -d' ' -f2): nodwyn needs 3.11 or newer."
    hint_python
    exit 1
  fi
  if [ ! -x .venv/bin/python ] && ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    say "python3 cannot make a virtual environment (its venv module is missing)."
    say "install it: sudo apt-get install -y python3-venv"
    exit 1
  fi
}

hint_python() {
  case "$(uname -s)" in
    Linux) say "install it: sudo apt-get install -y python3 python3-venv" ;;
    Darwin) say "install it: brew install python@3.12 (or from python.org)" ;;
    *) say "install it from python.org" ;;
  esac
}

check_debian() {  # the Debian packages of the groups named; only on Linux where dpkg is
  [ "$(uname -s)" = Linux ] && command -v dpkg-query >/dev/null || return 0
  local missing="" package status
  for package in $(packages "$@"); do
    [ "$package" = python3 ] && continue  # checked above, whoever installed it
    # Ubuntu 24.04 renamed some libraries (libasound2t64): any package providing it will do
    # (dpkg-query fails for the name that is not there: its answer is read whole, not piped,
    # so that under `set -o pipefail` the other name's "installed" still counts)
    status="$(dpkg-query -W -f='${Status}\n' "$package" "${package}t64" 2>/dev/null || true)"
    case "$status" in
      *"install ok installed"*) ;;
      *) missing="$missing $package" ;;
    esac
  done
  if [ -n "$missing" ]; then
    say "missing Debian packages:$missing"
    say "install them: sudo apt-get install -y$missing"
    exit 1
  fi
}

installed() {  # installed EXTRAS: whether .venv holds nodwyn[EXTRAS] as pyproject.toml asks
  # the stamp: pyproject.toml's checksum, then the extras installed (scripts/run after
  # scripts/test finds `qt` among `test,qt`, and installs nothing)
  local stamp extra
  SUM="$(cksum < pyproject.toml)"
  [ -x .venv/bin/nodwyn ] && stamp="$(cat .venv/.nodwyn-installed 2>/dev/null)" || return 1
  [ "${stamp%%|*}" = "$SUM" ] || return 1
  local wanted="${1:-}"
  for extra in ${wanted//,/ }; do
    case ",${stamp#*|}," in *",$extra,"*) ;; *) return 1 ;; esac
  done
}

install() {  # install EXTRAS: .venv made if need be, nodwyn[EXTRAS] installed, the stamp kept
  local extras="$1" stamp
  stamp="$(cat .venv/.nodwyn-installed 2>/dev/null || true)"
  if [ "${stamp%%|*}" = "$SUM" ] && [ -n "${stamp#*|}" ]; then  # keep what is there
    extras="$(printf '%s\n' ${stamp#*|} ${extras//,/ } | tr ',' '\n' | sort -u | paste -sd, -)"
  fi
  if [ ! -x .venv/bin/python ]; then
    say "making .venv (first run: 1 GB or less, a minute or so plus the download)"
    python3 -m venv .venv
  fi
  local spec="."
  [ -z "$extras" ] || spec=".[$extras]"
  say "installing nodwyn${spec#.} into .venv (first run, or pyproject.toml changed)"
  if ! .venv/bin/python -m pip install -q --disable-pip-version-check -e "$spec"; then
    say "pip could not install nodwyn into .venv: see its message above."
    say "a network problem: run this again; a broken .venv: rm -rf .venv, then run this again"
    exit 1
  fi
  printf '%s|%s\n' "$SUM" "$extras" > .venv/.nodwyn-installed
}
