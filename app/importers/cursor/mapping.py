"""Cursor's chats and composers as nodwyn records, one task each.

Three generations (../shared/FORMATS-AGENTS.md §4a):
- chat tabs (workspace `aichat.chatdata`, up to about 0.4x): bubbles `user` / `ai`, the
  tab's `chatTitle`, one time (`lastSendTime`); the reply's model is `modelType`;
- composers with their conversation inline (workspace `composer.composerData`, 2024):
  bubbles `type` 1 (person) / 2 (model), the composer's `name`, `createdAt`/`lastUpdatedAt`;
- composers in the global database (`composerData:<id>` with `fullConversationHeadersOnly`,
  and one `bubbleId:<composer>:<bubble>` row per message): text, `thinking`, tool calls
  (`toolFormerData`: name, arguments, result, status `completed`/`error`/`cancelled`,
  `rejected`), `tokenCount`, `createdAt`; the model from `modelConfig.modelName`;
  sub-composers (`subComposerIds`) folded in after their parent, marked with their name.
A composer still generating (`generatingBubbleIds`) is read up to the first bubble being
written. Each bubble's record carries its bubble id as `src.id`.
"""

import json

from ...log import records as r
from .. import prices
from ..stamps import at_ms, one_line

TOOL = "cursor"


def tabs(data, folder: str, source: str) -> list[tuple[str, list]]:
    out = []
    for tab in (data or {}).get("tabs") or []:
        if not isinstance(tab, dict) or not tab.get("tabId") or not tab.get("bubbles"):
            continue
        at = at_ms(tab.get("lastSendTime"), "")
        sid = str(tab["tabId"])
        records = [_start(sid, folder, source, at, ""), *_title(sid, tab.get("chatTitle"), at)]
        bubbles = [
            (b.get("id"), 1 if b.get("type") == "user" else 2, b, at)
            for b in tab["bubbles"]
            if isinstance(b, dict) and b.get("type") in ("user", "ai")
        ]
        _conversation(bubbles, records, None, "")
        out.append((sid, records))
    return out


def inline(data, folder: str, source: str) -> list[tuple[str, list]]:
    out = []
    for composer in (data or {}).get("allComposers") or []:
        if not isinstance(composer, dict) or not composer.get("conversation"):
            continue  # a header only: its conversation is in the global database
        out.append(_composer(composer, composer["conversation"], folder, source))
    return out


def global_composers(disk: dict, bubbles: dict, folders: dict[str, str], source: str):
    """Every top-level composer of the global database, its sub-composers folded in."""
    children = {
        c for x in disk.values() if isinstance(x, dict) for c in x.get("subComposerIds") or []
    }
    out = []
    for cid, composer in sorted(disk.items(), key=lambda kv: _created(kv[1])):
        if not isinstance(composer, dict) or cid in children:
            continue
        conversation = _bubbles_of(cid, composer, bubbles)
        if not conversation:
            continue
        sid, records = _composer(
            composer | {"composerId": cid}, conversation, folders.get(cid, ""), source
        )
        for child in composer.get("subComposerIds") or []:
            sub = disk.get(child)
            if isinstance(sub, dict):
                agent = one_line(sub.get("name") or "subagent", 40)
                _conversation(
                    _rows(_bubbles_of(child, sub, bubbles), sub), records, agent, _model(sub)
                )
        out.append((sid, records))
    return out


def _created(composer) -> int:
    value = composer.get("createdAt") if isinstance(composer, dict) else None
    return value if isinstance(value, int) else 0


def _bubbles_of(cid: str, composer: dict, bubbles: dict) -> list[dict]:
    if isinstance(composer.get("conversation"), list) and composer["conversation"]:
        return [b for b in composer["conversation"] if isinstance(b, dict)]
    out = []
    for head in composer.get("fullConversationHeadersOnly") or []:
        bid = head.get("bubbleId") if isinstance(head, dict) else None
        body = bubbles.get(f"{cid}:{bid}")
        if isinstance(body, dict):
            out.append(body | {"bubbleId": bid, "type": body.get("type", head.get("type"))})
    return out


def _composer(composer: dict, conversation: list, folder: str, source: str):
    sid = str(composer["composerId"])
    at = at_ms(composer.get("createdAt"), "")
    model = _model(composer)
    records = [_start(sid, folder, source, at, model), *_title(sid, composer.get("name"), at)]
    generating = set(composer.get("generatingBubbleIds") or ())
    rows = []
    for bubble in _rows(conversation, composer):
        if bubble[0] in generating:
            break  # still being written: it and what follows wait for a later import
        rows.append(bubble)
    _conversation(rows, records, None, model)
    return sid, records


def _rows(conversation: list, composer: dict) -> list[tuple]:
    fallback = at_ms(composer.get("lastUpdatedAt") or composer.get("createdAt"), "")
    return [
        (b.get("bubbleId") or b.get("id"), b.get("type"), b, _bubble_at(b, fallback))
        for b in conversation
        if isinstance(b, dict) and b.get("type") in (1, 2)
    ]


