"""Who wrote this? in the page (issue 25): pasted code opens the turns whose edits hold it,
the lines marked; a file's blame names each line's turn; a file a turn wrote links to it."""

import re
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from blame_sessions import PROMPTS, applied, pager_session  # noqa: E402
from corpus_writers import dump  # noqa: E402
from nodwyn.importers.sync import import_paths  # noqa: E402
from nodwyn.tasks.store import Store  # noqa: E402


@pytest.fixture
def pager(data_dir, tmp_path):
    source = tmp_path / "claude" / "-home-ana-pager" / "5e55a0e1.jsonl"
    source.parent.mkdir(parents=True)
    source.write_bytes(b"".join(dump(line) for line in pager_session().lines))
    import_paths(Store(data_dir), "claude", [tmp_path / "claude"])
    file = tmp_path / "src" / "pager" / "pages.py"
    file.parent.mkdir(parents=True)
    file.write_text(applied()[0], encoding="utf-8")
    return file


def test_pasted_code_opens_the_turn_whose_edit_holds_it(page, served_empty, pager):
    page.goto(served_empty.at(view="who"))
    code = "    for page in order(pages):\n        print(page.number, page.name)\nnot in any log"
    page.get_by_role("textbox", name="Pasted code").fill(code)
    page.get_by_role("button", name="Who wrote this?").click()
    hit = page.locator("[data-who-hit]")
    expect(hit).to_have_count(1)
    expect(hit).to_contain_text(PROMPTS[2])
    expect(hit.locator("[data-who-marked] mark")).to_have_count(2)
    hit.locator("[data-who-turn]").click()
    expect(page).to_have_url(re.compile(r"seq=\d+"))


def test_a_files_blame_names_each_lines_turn_and_a_written_file_links_to_it(
    page, served_empty, pager
):
    page.goto(served_empty.at(view="who", file=quote(str(pager))))
    rows = page.locator("[data-blame-line]")
    expect(rows).to_have_count(len(applied()[1]))
    expect(page.locator('[data-blame-status="session"]')).to_have_count(len(applied()[1]))
    expect(rows.first).to_contain_text(PROMPTS[0])
    (task,) = [log.stem for log in Store(served_empty.root).sessions.glob("*.jsonl")]
    page.goto(served_empty.at(task=task))
    link = page.locator('[data-blame-link="/home/ana/pager/order.py"]').first
    expect(link).to_have_attribute("href", re.compile(r"view=who&file=%2Fhome%2Fana%2Fpager"))
