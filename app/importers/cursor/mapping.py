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
from .. import names, prices, turns
from ..agent import decoded
from ..loose import objects, shaped
from ..times import at_ms, at_of, one_line

ORIGIN = names.origin("cursor")
TAB = {"tabId": str, "chatTitle": str, "lastSendTime": float, "bubbles": list}
COMPOSER = {
    "composerId": str,
    "name": str,
    "createdAt": float,
    "lastUpdatedAt": float,
    "modelConfig": {"modelName": str},
    "generatingBubbleIds": list,
    "subComposerIds": list,
    "fullConversationHeadersOnly": list,
    "conversation": list,
}
BUBBLE = {
    "bubbleId": str,
    "id": str,
    "text": str,
    "modelType": str,
    "allThinkingBlocks": list,
    "tokenCount": {"inputTokens": int, "outputTokens": int},
}
TOOL_USE = {"name": str, "toolCallId": str, "status": str}


def tabs(data, folder: str, source: str) -> list[tuple[str, list]]:
    out = []
    for tab in objects(shaped(data, {"tabs": list})["tabs"]):
        tab = shaped(tab, TAB)
        if not tab["tabId"] or not tab["bubbles"]:
            continue
        at = at_ms(tab.get("lastSendTime"), "")
        sid = str(tab["tabId"])
        records = [_start(sid, folder, source, at, ""), *_title(sid, tab.get("chatTitle"), at)]
        bubbles = [
            (b["id"], 1 if b.get("type") == "user" else 2, b, at)
            for b in map(_bubble, objects(tab["bubbles"]))
            if b.get("type") in ("user", "ai")
        ]
        _conversation(bubbles, records, None, "")
        out.append((sid, records))
    return out


def inline(data, folder: str, source: str) -> list[tuple[str, list]]:
    out = []
    for composer in objects(shaped(data, {"allComposers": list})["allComposers"]):
        composer = shaped(composer, COMPOSER)
        if not composer["composerId"] or not composer["conversation"]:
            continue  # a header only: its conversation is in the global database
        out.append(_composer(composer, composer["conversation"], folder, source))
    return out


def global_composers(disk: dict, bubbles: dict, folders: dict[str, str], source: str):
    """Every top-level composer of the global database, its sub-composers folded in."""
    disk = {cid: shaped(x, COMPOSER) for cid, x in disk.items() if isinstance(x, dict)}
    children = {c for x in disk.values() for c in _ids(x["subComposerIds"])}
    out = []
    for cid, composer in sorted(disk.items(), key=lambda kv: kv[1]["createdAt"]):
        if cid in children:
            continue
        conversation = _bubbles_of(cid, composer, bubbles)
        if not conversation:
            continue
        sid, records = _composer(
            composer | {"composerId": cid}, conversation, folders.get(cid, ""), source
        )
        for child in _ids(composer["subComposerIds"]):
            sub = disk.get(child)
            if sub is not None:
                agent = one_line(sub["name"] or "subagent", 40)
                _conversation(
                    _rows(_bubbles_of(child, sub, bubbles), sub), records, agent, _model(sub)
                )
        out.append((sid, records))
    return out


def _ids(value: list) -> list[str]:
    return [x for x in value if isinstance(x, str)]


def _bubble(bubble: dict) -> dict:
    """A bubble shaped as read; `toolFormerData` None when it made no call."""
    out = shaped(bubble, BUBBLE)
    tool = bubble.get("toolFormerData")
    out["toolFormerData"] = shaped(tool, TOOL_USE) if isinstance(tool, dict) and tool else None
    return out


def _bubbles_of(cid: str, composer: dict, bubbles: dict) -> list[dict]:
    if composer["conversation"]:
        return objects(composer["conversation"])
    out = []
    for head in objects(composer["fullConversationHeadersOnly"]):
        bid = head.get("bubbleId")
        body = bubbles.get(f"{cid}:{bid}") if isinstance(bid, str) else None
        if isinstance(body, dict):
            out.append(
                _bubble(body | {"bubbleId": bid, "type": body.get("type", head.get("type"))})
            )
    return out


def _composer(composer: dict, conversation: list, folder: str, source: str):
    sid = str(composer["composerId"])
    at = at_ms(composer["createdAt"], "")
    model = _model(composer)
    records = [_start(sid, folder, source, at, model), *_title(sid, composer["name"], at)]
    generating = set(_ids(composer["generatingBubbleIds"]))
    rows = []
    for bubble in _rows(conversation, composer):
        if bubble[0] in generating:
            break  # still being written: it and what follows wait for a later import
        rows.append(bubble)
    _conversation(rows, records, None, model)
    return sid, records


