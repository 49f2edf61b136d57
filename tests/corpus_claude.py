"""The fixture corpus's Claude Code transcripts, one function each (what each stands for is in
its docstring and in tests/data/corpus/README.md)."""

from corpus_writers import DEMO, GRANTS, VSLA, Claude, build_log, text, thinking, todos, use


def todo_app() -> Claude:
    """1.0.x, /path/to/Demo: a streamed reply, an inline sub-agent (isSidechain), a long build."""
    c = Claude("fe5e1c67-53e7-4862-81ae-d0e013e3270b", DEMO, "1.0.98", "2025-09-03", gitBranch="")
    c.add({"type": "summary", "summary": "Next.js TODO app with a done filter", "leafUuid": "x"})
    c.prompt("create TODO app by Next.js")
    plan = todos(("Survey the Demo folder", "pending"), ("Write the TodoList component", "pending"))
    c.reply("msg_01A", text("I'll help you create a TODO app with Next.js. First a plan."))
    c.reply("msg_01A", use("toolu_01", "TodoWrite", todos=plan))
    c.result(
        "toolu_01", "Todos have been modified successfully.", {"oldTodos": [], "newTodos": plan}
    )
    ask = "Survey the Demo folder: list its files and say which framework it uses."
    c.reply(
        "msg_01B",
        use("toolu_02", "Task", description="Survey", prompt=ask, subagent_type="general-purpose"),
    )
    c.prompt(ask, side=True, root=True)
    c.reply("msg_S1", use("toolu_S1", "LS", path=DEMO), side=True)
    c.result(
        "toolu_S1",
        "- /path/to/Demo/\n  - package.json\n  - app/\n    - page.tsx",
        {"stdout": ""},
        side=True,
    )
    c.reply(
        "msg_S2",
        text("The folder is a fresh Next.js app: package.json and app/page.tsx."),
        side=True,
    )
    report = [text("The folder is a fresh Next.js app: package.json and app/page.tsx.")]
    c.result(
        "toolu_02",
        report,
        {
            "content": report,
            "totalDurationMs": 8123,
            "totalTokens": 2140,
            "totalToolUseCount": 1,
            "usage": {"input_tokens": 4, "output_tokens": 96},
            "wasInterrupted": False,
        },
    )
    component = (
        "export function TodoList({ todos }) {\n"
        "  return <ul>{todos.map(t => <li>{t.title}</li>)}</ul>;\n}\n"
    )
    path = DEMO + "/app/components/TodoList.tsx"
    c.reply(
        "msg_01C",
        text("Now the TodoList component."),
        use("toolu_03", "Write", file_path=path, content=component),
    )
    c.result(
        "toolu_03",
        f"File created successfully at: {path}",
        {"type": "create", "filePath": path, "content": component},
    )
    for n in range(100):  # a long turn: its outline is longer than recall shows at once
        route = f"{DEMO}/app/todos/filter/{n}/page.tsx"
        c.reply(f"msg_01R{n:03d}", use(f"toolu_R{n:03d}", "Read", file_path=route))
        body = f"export default function Filter{n}() {{ return <TodoList filter={{{n}}} />; }}"
        c.result(
            f"toolu_R{n:03d}",
            "     1\t" + body,
            {
                "type": "text",
                "file": {
                    "filePath": route,
                    "content": body,
                    "numLines": 1,
                    "startLine": 1,
                    "totalLines": 1,
                },
            },
        )
    c.reply(
        "msg_01D", use("toolu_04", "Bash", command="npm run build", description="Build the app")
    )
    log = build_log(260)
    c.result("toolu_04", log, {"stdout": log, "stderr": "", "interrupted": False, "isImage": False})
    c.reply("msg_01E", text("The TodoList component is in place and the build passes."))
    c.prompt([text("Add a filter that hides the done items")])
    c.reply("msg_01F", thinking("The filter belongs in TodoList as a prop."))
    c.reply(
        "msg_01F",
        use(
            "toolu_05",
            "Edit",
            file_path=path,
            old_string="todos.map",
            new_string="todos.filter(t => !t.done).map",
        ),
    )
    c.result(
        "toolu_05",
        "The file has been updated.",
        {"filePath": path, "oldString": "todos.map", "newString": "…", "userModified": False},
    )
    c.reply("msg_01G", text("Done: TodoList now hides the done items."))
    return c


