"""Settings > Search, where vectors come from: the built-in model or a provider's embeddings,
chosen in the page (Chromium) against `nodwyn serve` and a small local server that speaks the
provider's format (the one tests/test_memory_providers.py uses)."""

import json
import stat
import threading
from http.server import ThreadingHTTPServer

import pytest
from playwright.sync_api import expect
from test_memory_providers import Handler

KEY = "sk-browser-test-4f1d9"


@pytest.fixture
def embedder():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.seen, httpd.broken = [], False
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def kept(root) -> dict:
    file = root / "settings.json"
    return json.loads(file.read_text()) if file.exists() else {}


def open_settings(page):
    page.get_by_role("button", name="Settings").click()
    box = page.locator("[data-embeddings]")
    expect(box).to_be_visible()
    return box


def test_a_provider_is_chosen_in_the_page_after_saying_what_leaves_the_computer(
    page, served, embedder, tmp_path
):
    address = f"http://127.0.0.1:{embedder.server_port}"
    page.goto(served.url)
    box = open_settings(page)
    expect(box.get_by_role("radio", name="Built-in model")).to_be_checked()
    expect(box.locator("[data-provider-form]")).to_be_hidden()

    box.get_by_role("radio", name="OpenAI format").check()
    note = box.locator("[data-embeddings-note]")
    expect(note).to_contain_text("What leaves this computer")  # shown before it is turned on
    box.get_by_label("Address", exact=True).fill("https://embeddings.example.com")
    expect(note).to_contain_text("sent to https://embeddings.example.com")
    expect(note).to_contain_text("all of that leaves it")
    assert kept(served.root).get("embeddings", "builtin") == "builtin"  # nothing chosen yet

    box.get_by_label("Address", exact=True).fill(address)
    expect(note).to_contain_text("on this computer, so nothing leaves it")
    box.get_by_label("Model", exact=True).fill("tiny-embed")
    box.get_by_label("API key", exact=True).fill(KEY)
    with page.expect_response("**/api/settings") as answer:
        box.get_by_role("button", name="Use this provider").click()
    assert KEY not in answer.value.text()
    expect(box.locator("[data-key-state]")).to_have_text("A key is set (it is never shown).")
    expect(box.locator("[data-embeddings-now]")).to_contain_text(f"OpenAI format at {address}")
    expect(box.get_by_label("API key", exact=True)).to_have_value("")

    chosen = kept(served.root)
    assert (chosen["embeddings"], chosen["embeddings_url"]) == ("openai", address)
    assert KEY not in (served.root / "settings.json").read_text()
    key_file = served.root / "embeddings.key"
    assert key_file.read_text().strip() == KEY
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

    page.get_by_role("button", name="Close").click()
    with page.expect_response("**/api/settings") as answer:
        open_settings(page)  # read back: whether a key is set, never the key
    assert answer.value.json()["embeddings_key_set"] is True
    assert KEY not in answer.value.text()
    box = page.locator("[data-embeddings]")
    expect(box.get_by_role("radio", name="OpenAI format")).to_be_checked()
    page.get_by_role("button", name="Close").click()

    page.get_by_label("Search scope").select_option("all")
    page.get_by_label("Search", exact=True).fill("pager order")
    page.get_by_label("Search", exact=True).press("Enter")
    expect(page.locator("[data-results] a[data-hit]").first).to_be_visible()
    sent = [(path, headers) for path, headers, _ in embedder.seen]
    assert sent and all(path == "/v1/embeddings" for path, _ in sent)
    assert all(headers["Authorization"] == f"Bearer {KEY}" for _, headers in sent)
    assert any("pager order" in body["input"] for _, _, body in embedder.seen)
    assert KEY not in (tmp_path / "serve.log").read_text()

    box = open_settings(page)
    with page.expect_response("**/api/settings"):
        box.get_by_role("radio", name="Built-in model").check()  # saved at once
    expect(box.locator("[data-embeddings-now]")).to_have_text("Now: the built-in model.")
    assert kept(served.root).get("embeddings", "builtin") == "builtin"


def test_a_provider_without_a_model_is_refused_and_nothing_changes(page, served):
    page.goto(served.url)
    box = open_settings(page)
    box.get_by_role("radio", name="Ollama").check()
    box.get_by_label("Address", exact=True).fill("http://127.0.0.1:11434")
    box.get_by_role("button", name="Use this provider").click()
    expect(page.get_by_role("dialog", name="Settings")).to_contain_text(
        "Not saved: ollama embeddings need an http(s) address and a model name"
    )
    assert kept(served.root).get("embeddings", "builtin") == "builtin"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_settings_dialog_reads_well(browser, served, artifacts, scheme):
    from nodwyn import settings

    settings.update(served.root, extra_folders={"claude": ["/home/ana/backup/claude-projects"]})
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    context.set_default_timeout(10000)
    page = context.new_page()
    page.goto(served.url)
    box = open_settings(page)
    box.get_by_role("radio", name="OpenAI format").check()
    box.get_by_label("Address", exact=True).fill("https://api.openai.com")
    expect(box.locator("[data-embeddings-note]")).to_contain_text("leaves it")
    dialog = page.get_by_role("dialog", name="Settings")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    dialog.screenshot(path=str(artifacts / f"settings-{scheme}.png"))
    context.close()
