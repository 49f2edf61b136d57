# Dot-sourced by scripts\run.ps1 and scripts\test.ps1 (Windows), as scripts/setup.sh is on
# Linux and macOS: on a first run, or when pyproject.toml or the extras asked for changed (a
# stamp in .venv), it checks Python, makes .venv and installs nodwyn into it; otherwise nothing.

function Say($name, $words) { [Console]::Error.WriteLine("${name}: $words") }

function Find-Python($name) {
    foreach ($try in @(@("py", "-3"), @("python"))) {
        $exe = Get-Command $try[0] -ErrorAction SilentlyContinue
        if (-not $exe) { continue }
        $args_ = @($try | Select-Object -Skip 1)
        & $try[0] @args_ -c "import sys; sys.exit(sys.version_info < (3, 11))" 2>$null
        if ($LASTEXITCODE -eq 0) { return , $try }
    }
    Say $name "Python 3.11 or newer is missing: install it with winget install Python.Python.3.12 (or from python.org, ticking 'Add python.exe to PATH'), then open a new terminal"
    exit 1
}

function Get-Stamp($extras) {
    $sum = (Get-FileHash -Algorithm SHA256 pyproject.toml).Hash
    return "$sum|$extras"
}

function Test-Installed($extras) {
    if (-not (Test-Path .venv\Scripts\nodwyn.exe)) { return $false }
    $stamp = Get-Content .venv\.nodwyn-installed -ErrorAction SilentlyContinue
    if (-not $stamp) { return $false }
    $want = Get-Stamp ""
    $parts = $stamp.Split("|")
    if ("$($parts[0])|" -ne $want) { return $false }
    foreach ($extra in ($extras -split "," | Where-Object { $_ })) {
        if (-not (($parts[1] -split ",") -contains $extra)) { return $false }
    }
    return $true
}

function Install-Nodwyn($name, $extras) {
    if (-not (Test-Path .venv\Scripts\python.exe)) {
        $python = Find-Python $name
        Say $name "making .venv (first run: a minute or two)"
        $rest = @($python | Select-Object -Skip 1)
        & $python[0] @rest -m venv .venv
        if ($LASTEXITCODE -ne 0) { Say $name "python could not make .venv: see its message above"; exit 1 }
    }
    $spec = if ($extras) { ".[$extras]" } else { "." }
    Say $name "installing nodwyn$($spec.Substring(1)) into .venv (first run, or pyproject.toml changed)"
    & .venv\Scripts\python.exe -m pip install -q --disable-pip-version-check -e $spec
    if ($LASTEXITCODE -ne 0) {
        Say $name "pip could not install nodwyn into .venv: see its message above; a broken .venv: Remove-Item -Recurse .venv, then run this again"
        exit 1
    }
    Set-Content .venv\.nodwyn-installed (Get-Stamp $extras)
}