def claude_md() -> Claude:
    """1.0.x, /path/to/Demo: streamed parts on lines 3 and 4, MultiEdit, a failed Edit, /cost."""
    c = Claude(
        "5c0375b4-57a5-4f26-b12d-d022ee4e51b7", DEMO, "1.0.98", "2025-09-01", gitBranch="main"
    )
    c.add({"type": "summary", "summary": "CLAUDE.md conventions", "leafUuid": "y"})
    c.prompt("Write the project's conventions into CLAUDE.md")
    plan = todos(("Read CLAUDE.md", "in_progress"), ("Add the conventions", "pending"))
    c.reply("msg_02A", text("I'll help you write the conventions down. A plan first."))
    c.reply("msg_02A", use("toolu_11", "TodoWrite", todos=plan))
    c.result(
        "toolu_11", "Todos have been modified successfully.", {"oldTodos": [], "newTodos": plan}
    )
    path = DEMO + "/CLAUDE.md"
    edits = [{"old_string": "# Demo", "new_string": "# Demo\n\n## Conventions\n- pnpm, not npm"}]
    c.reply("msg_02B", use("toolu_12", "MultiEdit", file_path=path, edits=edits))
    c.result(
        "toolu_12",
        f"Applied 1 edit to {path}",
        {"filePath": path, "edits": edits, "userModified": False},
    )
    readme = DEMO + "/README.md"
    c.reply(
        "msg_02C",
        use(
            "toolu_13",
            "Edit",
            file_path=readme,
            old_string="npm install",
            new_string="pnpm install",
        ),
    )
    failure = (
        "<tool_use_error>String to replace not found in file.\nString: npm install</tool_use_error>"
    )
    c.result("toolu_13", failure, "Error: String to replace not found in file.", error=True)
    c.reply(
        "msg_02D", text("CLAUDE.md now lists the conventions; README.md had nothing to change.")
    )
    c.prompt(
        "<command-name>/cost</command-name>\n<command-message>cost</command-message>\n<command-args></command-args>"
    )
    c.prompt("<local-command-stdout>Total cost: $0.21</local-command-stdout>")
    return c


def vsla_compacted() -> Claude:
    """1.0.53: no gitBranch, summaries stacked on top, a 1.0.53 warning, an isCompactSummary
    compaction (no boundary record; the old history stays above), the cwd changing."""
    c = Claude("0a725fb5-6378-432a-9e84-9f3f49d4043d", VSLA, "1.0.53", "2025-07-15")
    c.add({"type": "summary", "summary": "Sparse matrix multiply", "leafUuid": "elsewhere-1"})
    c.add(
        {
            "type": "summary",
            "summary": "VSLA sparse kernels and benchmarks",
            "leafUuid": "elsewhere-2",
        }
    )
    c.prompt("Implement the sparse matrix multiply in src/vsla_sparse.c")
    c.reply("msg_03A", text("Building first."), use("toolu_21", "Bash", command="make -C build"))
    c.result(
        "toolu_21",
        "make: Entering directory 'build'\n[100%] Built target vsla",
        {
            "stdout": "[100%] Built target vsla",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
        },
    )
    c.reply("msg_03B", text("The sparse multiply is in and the build passes."))
    c.chained("system", content="Claude Opus 4 limit reached, now using Sonnet 4", level="warning")
    summary = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nThe sparse multiply was written and builds."
    )
    c.prompt(summary, isCompactSummary=True, root=True)
    c.prompt("Now add benchmarks for it", cwd=VSLA + "/bench")
    c.reply(
        "msg_03C",
        text("Benchmarks added under bench/: 3.1 GFLOP/s at n=4096."),
        cwd=VSLA + "/bench",
    )
    return c


