"""Generated messages a transcript drops: silent replies (``src/auto-reply/tokens.ts``),
heartbeat prompts (``heartbeat.ts``, ``heartbeat-filter.ts``), exec-completion events
(``src/infra/heartbeat-events-filter.ts``), ``System: [...]`` wrappers and ``[cron:...]`` prompts.
"""

from __future__ import annotations

import re

from memlab.sessions.envelopes import DELIVERY_HINTS
from memlab.text.js import (
    JS_WHITESPACE,
    from_utf16_units,
    js_regex,
    js_trim,
    json_parse,
    to_utf16_units,
    unicode_major_categories,
)

# --------------------------------------------------------------------------- generated messages
# Silent replies (src/auto-reply/tokens.ts), heartbeat prompts (heartbeat.ts,
# heartbeat-filter.ts), exec-completion events (src/infra/heartbeat-events-filter.ts).

_SILENT_TOKEN = "NO_REPLY"
_SILENT_EXACT = js_regex(r"^\s*NO_REPLY(?:\s+NO_REPLY)*\s*$", "i")
_REASONING_TAG = r"(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)"
_TAGGED_REASONING = js_regex(
    rf"^\s*<\s*{_REASONING_TAG}\b[^<>]*>[\s\S]*?<\s*\/\s*{_REASONING_TAG}\s*>\s*", "i")
_OPEN_REASONING = js_regex(rf"^\s*<\s*{_REASONING_TAG}\b[^<>]*>", "i")
_PLAIN_REASONING = js_regex(r"^\s*(?:think(?:ing)?|thought|analysis|reasoning)\s*:?\s*\r?\n", "i")
_FINAL_SILENT = js_regex(r"(?:^|[\s*.])NO_REPLY\s*$", "i")
_SILENT_INTENT = js_regex(
    r"^\s*(?:i|i'll|i\s+will|i'm|i\s+am|we|we'll|we\s+will|the\s+assistant|assistant|"
    r"the\s+bot|bot|openclaw)\s+(?:(?:will\s+)?(?:stay|remain|keep|be)\s+(?:quiet|silent)"
    r"(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?|"
    r"(?:do\s+not|don't|dont|will\s+not|won't|would\s+not|should\s+not)\s+(?:reply|respond)"
    r"(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?|"
    r"(?:have|has)\s+nothing\s+(?:to|for)\s+(?:say|add|reply|respond))(?:[.!?]+)?\s*$",
    "i",
)
_ANSWER_CUE = js_regex(
    r"\b(?:answer|here(?:'s|\s+is)|tell\s+them|you\s+(?:should|can|could|need|must)|please|"
    r"try|use|send|service\s+is|resolved|retry|yes|no,|sure)\b", "i")
_BARE_REASONING = js_regex(
    r"^\s*(?:(?:internal|private)\s+)?(?:reasoning|thinking|thoughts?|analysis)(?:\s+notes?)?\s*$",
    "i")


def _strip_edge_punctuation(text: str) -> str:
    """``text.replace(/^\\p{P}+|\\p{P}+$/gu, "")`` on code points."""
    table = unicode_major_categories()
    start, end = 0, len(text)
    while start < end and table[ord(text[start])] == "P":
        start += 1
    while end > start and table[ord(text[end - 1])] == "P":
        end -= 1
    return text[start:end]


def _is_silent_text(text: str) -> bool:
    if not text:
        return False
    if _SILENT_EXACT.search(text):
        return True
    stripped = to_utf16_units(_strip_edge_punctuation(from_utf16_units(js_trim(text))))
    return bool(_SILENT_EXACT.search(stripped))


def _is_silent_json_string(text: str) -> bool:
    trimmed = js_trim(text)
    if not (trimmed.startswith('"') and trimmed.endswith('"') and _SILENT_TOKEN in trimmed):
        return False
    ok, parsed = json_parse(from_utf16_units(trimmed))
    return ok and isinstance(parsed, str) and js_trim(parsed) == _SILENT_TOKEN


def _is_silent_envelope(text: str) -> bool:
    trimmed = js_trim(text)
    if not (trimmed.startswith("{") and trimmed.endswith("}") and _SILENT_TOKEN in trimmed):
        return False
    ok, parsed = json_parse(from_utf16_units(trimmed))
    if not ok or not isinstance(parsed, dict) or list(parsed) != ["action"]:
        return False
    return isinstance(parsed["action"], str) and js_trim(parsed["action"]) == _SILENT_TOKEN


def _strip_final_silent(text: str) -> str | None:
    stripped = js_trim(_FINAL_SILENT.sub("", text, count=1))
    return None if stripped == js_trim(text) else stripped


