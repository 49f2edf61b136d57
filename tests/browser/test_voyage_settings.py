"""Settings > Search offers Voyage AI for search by meaning (issue 40), in Chromium against
`nodwyn serve` and a local server that speaks Voyage's format: its own address filled in, a
key required, and what embedding every task would cost said before anything is sent."""

import json
import re

import pytest
from playwright.sync_api import expect
from provider_servers import ProviderServer

KEY = "pa-browser-test-7c2e1"


@pytest.fixture
def voyage():
    with ProviderServer() as server:
        yield server


def test_voyage_is_chosen_with_its_key_after_its_cost_is_said(page, served, voyage):
    page.goto(served.url)
    page.get_by_role("button", name="Settings").click()
    box = page.locator("[data-embeddings]")
    box.get_by_role("radio", name="Voyage AI").check()
    address = box.get_by_label("Address", exact=True)
    expect(address).to_have_value("https://api.voyageai.com")
    expect(box.get_by_label("API key", exact=True)).to_be_visible()
    box.get_by_label("Model", exact=True).fill("voyage-3.5")
    box.get_by_label("Model", exact=True).press("Tab")
    cost = box.locator("[data-embeddings-cost]")
    expect(cost).to_have_text(re.compile(
        r"^Every task once: \d+ cards and notes, about \d+ tokens; (about \$\d\.\d{4}|less than "
        r"\$0\.0001) at \$0\.06 a million tokens\. Then each new turn and each search\.$"
    ))  # fmt: skip
    expect(box.locator("[data-embeddings-note]")).to_contain_text("all of that leaves it")

    address.fill(voyage.url)
    box.get_by_role("button", name="Use this provider").click()
    said = page.get_by_role("dialog", name="Settings")
    expect(said).to_contain_text("Not saved: Voyage AI needs an API key")
    assert voyage.requests == []  # the estimate and a refused choice sent nothing
    box.get_by_label("API key", exact=True).fill(KEY)
    with page.expect_response("**/api/settings") as answer:
        box.get_by_role("button", name="Use this provider").click()
    assert KEY not in answer.value.text()
    expect(box.locator("[data-embeddings-now]")).to_have_text(
        f"Now: Voyage AI at {voyage.url} (voyage-3.5)."
    )
    chosen = json.loads((served.root / "settings.json").read_text())
    assert (chosen["embeddings"], chosen["embeddings_model"]) == ("voyage", "voyage-3.5")
