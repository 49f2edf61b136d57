# Windows: runs the tests, setting up .venv with the test tools on a first run or after
# pyproject.toml changed. Arguments go to pytest (e.g. scripts\test.ps1 tests\test_store.py -x).
# Run from PowerShell: powershell -ExecutionPolicy Bypass -File scripts\test.ps1
$ErrorActionPreference = "Stop"
Set-Location (Split-Path -Parent $PSScriptRoot)
. "$PSScriptRoot\setup.ps1"
if (-not (Test-Installed "test")) { Install-Nodwyn "scripts\test.ps1" "test" }
& .venv\Scripts\python.exe -m pytest @args
exit $LASTEXITCODE
