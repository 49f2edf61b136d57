"""Summarize… on a task's header (ADR 0033), in Chromium against `nodwyn serve --demo` and a
local server speaking Ollama's /api/chat: the dialog shows the estimate, the exact address and
model, and nothing reaches the provider until Confirm; Settings says what would be sent where."""

from nodwyn import settings
from playwright.sync_api import expect
from provider_servers import ProviderServer


def test_the_dialog_shows_the_estimate_and_sends_nothing_before_confirm(page, served):
    with ProviderServer() as provider:
        settings.update(served.root, summaries="ollama", summaries_url=provider.url,
                        summaries_model="llama3.2")  # fmt: skip
        page.goto(served.at(task="demo-pager-flaky"))
        page.get_by_role("button", name="Summarize…").click()
        dialog = page.get_by_role("dialog", name="Summarize")
        expect(dialog.locator("[data-fact=sent-to]")).to_have_text(provider.url + "/api/chat")
        expect(dialog.locator("[data-fact=model]")).to_have_text("llama3.2")
        expect(dialog.locator("[data-fact=cost]")).to_contain_text("free")
        tokens = dialog.locator("[data-fact=input-tokens]").inner_text()
        expect(dialog.get_by_role("note")).to_contain_text(provider.url + "/api/chat")
        assert provider.connections == 0 and provider.requests == []
        dialog.get_by_role("button", name="Confirm and send").click()
        expect(dialog.get_by_role("status")).to_contain_text("Done:", timeout=60000)
        assert len(provider.requests) >= 1
        assert tokens == f"about {provider.tokens_received():,}"
        dialog.get_by_role("button", name="Close").click()
        page.get_by_role("button", name="Summarize…").click()
        expect(dialog.get_by_role("status")).to_contain_text("Nothing to summarize")


def test_settings_say_exactly_where_the_cards_would_go(page, served):
    page.goto(served.url)
    page.get_by_role("button", name="Settings").click()
    box = page.locator("[data-summaries]")
    box.get_by_role("radio", name="Anthropic").check()
    box.get_by_role("textbox", name="Model").fill("claude-haiku-4-5")
    expect(box.get_by_role("note")).to_contain_text(
        "sent to https://api.anthropic.com/v1/messages for the model claude-haiku-4-5"
    )
    assert settings.load(served.root).summaries == "off"  # nothing kept before "Use"
    box.get_by_role("button", name="Use this provider").click()
    expect(page.get_by_text("Saved.")).to_be_visible()
    chosen = settings.load(served.root)
    assert (chosen.summaries, chosen.summaries_model) == ("anthropic", "claude-haiku-4-5")


def test_a_folders_board_summarizes_the_tasks_its_filters_show(page, served):
    with ProviderServer() as provider:
        settings.update(served.root, summaries="ollama", summaries_url=provider.url,
                        summaries_model="llama3.2")  # fmt: skip
        page.goto(served.at(task="demo-pager-flaky"))
        page.get_by_role("button", name="History").click()
        page.locator("[data-filter-choice='folder:folder']").click()
        expect(page.locator("[data-board-card]").first).to_be_visible()
        shown = page.locator("[data-board-card]").evaluate_all(
            "cards => new Set(cards.map(c => c.dataset.boardCard.split(':')[0])).size"
        )
        page.get_by_role("button", name="Summarize these tasks…").click()
        dialog = page.get_by_role("dialog", name="Summarize")
        expect(dialog.locator("[data-fact=tasks]")).to_have_text(str(shown))
        assert provider.connections == 0
