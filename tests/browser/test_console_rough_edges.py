"""The task list read by its titles, and the rough edges of issue 24 (a "null" in the star bar,
marks of stop words and of letters inside words, events with nothing to show, boxes for CJK),
in Chromium against `nodwyn serve`."""

from nodwyn.log import records
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

FORTY = "Make the pager print a header on each pg"  # 40 characters
ASKED = "Where is the screen recording permission for the Mac app? The themed one in Applications."


def task_of(root, task, project, text, tool="codex", extra=()):
    start = records.SessionStart(project=project, origin=records.Origin(tool=tool))
    with Store(root).create(start, task) as writer:
        writer.append([records.Message(text=text), *extra])


def test_a_title_of_forty_characters_shows_whole_with_its_facts_small_and_grey_below(page, served):
    assert len(FORTY) == 40
    task_of(served.root, "forty", "/home/ana/src/pager", FORTY)
    page.goto(served.url)
    row = page.locator('[data-task="forty"]')
    expect(row).to_be_visible()
    assert round(page.locator("[data-sidebar]").bounding_box()["width"]) == 260
    title = row.locator(".task-title")
    expect(title).to_have_text(FORTY)
    assert title.evaluate("n => n.scrollHeight <= n.clientHeight && n.scrollWidth <= n.clientWidth")
    facts = row.locator("[data-task-facts]")
    expect(facts).to_contain_text("1 turn")
    assert facts.locator("> *").all_inner_texts() == ["Codex", "1 turn", "now"]
    title_box, facts_box = title.bounding_box(), facts.bounding_box()
    assert facts_box["y"] >= title_box["y"] + title_box["height"] - 1  # on a line of its own
    # both sizes read in one look: the feed may draw the list again between two calls, and a
    # node it took out has no computed style (CI read "" once)
    facts_size, title_size = page.evaluate(
        """() => ['[data-task="forty"] [data-task-facts]', '[data-task="forty"] .task-title']
        .map((s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize))"""
    )
    assert facts_size < title_size
    colours = page.evaluate(
        """() => { const n = document.querySelector('[data-task="forty"] [data-task-facts]');
        return [getComputedStyle(n).color, getComputedStyle(n.closest('a')).color]; }"""
    )
    assert colours[0] != colours[1]  # grey, not the title's colour


def test_a_folder_of_one_task_has_no_heading_row_its_name_leads_the_row(page, served):
    page.goto(served.url)
    infra = page.locator('[data-group-key="/home/ana/src/infra"]')
    expect(infra.locator(".task-item")).to_have_count(1)
    expect(infra.locator("[data-group]")).to_have_count(0)
    expect(infra.locator("[data-folder]")).to_have_text("infra")
    pager = page.locator('[data-group-key="/home/ana/src/pager"]')
    heading = pager.locator("[data-group]").bounding_box()["height"]
    row = pager.locator(".task-item").first.bounding_box()["height"]
    # a heading row and a task row before; now the task's row alone
    assert infra.bounding_box()["height"] < heading + row - heading / 2


def test_an_unstarred_turn_says_no_null(page, served):
    page.goto(served.at(task="demo-pager-flaky"))
    tools = page.locator("[data-turn-tools]").first
    expect(tools).to_be_visible()
    expect(tools).not_to_contain_text("null")
    expect(tools.get_by_role("button", name="Star this turn")).to_be_visible()


def test_marks_are_the_querys_words_whole_never_stop_words_or_letters_inside_words(page, served):
    task_of(served.root, "mac", "/home/ana/src/mac", ASKED,
            extra=[records.Reply(text="See TestPagerOrder and appName.")])  # fmt: skip
    q = "the screen recording permission for the mac app pager"
    page.goto(served.at(task="mac", seq=2, q=q.replace(" ", "+"), scope="task"))
    marks = page.locator("[data-events] [data-hit] mark")
    expect(marks.first).to_be_visible()
    assert marks.all_inner_texts() == ["screen", "recording", "permission", "Mac", "app"]
    terms, marked = page.evaluate(
        """async ([q, text]) => {
            const { marked, queryTerms } = await import('/static/js/marks.js');
            const terms = queryTerms(q);
            const marks = marked(text, terms).filter((p) => typeof p !== 'string');
            return [terms, marks.map((m) => m.textContent)];
        }""",
        [q, ASKED + " TestPagerOrder appName"],
    )
    assert "the" not in terms and "for" not in terms
    assert marked == ["screen", "recording", "permission", "Mac", "app", "Pager", "app"]


def test_the_results_list_marks_no_letters_inside_another_word(page, served):
    task_of(served.root, "mac", "/home/ana/src/mac", ASKED)
    page.goto(served.at(q="the+mac+app", scope="all"))
    result = page.locator('[data-result-task="mac"]')
    expect(result).to_be_visible(timeout=20000)  # the first search builds the index
    marks = result.locator("mark").all_inner_texts()
    assert marks and set(marks) <= {"Mac", "app"}, marks


def test_an_event_with_nothing_to_show_is_not_drawn_but_counts_in_the_window(page, served):
    empty = [records.Reply(text="", thinking=""), records.Reply(text="Done.")]
    task_of(served.root, "blank", "/home/ana/src/blank", "Tidy up", extra=empty)
    page.goto(served.at(task="blank"))
    expect(page.get_by_text("Done.")).to_be_visible()
    expect(page.locator('[data-events] [data-seq="3"]')).to_have_count(0)
    expect(page.locator('[data-events] [data-seq="4"]')).to_have_count(1)
    note = page.locator(".window-note")  # turns as people count them; records on hover
    expect(note).to_have_text("turn 1 of 1 shown")
    expect(note).to_have_attribute("title", "records #1–#4 of 4")


def test_text_falls_back_to_cjk_and_emoji_faces(page, served):
    task_of(served.root, "cjk", "/home/ana/src/cjk", "修复分页器的测试 🚀")
    page.goto(served.url)
    title = page.locator('[data-task="cjk"] .task-title')
    expect(title).to_have_text("修复分页器的测试 🚀")
    # read from the node on the page at that moment: the change feed draws the list again when
    # the new task arrives, and a replaced node has no computed style ("")
    family = page.wait_for_function(
        "() => { const n = document.querySelector('[data-task=\"cjk\"] .task-title');"
        " return (n && n.isConnected && getComputedStyle(n).fontFamily) || null; }"
    ).json_value()
    assert "Noto Sans CJK SC" in family and "Noto Color Emoji" in family
    # the glyphs come from a face that has them, not the last resort's boxes
    assert page.evaluate("document.fonts.check('14px \"Noto Sans CJK SC\"', '修复')")