def vsla_interrupted() -> Claude:
    """A turn the person interrupts during a tool call: it ends as cancelled."""
    c = Claude("9dd861b1-71f8-41ee-bb93-7d3724bcb337", VSLA, "1.0.53", "2025-07-16")
    c.prompt("Run the whole test suite")
    c.reply("msg_04A", use("toolu_31", "Bash", command="ctest --output-on-failure"))
    refused = "The user doesn't want to proceed with this tool use. The tool use was rejected."
    c.result("toolu_31", refused, "Error: " + refused, error=True)
    c.prompt([text("[Request interrupted by user for tool use]")])
    return c


def grants_2_1() -> tuple[Claude, Claude]:
    """2.1.x: permission-mode, attachment, progress, queued words, an Agent sub-agent in
    <session>/subagents/, turn_duration, stop hooks, ai-title twice, a snapshot, and the 2.x
    compaction layout (compact_boundary, then the isCompactSummary record)."""
    session = "6a1b9f1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b"
    more = {"gitBranch": "main", "entrypoint": "cli", "promptId": "p-1"}
    c = Claude(session, GRANTS, "2.1.90", "2026-04-20", **more)
    c.add({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": session})
    c.chained("attachment", attachment={"type": "deferred_tools_delta", "addedNames": ["WebFetch"]})
    c.prompt("Draft the budget section of the grant application")
    c.chained(
        "progress",
        data={"type": "hook_progress", "hookEvent": "UserPromptSubmit", "hookName": "log"},
    )
    c.reply("msg_05A", thinking(""))
    brief = "Find every budget figure in the notes folder."
    c.reply(
        "msg_05A",
        text("Looking for the figures first."),
        use("toolu_41", "Agent", description="Find figures", prompt=brief, subagent_type="Explore"),
    )
    agent = "a7f3c9e2b1d4"
    c.result(
        "toolu_41",
        [text("Three figures: staff 42,000, travel 3,500, equipment 8,200.")],
        {
            "status": "completed",
            "prompt": brief,
            "agentId": agent,
            "agentType": "Explore",
            "content": [text("Three figures: staff 42,000, travel 3,500, equipment 8,200.")],
            "totalDurationMs": 15230,
            "totalTokens": 5120,
            "totalToolUseCount": 1,
        },
    )
    c.reply("msg_05B", text("The budget section is drafted: 53,700 in all."))
    c.system("turn_duration", durationMs=48210, messageCount=6)
    c.system(
        "stop_hook_summary",
        hookCount=1,
        hookInfos=[{"command": "log"}],
        hookErrors=[],
        preventedContinuation=False,
    )
    c.add(
        {
            "type": "last-prompt",
            "lastPrompt": "Draft the budget section of the grant…",
            "leafUuid": c.last,
        }
    )
    c.add({"type": "ai-title", "aiTitle": "Grant budget draft", "sessionId": session})
    c.add(
        {
            "type": "file-history-snapshot",
            "messageId": "msg_05B",
            "snapshot": {"trackedFileBackups": {}, "timestamp": "2026-04-20T10:05:00.000Z"},
            "isSnapshotUpdate": False,
        }
    )
    c.add(
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-04-20T10:05:30.000Z",
            "sessionId": session,
            "content": "also the timeline",
        }
    )
    c.add(
        {
            "type": "queue-operation",
            "operation": "remove",
            "timestamp": "2026-04-20T10:05:31.000Z",
            "sessionId": session,
        }
    )
    c.system(
        "compact_boundary",
        content="Conversation compacted",
        compactMetadata={"trigger": "auto", "preTokens": 151022},
        logicalParentUuid=c.last,
    )
    summary = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The budget section is drafted."
    )
    c.prompt(summary, isCompactSummary=True, isVisibleInTranscriptOnly=True)
    c.prompt("Now the timeline section, please")
    c.system(
        "api_error",
        level="error",
        error={"status": 529, "message": "Overloaded"},
        retryInMs=2000,
        retryAttempt=1,
        maxRetries=10,
    )
    c.reply("msg_05C", text("The timeline section is drafted: twelve months, three milestones."))
    c.system("turn_duration", durationMs=12500, messageCount=2)
    c.add({"type": "ai-title", "aiTitle": "Grant budget and timeline", "sessionId": session})

    side = Claude(session, GRANTS, "2.1.90", "2026-04-20", **more, agentId=agent)
    side.tick = 60
    side.prompt(brief, side=True, root=True)
    side.reply(
        "msg_S5A", use("toolu_S51", "Grep", pattern="budget", path=GRANTS + "/notes"), side=True
    )
    found = (
        "notes/costs.md:3: staff 42,000\nnotes/costs.md:4: travel 3,500\n"
        "notes/kit.md:1: equipment 8,200"
    )
    side.result("toolu_S51", found, {"mode": "content", "filenames": [], "numFiles": 2}, side=True)
    side.reply(
        "msg_S5B", text("Three figures: staff 42,000, travel 3,500, equipment 8,200."), side=True
    )
    return c, side


