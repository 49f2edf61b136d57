# Windows: starts the app (its window and tray icon), setting up .venv on a first run or after
# pyproject.toml changed. Arguments go to `nodwyn` instead (e.g. scripts\run.ps1 sessions).
# Run from PowerShell: powershell -ExecutionPolicy Bypass -File scripts\run.ps1
$ErrorActionPreference = "Stop"
Set-Location (Split-Path -Parent $PSScriptRoot)
. "$PSScriptRoot\setup.ps1"
if (-not (Test-Installed "")) { Install-Nodwyn "scripts\run.ps1" "" }
if ($args.Count -eq 0) { $args = @("app") }
& .venv\Scripts\nodwyn.exe @args
exit $LASTEXITCODE
