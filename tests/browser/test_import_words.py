"""Import in plain words (issue 48): a file an importer refuses is named as what it is ("not a
Copilot CLI session: a workspace.yaml"), in the page's note after "Import a folder…"."""

from playwright.sync_api import expect

from .test_import_note import call, in_process  # noqa: F401 (in_process: the fixture)


def test_the_page_names_a_refused_file_as_what_it_is(page, in_process, tmp_path):  # noqa: F811
    folder = tmp_path / "copilot" / "3cc3555e-5462-44f9-95de-c67b1cb220b9"
    folder.mkdir(parents=True)
    yaml = folder / "workspace.yaml"
    yaml.write_text("id: 3cc3555e-5462-44f9-95de-c67b1cb220b9\ncwd: /home/ana/app\n")
    page.goto(in_process.url)
    expect(page.locator(".task-item").first).to_be_visible()
    status, _ = call(in_process, "POST", "/api/import", {"tool": "copilot", "path": str(yaml)})
    assert status == 200
    note = page.locator("[data-progress] [data-import-note]")
    expect(note).to_contain_text("not a Copilot CLI session: a workspace.yaml", timeout=20000)
    assert "JSON" not in note.inner_text()
