"""OpenClaw's default redaction patterns (``src/logging/redact.ts``, 2026.7.35), compiled with
JavaScript semantics, with the prefilter and the cheap substring triggers that skip patterns.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memlab.text.js import (
    js_regex,
    js_trim,
)

# --------------------------------------------------------------------------- redaction
# src/logging/redact.ts: redactSensitiveText(text, {mode: "tools"}) with the default patterns.

_PAY_ENV = (r"CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|"
            r"PAYMENT[_-]?CREDENTIAL|SHARED[_-]?PAYMENT[_-]?TOKEN")
_PAY_QUERY = (r"card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|"
              r"payment[-_]?credential|shared[-_]?payment[-_]?token")
_AUTH_QUERY = (r"access[-_]?token|auth[-_]?token|hook[-_]?token|refresh[-_]?token|id[-_]?token|"
               r"api[-_]?key|apikey|client[-_]?secret|app[-_]?secret|private[-_]?key|credential|"
               r"authorization|token|key|secret|password|pass|passwd|auth|jwt|session|code|"
               r"signature|x[-_]?amz[-_]?(?:signature|security[-_]?token)")
_FORM_FIRST_KEYS = rf"{_AUTH_QUERY}|app[-_]?secret|credential|{_PAY_QUERY}"
_STANDALONE_KEYS = (r"access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|"
                    r"api[-_]?key|client[-_]?secret|app[-_]?secret|private[-_]?key|authorization|"
                    rf"jwt|token|secret|password|pass|passwd|credential|{_PAY_QUERY}")
_PAY_JSON = (r"cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode|"
             r"security_code|paymentCredential|payment_credential|sharedPaymentToken|"
             r"shared_payment_token")
_ENV_ASSIGN = (rf"/\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{_PAY_ENV})\b\s*[=:]\s*"
               r"""(["']?)([^\s"'\\]+)\1/g""")
_ESCAPED_ENV_ASSIGN = (rf"/\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{_PAY_ENV})\b\s*"
                       r"""[=:]\s*\\+(["'])([^\s"'\\]+)\\+\1/g""")
_STANDALONE_QUOTED = (rf"(^|[\s,;])(?:{_STANDALONE_KEYS})="
                      r"""(["'\x60])((?:(?!\2)[^\r\n])+)\2""")
_STANDALONE = rf"""(^|[\s,;])(?:{_STANDALONE_KEYS})=(["'\x60]?[^\s&#"'\x60<>]+)"""
_BASE64_BOUNDARY = r"(^|[^A-Za-z0-9])(?<!;base64,[A-Za-z0-9+/=]*)"
_IDENT_BOUNDARY = r"(^|[^A-Za-z0-9_])"
_TELEGRAM_BOT = r"\bbot(\d{6,}:[A-Za-z0-9_-]{20,})\b"
_TELEGRAM = r"\b(\d{6,}:[A-Za-z0-9_-]{20,})\b"
_B64 = _BASE64_BOUNDARY
_ID = _IDENT_BOUNDARY

#: ``DEFAULT_REDACT_PATTERNS`` (OpenClaw 2026.7.35), in order, as OpenClaw spells them.
_DEFAULT_REDACT_PATTERNS: tuple[str, ...] = (
    _ENV_ASSIGN,
    _ESCAPED_ENV_ASSIGN,
    rf"/[?&](?:{_AUTH_QUERY}|{_PAY_QUERY})=([^&#\s<>]+)/gi",
    r'"(?:apiKey|api_key|apiToken|api_token|bearerToken|bearer_token|token|secret|password|'
    r"passwd|credential|authorization|accessToken|access_token|refreshToken|refresh_token|"
    r"idToken|id_token|authToken|auth_token|clientSecret|client_secret|privateKey|private_key|"
    rf'secret_value|raw_secret|secret_input|key_material|{_PAY_JSON})"\s*:\s*"([^"]+)"',
    r"""(^|[\s,{])["']?(?:api[-_]key|access[-_]token|refresh[-_]token|id[-_]token|authToken|"""
    r"auth[-_]token|clientSecret|client[-_]secret|appSecret|app[-_]secret|private[-_]key|"
    r"credential|authorization|secret[-_]value|raw[-_]secret|secret[-_]input|key[-_]material)"
    r"""["']?\s*[:=]\s*(["'])([^"'\r\n]+)\2""",
    r"""(^|[\s,{])["']?(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|"""
    r"""x-auth-token)["']?\s*[:=]\s*(["'])([^"'\r\n]+)\2""",
    r"--(?:api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token|"
    r"secret|password|passwd|credential|private[-_]?key|client[-_]?secret|"
    rf"""{_PAY_QUERY})\s+(?!(?:or|and)\b(?=\s+--))(["']?)([^\s"']+)\1""",
    r"Authorization\s*[:=]\s*Bearer\s+([A-Za-z0-9._\-+=]+)",
    r"Authorization\s*[:=]\s*Basic\s+([A-Za-z0-9+/=]+)",
    r"Authorization\s*[:=]\s*Bot\s+([A-Za-z0-9._\-+=]{18,})",
    r"(?:X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token)\s*[:=]\s*"
    r"""([^\s"',;]+)""",
    r"\bBearer\s+([A-Za-z0-9._\-+=]{18,})\b",
    r"\b(?:https?|wss?|ftp):\/\/[^\/\s:@]*:([^\/\s@]+)@",
    r"\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?):\/\/[^:\s/@]*:([^@\s]+)@",
    rf"(^|[\s,;])(?:{_FORM_FIRST_KEYS})=([^&\s]+)(?=&[A-Za-z_][A-Za-z0-9_.-]*=)",
    _STANDALONE_QUOTED,
    _STANDALONE,
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----",
    r"\b(sk-[A-Za-z0-9_-]{8,})\b",
    r"(ghp_[A-Za-z0-9]{10,})",
    r"(github_pat_[A-Za-z0-9_]{10,})",
    r"(gho_[A-Za-z0-9]{10,})",
    r"(ghu_[A-Za-z0-9]{10,})",
    r"(ghs_[A-Za-z0-9]{10,})",
    r"(ghr_[A-Za-z0-9]{10,})",
    r"(glpat-[A-Za-z0-9._=\-]{20,})",
    r"(gloas-[A-Fa-f0-9]{32,})",
    r"(xox[baprs]-[A-Za-z0-9-]{10,})",
    r"(xapp-[A-Za-z0-9-]{10,})",
    r"(https:\/\/hooks\.slack\.com\/(?:services\/T[A-Z0-9]+\/B[A-Z0-9]+|"
    r"workflows\/T[A-Z0-9]+\/A[A-Z0-9]+\/[0-9]{17,19})\/[A-Za-z0-9]{20,})",
    r"(https:\/\/discord(?:app)?\.com\/api\/webhooks\/[0-9]{17,20}\/[A-Za-z0-9_-]{60,})",
    r"discord(?:.|\n|\r){0,40}?\b([A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27})\b",
    r"(gsk_[A-Za-z0-9_-]{10,})",
    r"(AIza[0-9A-Za-z\-_]{20,})",
    r"(ya29\.[0-9A-Za-z_\-./+=]{10,})",
    r"(1//0[0-9A-Za-z_\-./+=]{10,})",
    r"(eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
    r"(pplx-[A-Za-z0-9_-]{10,})",
    r"(fal_[A-Za-z0-9_-]{10,})",
    r"(fc-[A-Za-z0-9]{10,})",
    r"(bb_live_[A-Za-z0-9_-]{10,})",
    rf"{_B64}(gAAAA[A-Za-z0-9_=-]{{20,}})",
    r"(sk_live_[A-Za-z0-9]{10,})",
    r"(sk_test_[A-Za-z0-9]{10,})",
    r"(rk_live_[A-Za-z0-9]{10,})",
    r"(SG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
    r"(npm_[A-Za-z0-9]{10,})",
    r"(pypi-[A-Za-z0-9_-]{10,})",
    r"(dop_v1_[A-Za-z0-9]{10,})",
    r"(doo_v1_[A-Za-z0-9]{10,})",
    r"(dor_v1_[A-Za-z0-9]{10,})",
    r"(dp\.(?:ct|pt|sa|scim|audit)\.[A-Za-z0-9]{40,44})",
    r"(dp\.st\.[A-Za-z0-9]{40,44})",
    r"(dp\.st\.[a-z0-9_-]{2,35}\.[A-Za-z0-9]{40,44})",
    r"(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})",
    r"(bkua_[a-z0-9]{40})",
    r"(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})",
    r"(sbp_[a-z0-9]{40})",
    rf"{_B64}(dapi[0-9a-f]{{32}}(?:-\d)?)",
    r"(dd[pw]_[A-Za-z0-9]{36})",
    r"(glsa_[A-Za-z0-9_]{41})",
    r"(glc_eyJ[A-Za-z0-9+/=]{60,160})",
    r"(nfp_[A-Za-z0-9_]{36})",
    r"(CFPAT-[A-Za-z0-9_\-]{40,})",
    rf"{_B64}(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{{8}})",
    rf"{_B64}(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{{8}})",
    rf"{_B64}(ATBB[A-Za-z0-9_=.-]{{16,}})",
    r"(BBDC-[A-Za-z0-9+/@_-]{40,50})",
    r"(HRKU-AA[A-Za-z0-9_-]{20,})",
    r"(pat-(?:eu|na)1-[A-Za-z0-9]{8}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-"
    r"[A-Za-z0-9]{12})",
    r"(apify_api_[A-Za-z0-9\-]{20,})",
    r"(FlyV1 fm\d+_[A-Za-z0-9+/=,_-]{100,})",
    r"(fio-u-[A-Za-z0-9_-]{40,})",
    r"(^|[^A-Za-z0-9_])(am_[A-Za-z0-9_-]{10,})",
    r"(^|[^A-Za-z0-9_])(sk_[A-Za-z0-9_]{10,})",
    r"(tvly-[A-Za-z0-9]{10,})",
    r"(exa_[A-Za-z0-9]{10,})",
    r"(syt_[A-Za-z0-9]{10,})",
    r"(retaindb_[A-Za-z0-9]{10,})",
    r"(hsk-[A-Za-z0-9]{10,})",
    r"(mem0_[A-Za-z0-9]{10,})",
    r"(brv_[A-Za-z0-9]{10,})",
    r"(xai-[A-Za-z0-9]{30,})",
    rf"{_ID}(fw-[A-Za-z0-9]{{30,}})",
    rf"{_ID}(fw_[A-Za-z0-9]{{30,}})",
    rf"{_ID}(fpk_[A-Za-z0-9]{{30,}})",
    rf"{_B64}(AKIA[A-Z0-9]{{16}})",
    rf"{_B64}(ASIA[A-Z0-9]{{16}})",
    r"(AKID[A-Za-z0-9]{10,})",
    r"(LTAI[A-Za-z0-9]{10,})",
    r"(hf_[A-Za-z0-9]{10,})",
    r"(api_org_[A-Za-z0-9]{20,})",
    r"(r8_[A-Za-z0-9]{10,})",
    _TELEGRAM_BOT,
    _TELEGRAM,
)

_INVISIBLE = r"\p{C}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0"
_PREFILTER_SOURCES = (
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|COOKIE|SIGNATURE|CREDENTIAL|CARD|CVC|CVV|PAYMENT|"
    r"PRIVATE KEY",
    r"security[-_]?code|\bpass=|jwt=|session=|code=",
    r"\bBearer\s+",
    r":\/\/[^\/\s:@]*:[^\/\s@]+@",
    r"sk-|gh[opsur]_|github_pat_|glpat-|gloas-|xox[baprs]-|xapp-|hooks\.slack\.com|discord|gsk_|"
    r"AIza|ya29\.|1\/\/0|eyJ|pplx-|fal_|fc-|bb_live_|gAAAA|[sr]k_(?:live|test)_|\bSG\.|npm_|"
    r"pypi-|do[opr]_v1_|dp\.(?:ct|pt|sa|st|scim|audit)\.|dckr_|bkua_|CCIPAT_|sbp_|dapi[0-9a-f]|"
    r"dd[pw]_|glsa_|nfp_|CFPAT-|ATCTT3|ATATT|ATBB|BBDC-|HRKU-|pat-(?:eu|na)1-|apify_api_|FlyV1|"
    r"fio-u-|tvly-|exa_|syt_|retaindb_|mem0_|brv_|xai-|fw-|fw_|fpk_",
    r"(?:^|[^A-Za-z0-9_])(?:am_|sk_)",
    r"A[KS]IA[A-Z0-9]|AKID|LTAI|hf_|api_org_|r8_",
    r"\bbot\d{6,}:|\b\d{6,}:[A-Za-z0-9_-]{20,}",
    r"%[0-9A-Fa-f]{2}[A-Za-z0-9_%.-]*=",
    rf"(?:\+|[{_INVISIBLE}])(?:[{_INVISIBLE}+]*[A-Za-z0-9_%.-])+[{_INVISIBLE}+]*=",
)
# Substrings (of the lower-cased text) without which a prefilter branch cannot match; a
# branch that is all literals needs no regex at all.
_PREFILTER_GUARDS: tuple[tuple[str, ...], ...] = (
    ("key", "token", "secret", "password", "passwd", "auth", "cookie", "signature",
     "credential", "card", "cvc", "cvv", "payment", "private key"),
    ("security", "pass=", "jwt=", "session=", "code="),
    ("bearer",),
    ("://",),
    ("sk-", "gh", "github_pat_", "glpat-", "gloas-", "xox", "xapp-", "hooks.slack.com",
     "discord", "gsk_", "aiza", "ya29.", "1//0", "eyj", "pplx-", "fal_", "fc-", "bb_live_",
     "gaaaa", "k_live_", "k_test_", "sg.", "npm_", "pypi-", "_v1_", "dp.", "dckr_", "bkua_",
     "ccipat_", "sbp_", "dapi", "dd", "glsa_", "nfp_", "cfpat-", "atctt3", "atatt", "atbb",
     "bbdc-", "hrku-", "pat-", "apify_api_", "flyv1", "fio-u-", "tvly-", "exa_", "syt_",
     "retaindb_", "mem0_", "brv_", "xai-", "fw-", "fw_", "fpk_"),
    ("am_", "sk_"),
    ("akia", "asia", "akid", "ltai", "hf_", "api_org_", "r8_"),
    (":",),
    ("%",),
    ("=",),
)


@functools.cache
def _prefilter_branches() -> tuple[re.Pattern[str] | None, ...]:
    return (None, *(js_regex(source, "iu") for source in _PREFILTER_SOURCES[1:]))


def could_match_defaults(text: str) -> bool:
    """``couldMatchDefaultRedactPatterns``: the case-insensitive prefilter regex, evaluated
    branch by branch behind substring guards (a failing search of the whole alternation is
    slow in Python's ``re``)."""
    folded = text.lower().replace("\u017f", "s")  # u+i folding: the long s matches "s"
    branches = _prefilter_branches()
    for index, (guards, regex) in enumerate(zip(_PREFILTER_GUARDS, branches, strict=True)):
        if not any(g in folded for g in guards):
            continue
        if regex is None:
            return True
        if index == 3 and "@" not in text:
            continue
        if index == 7 and not _SIX_DIGITS.search(text):
            continue
        if index == 8 and "=" not in text:
            continue
        if index == 9 and not has_invisible(text):
            continue
        if regex.search(text):
            return True
    return False


_SIX_DIGITS = re.compile("[0-9]{6}")


_FORM_KEY = (rf"[{_INVISIBLE}+]*(?:[A-Za-z_]|%[0-9A-Fa-f]{{2}})"
             rf"(?:[A-Za-z0-9_.-]|%[0-9A-Fa-f]{{2}}|[{_INVISIBLE}+])*")
_FORM_VALUE = r"[^&\s<>]*"
_FORM_PAIR = f"{_FORM_KEY}={_FORM_VALUE}"
BODY_SECRET_KEYS = frozenset({
    "access_token", "auth_token", "hook_token", "refresh_token", "id_token", "token", "api_key",
    "apikey", "client_secret", "app_secret", "password", "pass", "passwd", "auth", "jwt",
    "session", "code", "signature", "x_amz_signature", "x_amz_security_token", "secret",
    "credential", "private_key", "authorization", "key", "card_number", "card_cvc", "card_cvv",
    "cvc", "cvv", "security_code", "payment_credential", "shared_payment_token",
})


@dataclass(frozen=True)
class RedactPattern:
    regex: re.Pattern[str]
    shell_reference: bool  # ENV/standalone assignments: keep `KEY=$KEY` shell references
    chunk_unsafe: bool  # always matched on the whole text (no 16384-unit chunks)
    base64_lookbehind: bool  # ``(?<!;base64,[A-Za-z0-9+/=]*)`` checked by hand
    triggers: tuple[frozenset[str], ...]  # every match contains one string of each group

    def may_match(self, present: frozenset[str]) -> bool:
        return all(not group.isdisjoint(present) for group in self.triggers)


# Lower-case substrings every match of the corresponding default pattern contains (one of each
# group): a cheap test that lets the regex be skipped. Python's ``re`` cannot use a literal
# prefix under IGNORECASE, and most patterns are case-insensitive.
_ENV_WORDS = ("key", "token", "secret", "passw", "card", "cvc", "cvv", "security", "payment")
_QUOTE_CHARS = ('"', "'")
_TRIGGERS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (_ENV_WORDS, ("=", ":")),
    (_ENV_WORDS, ("=", ":"), ("\\",)),
    (("?", "&"), ("=",)),
    (('"',), (":",)),
    (_QUOTE_CHARS, ("=", ":")),
    (_QUOTE_CHARS, ("=", ":")),
    (("--",),),
    (("authorization",), ("bearer",)),
    (("authorization",), ("basic",)),
    (("authorization",), ("bot",)),
    (("x-openclaw-token", "x-pomerium-jwt-assertion", "x-api-key", "x-auth-token"),),
    (("bearer",),),
    (("://",), ("@",)),
    (("://",), ("@",)),
    (("=",), ("&",)),
    (("=",), ('"', "'", "`")),
    (("=",),),
    (("private key-----",),),
    *(((prefix,),) for prefix in (
        "sk-", "ghp_", "github_pat_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-", "gloas-", "xox",
        "xapp-", "hooks.slack.com/", "discord", "discord", "gsk_", "aiza", "ya29.", "1//0",
        "eyj", "pplx-", "fal_", "fc-", "bb_live_", "gaaaa", "sk_live_", "sk_test_", "rk_live_",
        "sg.", "npm_", "pypi-", "dop_v1_", "doo_v1_", "dor_v1_", "dp.", "dp.st.", "dp.st.",
        "dckr_", "bkua_", "ccipat_", "sbp_", "dapi")),
    (("ddp_", "ddw_"),),
    *(((prefix,),) for prefix in (
        "glsa_", "glc_eyj", "nfp_", "cfpat-", "atctt3xffg", "atatt", "atbb", "bbdc-", "hrku-aa",
        "pat-", "apify_api_", "flyv1 fm", "fio-u-", "am_", "sk_", "tvly-", "exa_", "syt_",
        "retaindb_", "hsk-", "mem0_", "brv_", "xai-", "fw-", "fw_", "fpk_", "akia", "asia",
        "akid", "ltai", "hf_", "api_org_", "r8_")),
    (("bot",), (":",)),
    ((":",),),
)


@functools.cache
def default_redact_patterns() -> tuple[RedactPattern, ...]:
    """``resolvePatterns(undefined)``: the defaults compiled the way ``parsePattern`` does."""
    shell = {_ENV_ASSIGN, _ESCAPED_ENV_ASSIGN, _STANDALONE_QUOTED, _STANDALONE}
    out = []
    for raw, triggers in zip(_DEFAULT_REDACT_PATTERNS, _TRIGGERS, strict=True):
        literal = re.fullmatch(r"/(.+)/([gimsuy]*)", raw, re.S)
        source, flags = (literal.group(1), literal.group(2)) if literal else (raw, "gi")
        source = js_trim(source)
        lookbehind = "(?<!;base64,[A-Za-z0-9+/=]*)"
        has_lookbehind = lookbehind in source
        regex = js_regex(source.replace(lookbehind, ""), flags)
        out.append(RedactPattern(
            regex, raw in shell,
            raw.startswith((_BASE64_BOUNDARY, _IDENT_BOUNDARY)) or raw in (_TELEGRAM_BOT,
                                                                           _TELEGRAM),
            has_lookbehind, tuple(frozenset(group) for group in triggers)))
    return tuple(out)


@functools.cache
def _all_triggers() -> tuple[str, ...]:
    patterns = default_redact_patterns()
    return tuple(sorted({t for p in patterns for group in p.triggers for t in group}))


def present_triggers(text: str) -> frozenset[str]:
    lowered = text.lower()
    return frozenset(t for t in _all_triggers() if t in lowered)


@functools.cache
def _trigger_plan() -> tuple[dict[str, tuple[int, ...]], tuple[int, ...]]:
    """Patterns with one trigger group, indexed by trigger; the others, checked one by one."""
    single: dict[str, list[int]] = {}
    multi: list[int] = []
    for index, pattern in enumerate(default_redact_patterns()):
        if len(pattern.triggers) == 1:
            for trigger in pattern.triggers[0]:
                single.setdefault(trigger, []).append(index)
        else:
            multi.append(index)
    return {k: tuple(v) for k, v in single.items()}, tuple(multi)


def candidate_patterns(present: frozenset[str], after: int = -1) -> list[int]:
    """Indices (> ``after``, ascending) of the default patterns that may match."""
    single, multi = _trigger_plan()
    patterns = default_redact_patterns()
    found = {i for t in present for i in single.get(t, ())}
    found.update(i for i in multi if patterns[i].may_match(present))
    return sorted(i for i in found if i > after)


@functools.cache
def form_regexes() -> dict[str, re.Pattern[str]]:
    delim = r"""[\s:({\[,="'`"""
    return {
        "obfuscation": js_regex(f"[{_INVISIBLE}+]", "gu"),
        "separator": js_regex(r"[\p{C}\p{Z}\u115F\u1160\u3164\uFFA0+]", "gu"),
        "percent": js_regex(r"%[0-9A-Fa-f]{2}", "u"),
        "body": js_regex(f"^{_FORM_PAIR}(?:&{_FORM_PAIR})+$", "u"),
        "body_substring": js_regex(f"(^|{delim}])({_FORM_PAIR}(?:&{_FORM_PAIR})+)", "gu"),
        "encoded_pair": js_regex(f"(^|{delim}&])({_FORM_KEY})=({_FORM_VALUE})", "gu"),
        "context_pair": js_regex(
            r"(\b(?:body|form(?:[-_\s]?body)?)\s*[:=]\s*([\"'\x60]?))"
            f"({_FORM_KEY})=({_FORM_VALUE})" r"([\"'\x60]?)", "giu"),
        "url_pair": js_regex(f"([?&])({_FORM_KEY})=([^&#\\s<>]*)", "gu"),
    }


_HANGUL_FILLERS = ("\u115f", "\u1160", "\u3164", "\uffa0")


def has_invisible(text: str) -> bool:
    """Does ``text`` contain a form-key obfuscation character (``[\\p{C}...+]``)?

    Those are ``+``, the Hangul fillers and characters Python calls non-printable (other than
    the line/paragraph separators), so printable text skips the large character class.
    """
    if text.isprintable() and "+" not in text and not any(f in text for f in _HANGUL_FILLERS):
        return False
    return bool(form_regexes()["obfuscation"].search(text))
