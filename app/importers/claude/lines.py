"""The lines of a Claude Code transcript as msgspec Structs, and the text inside them.

Only the fields the importer reads are declared, so unknown fields are skipped and a new field
in a new version of Claude Code never makes a line fail. Helpers here turn a line's content
(a string or a list of blocks) into text, a prompt's own words and its attachments, and a
timestamp into the log's form (RFC 3339 UTC with milliseconds).
"""

import re
from datetime import UTC, datetime
from typing import Any

import msgspec
from msgspec import Struct

from ...log import records as r

_CONTEXT = re.compile(r"<(system-reminder|ide_opened_file|ide_selection)>(.*?)</\1>\s*", re.DOTALL)


class Usage(Struct):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None


class Block(Struct):
    type: str = ""
    text: Any = None
    thinking: Any = None
    id: str | None = None
    name: str | None = None
    input: Any = None
    tool_use_id: str | None = None
    content: Any = None
    is_error: bool | None = None


class Message(Struct):
    id: str | None = None
    model: str | None = None
    content: str | list[Block] | None = None
    usage: Usage | None = None
    stop_reason: str | None = None


class Line(Struct):
    type: str = ""
    subtype: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None  # noqa: N815 (the source's names)
    isSidechain: bool | None = None  # noqa: N815
    isMeta: bool | None = None  # noqa: N815
    isCompactSummary: bool | None = None  # noqa: N815
    isApiErrorMessage: bool | None = None  # noqa: N815
    sessionId: str | None = None  # noqa: N815
    cwd: str | None = None
    gitBranch: str | None = None  # noqa: N815
    version: str | None = None
    entrypoint: str | None = None
    timestamp: str | None = None
    message: Message | None = None
    toolUseResult: msgspec.Raw = msgspec.Raw(b"null")  # noqa: N815 (decoded only if needed)
    summary: Any = None
    aiTitle: Any = None  # noqa: N815
    customTitle: Any = None  # noqa: N815
    durationMs: int | float | None = None  # noqa: N815
    compactMetadata: Any = None  # noqa: N815
    error: Any = None
    content: Any = None
    level: Any = None
    attachment: Any = None  # 2.1's `attachment` lines
    operation: Any = None  # `queue-operation` lines
    reason: Any = None
    requestId: str | None = None  # noqa: N815 (the API request: with message.id, one reply)
    logicalParentUuid: str | None = None  # noqa: N815 (a compact boundary's: its sub-agent's)


class AgentResult(Struct):
    agentId: str | None = None  # noqa: N815


decode_line = msgspec.json.Decoder(Line).decode
decode_agent = msgspec.json.Decoder(AgentResult).decode


def at_of(stamp: str | None, fallback: str) -> str:
    """A source timestamp as RFC 3339 UTC with milliseconds; the fallback when absent."""
    if not stamp or not isinstance(stamp, str):
        return fallback
    if len(stamp) == 24 and stamp[-1] == "Z" and stamp[19] == ".":
        return stamp
    try:  # the rare odd stamp: no milliseconds, an offset, microseconds
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        moment = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    except (ValueError, OverflowError):
        return fallback
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def text_of(content: Any) -> str:
    """The text of a tool result or message content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "image":
                    parts.append("[image]")
            elif isinstance(block, Block) and isinstance(block.text, str):
                parts.append(block.text)
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return "" if content is None else str(content)


def split_prompt(content: Any) -> tuple[str, list[r.Attachment]]:
    """A user message's own words, and the injected context and images as attachments."""
    attachments: list[r.Attachment] = []

    def keep(match: re.Match) -> str:
        attachments.append(r.Attachment(name=match.group(1), text=match.group(2).strip()))
        return ""

    words = []
    if isinstance(content, str):
        words.append(_CONTEXT.sub(keep, content) if "<" in content else content)
    elif isinstance(content, list):
        for block in content:
            if block.type == "text" and isinstance(block.text, str):
                text = block.text
                words.append(_CONTEXT.sub(keep, text) if "<" in text else text)
            elif block.type in ("image", "document"):
                attachments.append(r.Attachment(name=block.type))
    return "\n".join(word for word in words if word.strip()).strip(), attachments