def _rows(conversation: list, composer: dict) -> list[tuple]:
    fallback = at_ms(composer["lastUpdatedAt"] or composer["createdAt"], "")
    return [
        (b["bubbleId"] or b["id"], b.get("type"), b, _bubble_at(b, fallback))
        for b in map(_bubble, objects(conversation))
        if b.get("type") in (1, 2)
    ]


def _bubble_at(bubble: dict, fallback: str) -> str:
    value = bubble.get("createdAt")
    if isinstance(value, int | float):
        return at_ms(value, fallback)
    return at_of(value, fallback)


def _model(composer: dict) -> str:
    name = composer["modelConfig"]["modelName"]
    return name if name != "default" else ""


def _start(sid: str, folder: str, source: str, at: str, model: str) -> r.SessionStart:
    origin = r.Origin(tool=ORIGIN, path=source, id=sid)
    return r.SessionStart(at=at, src=r.Src(id=sid), project=folder, origin=origin, model=model)


def _title(sid: str, title, at: str) -> list:
    name = one_line(title) if isinstance(title, str) else ""
    return [r.SessionTitle(at=at, src=r.Src(id=sid), title=name, actor="agent")] if name else []


def _conversation(rows: list[tuple], out: list, agent: str | None, model: str) -> None:
    """The bubbles in order: prompts, replies with their calls and results, turn ends."""
    asked = None
    for bid, kind, bubble, at in rows:
        src = r.Src(id=str(bid))
        text = bubble["text"]
        if kind == 1:
            _end(asked, out, agent)
            out.append(
                r.Message(at=at, src=src, agent=agent, text=text, attachments=_attachments(bubble))
            )
            asked = {"id": str(bid), "at": at, "answered": None, "cost": 0.0, "unknown": False}
            continue
        said = bubble["modelType"] or model
        thinking = _thinking(bubble)
        tool = bubble["toolFormerData"]
        usage = _usage(bubble)
        cost = prices.cost(said, usage, at) if usage else None
        if text or thinking or tool or usage:
            calls = [_call(tool, bid)] if tool else []
            out.append(turns.reply(at, src, (text, thinking, calls), said, usage, cost, agent))
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
        for item in objects(context.get(key)):
            uri = item.get("uri") if isinstance(item.get("uri"), dict) else {}
            name = item.get("path") or uri.get("fsPath") or uri.get("path")
            files.append(r.Attachment(name=name if isinstance(name, str) and name else key))
    return files


def _thinking(bubble: dict) -> str:
    thinking = bubble.get("thinking")
    if isinstance(thinking, dict):
        thinking = thinking.get("text")
    if not thinking:
        said = [b.get("text") for b in objects(bubble["allThinkingBlocks"])]
        thinking = "\n\n".join(t for t in said if isinstance(t, str) and t)
    return thinking if isinstance(thinking, str) else ""


def _usage(bubble: dict) -> r.Usage | None:
    count = bubble["tokenCount"]
    numbers = [max(count["inputTokens"], 0), max(count["outputTokens"], 0)]
    return r.Usage(input=numbers[0], output=numbers[1]) if any(numbers) else None


def _call(tool: dict, bid) -> r.Call:
    args = decoded(tool.get("rawArgs")) or decoded(tool.get("params"))
    return r.Call(id=tool["toolCallId"] or str(bid), tool=_tool_name(tool), input=args)


def _tool_name(tool: dict) -> str:
    return tool["name"] or (str(tool["tool"]) if isinstance(tool.get("tool"), int) else "tool")


def _result(tool: dict, bid, at: str, agent: str | None) -> r.Result:
    status = tool.get("status")
    result = decoded(tool.get("result"))
    output = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    if result is None:
        output = "rejected by the person" if status == "rejected" else ""
    code = result.get("exitCode") if isinstance(result, dict) else None
    error = status in ("error", "rejected", "cancelled") or code not in (None, 0)
    return r.Result(
        at=at,
        src=r.Src(id=str(bid)),
        agent=agent,
        call=tool["toolCallId"] or str(bid),
        tool=_tool_name(tool),
        output=output,
        error=error,
        exit=code if isinstance(code, int) else None,
    )