def _silent_intent_final(text: str) -> bool:
    rest = _strip_final_silent(text)
    if rest is None:
        return False
    return not rest or bool(_SILENT_INTENT.search(rest))


def _plain_reasoning_final(text: str) -> bool:
    rest = _strip_final_silent(text)
    if rest is None:
        return False
    if not rest or _SILENT_INTENT.search(rest):
        return True
    lines = [js_trim(line) for line in re.split(r"\r?\n", rest)]
    lines = [line for line in lines if line]
    final = lines[-1] if lines else None
    previous = "\n".join(lines[:-1])
    if final and _SILENT_INTENT.search(final) and previous and not _ANSWER_CUE.search(previous):
        return True
    return bool(_BARE_REASONING.search(rest))


def _is_reasoning_prefixed_silent(text: str) -> bool:
    trimmed = js_trim(text)
    if not trimmed:
        return False
    current = trimmed
    while True:
        nxt = _TAGGED_REASONING.sub("", current, count=1)
        if nxt == current:
            break
        current = nxt
    if current != trimmed:
        return _is_silent_text(current) or _silent_intent_final(current)
    if _OPEN_REASONING.search(trimmed):
        rest = _OPEN_REASONING.sub("", trimmed, count=1)
        return _is_silent_text(rest) or _plain_reasoning_final(rest)
    if not _PLAIN_REASONING.search(trimmed):
        return False
    rest = _PLAIN_REASONING.sub("", trimmed, count=1)
    return _is_silent_text(rest) or _plain_reasoning_final(rest)


def is_silent_payload(text: str) -> bool:
    """``isSilentReplyPayloadText`` for the ``NO_REPLY`` token."""
    if "no_reply" not in text.lower():  # every test below needs the token
        return False
    return (_is_silent_text(text) or _is_silent_json_string(text)
            or _is_silent_envelope(text) or _is_reasoning_prefixed_silent(text))


_HEARTBEAT_CONTEXT = ("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. "
                      "Do not infer or repeat old tasks from prior chats.")
_HEARTBEAT_PROMPT = f"{_HEARTBEAT_CONTEXT} If nothing needs attention, reply HEARTBEAT_OK."
_HEARTBEAT_TOOL_INSTRUCTIONS = (
    "Use heartbeat_respond to report the wake outcome. Set notify=false when nothing needs the "
    "user's attention. Set notify=true with notificationText only when the user should be "
    "interrupted.")
_HEARTBEAT_TOOL_PROMPT = f"{_HEARTBEAT_CONTEXT} {_HEARTBEAT_TOOL_INSTRUCTIONS}"
_HEARTBEAT_POLL = "[OpenClaw heartbeat poll]"
_HEARTBEAT_TASK_PREFIX = ("Run the following periodic tasks (only those due based on their "
                          "intervals):")
_HEARTBEAT_TASK_ACK = "After completing all due tasks, reply HEARTBEAT_OK."


def _matches_prompt(text: str, prompt: str) -> bool:
    normalized = js_trim(prompt)
    return bool(normalized) and (text == normalized or text.startswith(normalized + "\n"))


def is_heartbeat_prompt(text: str) -> bool:
    """``isHeartbeatUserMessage`` with the default heartbeat prompt."""
    trimmed = js_trim(text)
    if not trimmed:
        return False
    if trimmed == _HEARTBEAT_POLL:
        return True
    if any(trimmed.startswith(h) for h in DELIVERY_HINTS) and trimmed.endswith(_HEARTBEAT_POLL):
        return True
    if _matches_prompt(trimmed, _HEARTBEAT_PROMPT) or _matches_prompt(trimmed,
                                                                     _HEARTBEAT_TOOL_PROMPT):
        return True
    if _matches_prompt(trimmed, f"{_HEARTBEAT_PROMPT}\n\n{_HEARTBEAT_TOOL_INSTRUCTIONS}"):
        return True
    return trimmed.startswith(_HEARTBEAT_TASK_PREFIX) and _HEARTBEAT_TASK_ACK in trimmed


_EXEC_STRUCTURED = js_regex(
    r"^exec (completed|failed) \(([a-z0-9_-]{1,64}), (code -?\d+|signal [^)]+)\)"
    r"(?: :: ([\s\S]*))?$", "i")
_EXEC_FINISHED = js_regex(r"^exec finished(?::|\s*\()")


def is_exec_completion(event: str) -> bool:
    trimmed = event.lstrip(JS_WHITESPACE)
    return bool(_EXEC_FINISHED.search(js_trim(trimmed).lower())
                or _EXEC_STRUCTURED.search(trimmed))


SYSTEM_WRAPPER = js_regex(r"^System(?: \(untrusted\))?: \[[^\]]+\]\s*")
CRON_PROMPT = js_regex(r"^\[cron:[^\]]+\]\s*")
