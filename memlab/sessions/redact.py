"""``redactSensitiveText(text, {mode: "tools"})`` with OpenClaw's default patterns: secrets in
transcripts are masked before they are indexed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memlab.sessions.redact_patterns import (
    BODY_SECRET_KEYS,
    RedactPattern,
    candidate_patterns,
    could_match_defaults,
    default_redact_patterns,
    form_regexes,
    has_invisible,
    present_triggers,
)
from memlab.text.js import (
    JS_WHITESPACE_CLASS,
    decode_uri_component,
    from_utf16_units,
    regex_groups,
    to_utf16_units,
)

_QUOTES = ('"', "'", "`")
_TRAILING_DELIMITER = re.compile(r"""(["'`,;)}\]]+)\Z""")
_SUFFIX_ONLY = re.compile(r"""["'`,;)}\]]*""")


def _mask_token(token: str) -> str:
    """``maskToken``: ``***`` below 18 UTF-16 units, else first 6 + ``…`` + last 4."""
    if token == "***":
        return token
    units = to_utf16_units(token)
    if len(units) < 18:
        return "***"
    return from_utf16_units(f"{units[:6]}…{units[-4:]}")


def _split_secret(token: str) -> tuple[str, str]:
    """``splitSecretValueForMask``: ``(maskable, suffix)``."""
    opening = token[:1]
    if opening in _QUOTES:
        closing = token.rfind(opening)
        if closing > 0:
            suffix = token[closing + 1:]
            if _SUFFIX_ONLY.fullmatch(suffix):
                return token[1:closing], suffix
        rest = token[1:]
        found = _TRAILING_DELIMITER.search(rest)
        trailing = found.group(1) if found else ""
        if trailing and len(trailing) < len(rest):
            return rest[: -len(trailing)], trailing
        return rest, ""
    found = _TRAILING_DELIMITER.search(token)
    trailing = found.group(1) if found else ""
    maskable = token[: -len(trailing)] if trailing and len(trailing) < len(token) else token
    return maskable, "" if maskable == token else trailing


def _mask_secret(token: str, hinted: bool = False) -> str:
    maskable, suffix = _split_secret(token)
    return (_mask_token(maskable) if hinted else "***") + suffix


def _sensitive_key_name(value: str) -> str:
    separator = form_regexes()["separator"]
    stripped = separator.sub("", value)
    try:
        decoded = decode_uri_component(stripped)
        return separator.sub("", decoded).lower().replace("-", "_")
    except ValueError:
        return stripped.lower().replace("-", "_")


def _is_sensitive_body_key(key: str) -> bool:
    return _sensitive_key_name(key) in BODY_SECRET_KEYS


def _encoded_or_invisible_key(key: str) -> bool:
    return bool(form_regexes()["percent"].search(key)) or has_invisible(key)


def _redact_form_pairs(value: str) -> str:
    pairs = []
    for pair in value.split("&"):
        eq = pair.find("=")
        if eq >= 0 and _is_sensitive_body_key(pair[:eq]):
            pair = f"{pair[:eq]}={_mask_secret(pair[eq + 1:])}"
        pairs.append(pair)
    return "&".join(pairs)


def _encoded_pair_masker(hinted: bool) -> Callable[[re.Match[str]], str]:
    """The replacement for a ``(prefix, key, token)`` pair match: the token masked
    (:func:`_mask_secret`, ``hinted`` for URL queries) when the key is percent-encoded or
    holds invisible characters and names a secret; otherwise the match unchanged."""

    def repl(m: re.Match[str]) -> str:
        prefix, key, token = regex_groups(m)
        if not _encoded_or_invisible_key(key) or not _is_sensitive_body_key(key):
            return m.group(0)
        return f"{prefix}{key}={_mask_secret(token, hinted=hinted)}"

    return repl


def _redact_url_query_pairs(text: str) -> str:
    if not text or "?" not in text:
        return text
    return form_regexes()["url_pair"].sub(_encoded_pair_masker(hinted=True), text)


def _redact_encoded_form_pairs(text: str) -> str:
    rx = form_regexes()
    if not text or ("%" not in text and not has_invisible(text)):
        return text
    return rx["encoded_pair"].sub(_encoded_pair_masker(hinted=False), text)


def _redact_context_single_pairs(text: str) -> str:
    if not text or ("=" not in text and ":" not in text):
        return text

    def repl(m: re.Match[str]) -> str:
        prefix, _quote, key, token, suffix = regex_groups(m)
        if not _is_sensitive_body_key(key):
            return m.group(0)
        return f"{prefix}{key}={_mask_secret(token)}{suffix}"

    return form_regexes()["context_pair"].sub(repl, text)


def _redact_form_body_line(text: str) -> str:
    if not text:
        return text
    rx = form_regexes()
    context = _redact_context_single_pairs(_redact_encoded_form_pairs(text))
    if "&" not in context:
        return context
    if rx["body"].search(context):
        return _redact_form_pairs(context)

    def repl(m: re.Match[str]) -> str:
        prefix, body = regex_groups(m)
        redacted = _redact_form_pairs(body)
        return m.group(0) if redacted == body else prefix + redacted

    return _redact_context_single_pairs(
        _redact_encoded_form_pairs(rx["body_substring"].sub(repl, context)))


def _redact_form_body(text: str) -> str:
    if not text:
        return text
    if re.search(r"\r\n|\r|\n", text):
        pieces = re.split(r"(\r\n|\r|\n)", text)
        return "".join(p if re.fullmatch(r"\r\n|\r|\n", p) else _redact_form_body_line(p)
                       for p in pieces)
    return _redact_form_body_line(text)


_ENV_KEY = re.compile(r"\b([A-Z_][A-Z0-9_]*)\b[" + JS_WHITESPACE_CLASS + r"]*[=:]", re.ASCII)


def _is_shell_reference(key: str, value: str) -> bool:
    if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", key):
        return False
    bare = re.fullmatch(r"\$([A-Z_][A-Z0-9_]*)", value)
    if bare:
        return bare.group(1) == key
    braced = re.fullmatch(r"\$\{([A-Z_][A-Z0-9_]*)(?::[-=?+])?\}", value)
    return bool(braced) and braced.group(1) == key


def _redact_pem(block: str) -> str:
    lines = [line for line in re.split(r"\r?\n", block) if line]
    if len(lines) < 2:
        return "***"
    return f"{lines[0]}\n…redacted…\n{lines[-1]}"


def _redact_match(m: re.Match[str], pattern: RedactPattern) -> str:
    match = m.group(0)
    if "PRIVATE KEY-----" in match:
        return _redact_pem(match)
    groups = regex_groups(m)
    tokens = [(i, g) for i, g in enumerate(groups) if g]
    index, token = (tokens[-1] if len(tokens) > 1 else tokens[0]) if tokens else (-1, match)
    if _split_secret(token)[0] == "***":
        return match
    if pattern.shell_reference:
        key = _ENV_KEY.search(match)
        if (key and _is_shell_reference(key.group(1), token)) or re.fullmatch(r"[-=?+]\}",
                                                                               token):
            return match
        masked = _mask_token(token)
    else:
        masked = _mask_secret(token, hinted=True)
    if token == match:
        return masked
    start = m.start(index + 1) - m.start() if index >= 0 else 0
    return f"{match[:start]}{masked}{match[start + len(token):]}"


def _base64_lookbehind_hit(text: str, pos: int) -> bool:
    """Does ``;base64,[A-Za-z0-9+/=]*`` (case-insensitive) end at ``pos``?"""
    k = pos
    while k > 0 and (text[k - 1].isascii() and (text[k - 1].isalnum() or text[k - 1] in "+/=")):
        k -= 1
    return text[max(0, k - 8):k].lower() == ";base64,"


def _replace_pattern(text: str, pattern: RedactPattern) -> str:
    regex = pattern.regex
    if not pattern.base64_lookbehind:
        return regex.sub(lambda m: to_utf16_units(_redact_match(m, pattern)), text)
    out: list[str] = []
    last = pos = 0
    while pos <= len(text):
        m = regex.search(text, pos)
        if m is None:
            break
        if _base64_lookbehind_hit(text, m.end(1)):
            pos = m.start() + 1
            continue
        out.append(text[last:m.start()])
        out.append(to_utf16_units(_redact_match(m, pattern)))
        last = m.end()
        pos = m.end() if m.end() > m.start() else m.end() + 1
    out.append(text[last:])
    return "".join(out)


def _replace_bounded(text: str, pattern: RedactPattern) -> str:
    """``replacePatternBounded``: texts over 32768 units are matched in 16384-unit slices."""
    if pattern.chunk_unsafe or len(text) <= 32768:
        return _replace_pattern(text, pattern)
    return "".join(_replace_pattern(text[i : i + 16384], pattern)
                   for i in range(0, len(text), 16384))


def redact_sensitive_text(text: str) -> str:
    """OpenClaw's ``redactSensitiveText(text, {mode: "tools"})`` with its default patterns.

    Secrets such as API keys, bearer tokens, ``KEY=value`` assignments, credentials in URLs
    and form bodies are masked (``sk-abc…3456`` or ``***``), exactly as OpenClaw masks them
    before a transcript is indexed.

    >>> redact_sensitive_text("use sk-abcdefghijklmnopqrstuvwxyz123456 here")
    'use sk-abc…3456 here'
    >>> redact_sensitive_text("password=hunter2")
    'password=***'
    """
    if not text:
        return text
    text = from_utf16_units(text)
    if not could_match_defaults(text):
        return text
    nxt = _redact_form_body(_redact_url_query_pairs(text))
    nxt = to_utf16_units(nxt)
    patterns = default_redact_patterns()
    queue = candidate_patterns(present_triggers(nxt))
    while queue:
        index = queue.pop(0)
        replaced = _replace_bounded(nxt, patterns[index])
        if replaced != nxt:
            nxt = replaced
            queue = candidate_patterns(present_triggers(nxt), after=index)
    return from_utf16_units(nxt)