def raze_windows() -> Claude:
    """2.0.x from VS Code on Windows: IDE context and an image in a prompt, a synthetic API
    error, a custom title (the person's name wins over the agent's)."""
    c = Claude(
        "3e0f5b2a-9c8d-4b7a-a6e5-d4c3b2a1f0e9",
        "C:\\Users\\ana\\raze",
        "2.0.30",
        "2026-01-10",
        gitBranch="HEAD",
        entrypoint="claude-vscode",
    )
    c.add({"type": "summary", "summary": "Raze CLI flags", "leafUuid": "z"})
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    }
    c.prompt(
        [
            text("<ide_opened_file>The user opened C:\\Users\\ana\\raze\\cli.py</ide_opened_file>"),
            text("Why does --force not work? Screenshot attached."),
            image,
        ]
    )
    error = {
        "id": "msg_06X",
        "type": "message",
        "role": "assistant",
        "model": "<synthetic>",
        "content": [text("Invalid API key · Please run /login")],
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    c.chained("assistant", message=error, isApiErrorMessage=True, error="authentication_failed")
    c.prompt("Try again, I logged in")
    c.reply("msg_06A", use("toolu_51", "Read", file_path="C:\\Users\\ana\\raze\\cli.py"))
    source = "def main(argv):\n    force = '--force' in argv[1:]\n"
    c.result(
        "toolu_51",
        "     1\t" + source,
        {
            "type": "text",
            "file": {
                "filePath": "C:\\Users\\ana\\raze\\cli.py",
                "content": source,
                "numLines": 2,
                "startLine": 1,
                "totalLines": 2,
            },
        },
    )
    c.reply(
        "msg_06B", text("--force is read from argv[1:], so it works only after the subcommand.")
    )
    c.add({"type": "custom-title", "customTitle": "Raze --force   flag", "sessionId": c.session})
    return c


def cut_mid_turn() -> Claude:
    """A copy taken while the agent was writing: the last line stops half-way."""
    c = Claude("9b92ce83-1981-4cdc-9f5d-7f66c4b10389", VSLA, "1.0.53", "2025-07-17")
    c.prompt("Profile the sparse multiply")
    c.reply("msg_07A", text("Profiling with perf."))
    c.reply("msg_07A", use("toolu_61", "Bash", command="perf record ./bench"))
    c.add(b'{"parentUuid":"' + c.last.encode() + b'","isSidechain":false,"userType":"exter')
    return c


def summaries_only() -> list[dict]:
    return [
        {"type": "summary", "summary": "Sparse kernels", "leafUuid": "a"},
        {"type": "summary", "summary": "VSLA benchmarks", "leafUuid": "b"},
    ]


def snapshots_only() -> list[dict]:
    return [
        {
            "type": "file-history-snapshot",
            "messageId": f"m{n}",
            "snapshot": {"trackedFileBackups": {}, "timestamp": f"2025-10-01T09:00:0{n}.000Z"},
            "isSnapshotUpdate": n > 1,
        }
        for n in range(1, 4)
    ]
