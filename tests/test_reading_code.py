"""An agent's code read as code and a note without its template markup (issue 48)."""

from nodwyn.reading import codeblocks, markdown, notes, shown


def test_aiders_tag_fences_and_unfenced_edit_blocks_become_code():
    text = (
        "backend/__init__.py\n<source>\n# Package initializer\n</source>\n"
        "pager/order.go\n<<<<<<< SEARCH\n# old\n=======\n# new\n>>>>>>> REPLACE\nDone."
    )
    tree = markdown.tree(codeblocks.fenced(text))
    blocks = [node for node in tree if node[0] == "pre"]
    assert [b[1].get("data-lang") for b in blocks] == ["python", "go"]
    assert markdown.plain(blocks[0][2:]) == "# Package initializer"
    assert "<<<<<<< SEARCH" in markdown.plain(blocks[1][2:])
    assert not [node for node in tree if node[0] == "h1"]


def test_markdowns_own_fences_and_text_without_tags_are_left_as_they_are():
    text = "```\n<source>\n# kept\n```\nplain words"
    assert codeblocks.fenced(text) == text
    assert codeblocks.fenced("no tags here") == "no tags here"
    unclosed = "<source>\n# never closed"
    assert codeblocks.fenced(unclosed) == unclosed


def test_a_fence_inside_a_block_gets_a_longer_fence():
    fenced = codeblocks.fenced("<source>\nx = '```'\n</source>")
    assert fenced.startswith("````\n") and fenced.endswith("\n````")


def test_a_dunder_name_stays_a_name_and_bold_stays_bold():
    tree = markdown.tree("see __init__.py, __file__ and __two words__")
    assert tree == [["p", {}, "see __init__.py, __file__ and ", ["strong", {}, "two words"]]]


def test_a_checkpoint_note_is_named_and_its_markup_taken_off():
    note = (
        "{{ CHECKPOINT 3 }}\n **The earlier parts were cut. **\n\n# Objective\nkeep **this** bold"
    )
    assert notes.cleaned(note) == (
        "Checkpoint 3",
        "The earlier parts were cut.\n\n# Objective\nkeep **this** bold",
    )
    event = shown.dress({"kind": "context.compact", "note": note})
    assert event["note_name"] == "Checkpoint 3" and event["note"] == note  # nothing taken away
    assert "{{" not in markdown.plain(event["md"])
    assert notes.cleaned("Chat history cleared (/clear)") == ("", "Chat history cleared (/clear)")