def _bubble_at(bubble: dict, fallback: str) -> str:
    value = bubble.get("createdAt")
    if isinstance(value, int | float):
        return at_ms(value, fallback)
    if isinstance(value, str) and len(value) >= 20 and value[10] == "T":
        from ..claude_lines import at_of

        return at_of(value, fallback)
    return fallback


def _model(composer: dict) -> str:
    config = composer.get("modelConfig") if isinstance(composer.get("modelConfig"), dict) else {}
    name = config.get("modelName")
    return name if isinstance(name, str) and name != "default" else ""


def _start(sid: str, folder: str, source: str, at: str, model: str) -> r.SessionStart:
    origin = r.Origin(tool=TOOL, path=source, id=sid)
    return r.SessionStart(at=at, src=r.Src(id=sid), project=folder, origin=origin, model=model)


def _title(sid: str, title, at: str) -> list:
    name = one_line(title) if isinstance(title, str) else ""
    return [r.SessionTitle(at=at, src=r.Src(id=sid), title=name, actor="agent")] if name else []


def _conversation(rows: list[tuple], out: list, agent: str | None, model: str) -> None:
    """The bubbles in order: prompts, replies with their calls and results, turn ends."""
    asked = None
    for bid, kind, bubble, at in rows:
        src = r.Src(id=str(bid))
        text = bubble.get("text") if isinstance(bubble.get("text"), str) else ""
        if kind == 1:
            _end(asked, out, agent)
            out.append(
                r.Message(at=at, src=src, agent=agent, text=text, attachments=_attachments(bubble))
            )
            asked = {"id": str(bid), "at": at, "answered": None, "cost": 0.0, "unknown": False}
            continue
        said = str(bubble.get("modelType") or model)
        thinking = _thinking(bubble)
        tool = (
            bubble.get("toolFormerData") if isinstance(bubble.get("toolFormerData"), dict) else None
        )
        usage = _usage(bubble)
        cost = prices.cost(said, usage) if usage else None
        if text or thinking or tool or usage:
            calls = [_call(tool, bid)] if tool else []
            out.append(
                r.Reply(
                    at=at,
                    src=src,
                    agent=agent,
                    text=text,
                    thinking=thinking,
                    calls=calls,
                    model=said,
                    usage=usage,
                    cost_usd=cost,
                )
            )
        if tool:
            out.append(_result(tool, bid, at, agent))
        if asked is not None:
            asked["answered"] = at if text and not tool else None
            asked["cost"] += cost or 0.0
            asked["unknown"] = asked["unknown"] or (usage is not None and cost is None)
    _end(asked, out, agent)


def _end(asked: dict | None, out: list, agent: str | None) -> None:
    if asked is None or agent is not None or asked["answered"] is None:
        return
    cost = None if asked["unknown"] or not asked["cost"] else round(asked["cost"], 8)
    out.append(r.TurnEnd(at=asked["answered"], src=r.Src(id=f"{asked['id']}:end"), cost_usd=cost))


def _attachments(bubble: dict) -> list[r.Attachment]:
    context = bubble.get("context") if isinstance(bubble.get("context"), dict) else bubble
    files = []
    for key in ("fileSelections", "selectedImages", "folderSelections"):
        for item in context.get(key) or []:
            if isinstance(item, dict):
                uri = item.get("uri") if isinstance(item.get("uri"), dict) else {}
                name = item.get("path") or uri.get("fsPath") or uri.get("path") or key
                files.append(r.Attachment(name=str(name)))
    return files


def _thinking(bubble: dict) -> str:
    thinking = bubble.get("thinking")
    if isinstance(thinking, dict):
        thinking = thinking.get("text")
    blocks = bubble.get("allThinkingBlocks")
    if not thinking and isinstance(blocks, list):
        thinking = "\n\n".join(str(b.get("text") or "") for b in blocks if isinstance(b, dict))
    return thinking if isinstance(thinking, str) else ""


def _usage(bubble: dict) -> r.Usage | None:
    count = bubble.get("tokenCount") if isinstance(bubble.get("tokenCount"), dict) else {}
    given = [count.get("inputTokens"), count.get("outputTokens")]
    numbers = [n if isinstance(n, int) else 0 for n in given]
    return r.Usage(input=numbers[0], output=numbers[1]) if any(numbers) else None


def _decoded(value):
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _call(tool: dict, bid) -> r.Call:
    args = _decoded(tool.get("rawArgs")) or _decoded(tool.get("params"))
    name = str(tool.get("name") or tool.get("tool") or "tool")
    return r.Call(id=str(tool.get("toolCallId") or bid), tool=name, input=args)


def _result(tool: dict, bid, at: str, agent: str | None) -> r.Result:
    status = tool.get("status")
    result = _decoded(tool.get("result"))
    output = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    if result is None:
        output = "rejected by the person" if status == "rejected" else ""
    code = result.get("exitCode") if isinstance(result, dict) else None
    error = status in ("error", "rejected", "cancelled") or code not in (None, 0)
    return r.Result(
        at=at,
        src=r.Src(id=str(bid)),
        agent=agent,
        call=str(tool.get("toolCallId") or bid),
        tool=str(tool.get("name") or tool.get("tool") or "tool"),
        output=output,
        error=error,
        exit=code if isinstance(code, int) else None,
    )
