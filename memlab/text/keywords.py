"""OpenClaw's keyword extraction for its keyword fallback (reference §4 step 4 and §3.3).

OpenClaw 2026.7 sends the user's query to SQLite FTS5 as one AND query. When that finds
nothing, ``searchKeywordWithFallback`` searches again once per *keyword* of the query (at most
six) and merges the hits (see :class:`memlab.stages.lexical.BM25`'s ``fallback``). The
keywords come from ``extractKeywords`` (``packages/memory-host-sdk/src/host/query-expansion.ts``),
which this module reimplements:

1. The query is trimmed (JavaScript ``trim()``), lower-cased and split into *segments* on runs
   of whitespace and Unicode punctuation (``[\\s\\p{P}]+``; ``_`` and ``-`` are punctuation).
2. Each segment becomes tokens, depending on the scripts it contains (first match wins):

   * **kana** (U+3040–U+30FF) — Japanese: the segment's ASCII ``[a-z0-9_]+`` runs, katakana
     runs, kanji runs and hiragana runs of two or more characters, in order; everything else
     (single hiragana, other letters) is dropped. A kanji run is followed by its adjacent
     kanji bigrams with the ``unicode61`` FTS tokenizer, but not with ``trigram``.
   * **Han** (U+4E00–U+9FFF) — Chinese: only the Han characters are kept; ``unicode61`` gives
     every character and then every bigram of neighbouring (kept) characters, ``trigram``
     the kept characters as one block.
   * **Hangul** (syllables U+AC00–U+D7AF, jamo U+3131–U+3163) — Korean: the segment itself
     (unless it or its particle-stripped stem is a Korean stop word), then the stem with one
     trailing particle removed (longest particle first, :data:`KO_TRAILING_PARTICLES`) when
     it is not a stop word and is either ≥ 2 UTF-16 units with a Hangul syllable, or ASCII
     ``[a-z0-9_]+``.
   * anything else: the segment as one token.

3. A token is dropped when it is a stop word in any language (:data:`STOP_WORDS`, the union
   of the English, Spanish, Portuguese, Arabic, Chinese, Korean and Japanese lists), ASCII
   letters only and shorter than 3, ASCII digits only, or made only of punctuation/symbols
   (``\\p{P}``/``\\p{S}``, e.g. an emoji); duplicates keep their first occurrence.

The manager then skips a keyword equal to the whole (trimmed, *not* lower-cased) query and
keeps the first six: :func:`fallback_terms`.

>>> extract_keywords("What did we decide about the deploy window?")
['decide', 'deploy', 'window']
>>> extract_keywords("之前讨论的方案")
['之', '讨', '论', '方', '案', '前讨', '讨论', '论的', '的方', '方案']
>>> extract_keywords("之前讨论的方案", fts_tokenizer="trigram")
['之前讨论的方案']
>>> extract_keywords("配置ファイルの場所は？"), extract_keywords("서버에서 배포를 했나요")
(['配置', 'ファイル', '場所'], ['서버에서', '서버', '배포를', '배포', '했나요'])
>>> fallback_terms("Deploy"), fallback_terms("deploy")
(['deploy'], [])

Character classes follow Python 3.11's Unicode 14.0 database; Node 20 (OpenClaw) uses a newer
Unicode, so punctuation and symbols assigned after 14.0 (new emoji, for instance) may be
classified differently. Otherwise the results equal those of the real ``extractKeywords`` and
``resolveKeywordFallbackTerms`` of OpenClaw 2026.7.35 on 18,000 test queries (a sample is
hard-coded in ``tests/text/test_keywords.py``).
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from itertools import groupby
from typing import Literal

from memlab.text.js import JS_WHITESPACE, utf16_length

__all__ = [
    "FALLBACK_TERM_LIMIT",
    "MAX_QUERY_TERMS",
    "QueryTruncated",
    "bound_query_terms",
    "FTS_TOKENIZERS",
    "KO_TRAILING_PARTICLES",
    "STOP_WORDS",
    "STOP_WORDS_AR",
    "STOP_WORDS_EN",
    "STOP_WORDS_ES",
    "STOP_WORDS_JA",
    "STOP_WORDS_KO",
    "STOP_WORDS_PT",
    "STOP_WORDS_ZH",
    "extract_keywords",
    "fallback_terms",
]

FTS_TOKENIZERS = ("unicode61", "trigram")
#: ``KEYWORD_FALLBACK_SEARCH_TERM_LIMIT``: keyword searches per fallback.
FALLBACK_TERM_LIMIT = 6


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Stop-word lists of OpenClaw 2026.7.35 (query-expansion.ts), as sets.
STOP_WORDS_EN = _words("""
    a an the this that these those i me my we our you your he she it they them is are was
    were be been being have has had do does did will would could should can may might in on
    at to for of with by from about into through during before after above below between
    under over and or but if then because as while when where what which who how why
    yesterday today tomorrow earlier later recently ago just now thing things stuff
    something anything everything nothing please help find show get tell give
""")
STOP_WORDS_ES = _words("""
    el la los las un una unos unas este esta ese esa yo me mi nosotros nosotras tu tus usted
    ustedes ellos ellas de del a en con por para sobre entre y o pero si porque como es son
    fue fueron ser estar haber tener hacer ayer hoy mañana antes despues después ahora
    recientemente que qué cómo cuando cuándo donde dónde porqué favor ayuda
""")
STOP_WORDS_PT = _words("""
    o a os as um uma uns umas este esta esse essa eu me meu minha nos nós você vocês ele ela
    eles elas de do da em com por para sobre entre e ou mas se porque como é são foi foram
    ser estar ter fazer ontem hoje amanhã antes depois agora recentemente que quê quando
    onde porquê favor ajuda
""")
# OpenClaw's list also holds the two-word entry "من فضلك" ("please"), which can never equal a
# token (tokens contain no whitespace); it is kept for fidelity.
STOP_WORDS_AR = _words("""
    ال و أو لكن ثم بل أنا نحن هو هي هم هذا هذه ذلك تلك هنا هناك من إلى الى في على عن مع بين
    ل ب ك كان كانت يكون تكون صار أصبح يمكن ممكن بالأمس امس اليوم غدا الآن قبل بعد مؤخرا
    لماذا كيف ماذا متى أين هل فضلا ساعد
""") | {"من فضلك"}
STOP_WORDS_ZH = _words("""
    我 我们 你 你们 他 她 它 他们 这 那 这个 那个 这些 那些 的 了 着 过 得 地
    吗 呢 吧 啊 呀 嘛 啦 是 有 在 被 把 给 让 用 到 去 来 做 说 看 找 想 要
    能 会 可以 和 与 或 但 但是 因为 所以 如果 虽然 而 也 都 就 还 又 再 才 只
    之前 以前 之后 以后 刚才 现在 昨天 今天 明天 最近 东西 事情 事 什么 哪个
    哪些 怎么 为什么 多少 请 帮 帮忙 告诉
""")
STOP_WORDS_KO = _words("""
    은 는 이 가 을 를 의 에 에서 로 으로 와 과 도 만 까지 부터 한테 에게 께
    처럼 같이 보다 마다 밖에 대로 나 나는 내가 나를 너 우리 저 저희 그 그녀
    그들 이것 저것 그것 여기 저기 거기 있다 없다 하다 되다 이다 아니다 주다
    오다 가다 것 거 등 수 때 곳 중 분 잘 더 또 매우 정말 아주 많이 너무 좀
    그리고 하지만 그래서 그런데 그러나 또는 그러면 왜 어떻게 뭐 언제 어디
    누구 무엇 어떤 어제 오늘 내일 최근 지금 아까 나중 전에 제발 부탁
""")
STOP_WORDS_JA = _words("""
    これ それ あれ この その あの ここ そこ あそこ する した して です ます いる
    ある なる できる の こと もの ため そして しかし また でも から まで より
    だけ なぜ どう 何 いつ どこ 誰 どれ 昨日 今日 明日 最近 今 さっき 前 後
""")
#: Every language's stop words (``isQueryStopWordToken`` tests them all, whatever the query's
#: language).
STOP_WORDS: frozenset[str] = (STOP_WORDS_EN | STOP_WORDS_ES | STOP_WORDS_PT | STOP_WORDS_AR
                              | STOP_WORDS_ZH | STOP_WORDS_KO | STOP_WORDS_JA)

#: Korean particles stripped from the end of a segment, longest first (OpenClaw's order
#: within a length).
KO_TRAILING_PARTICLES: tuple[str, ...] = tuple(sorted("""
    에서 으로 에게 한테 처럼 같이 보다 까지 부터 마다 밖에 대로
    은 는 이 가 을 를 의 에 로 와 과 도 만
""".split(), key=len, reverse=True))

_KANA_RE = re.compile("[\u3040-\u30ff]")
_HAN_RE = re.compile("[\u4e00-\u9fff]")
_HAN_RUN_RE = re.compile("[\u4e00-\u9fff]+")
_HANGUL_RE = re.compile("[\uac00-\ud7af\u3131-\u3163]")
_HANGUL_SYLLABLE_RE = re.compile("[\uac00-\ud7af]")
_JA_PART_RE = re.compile("[a-z0-9_]+|[\u30a0-\u30ff]+|[\u4e00-\u9fff]+|[\u3040-\u309f]{2,}")
# no re.IGNORECASE: in Python it would also match "ſ" (U+017F) and "K" (U+212A)
_ASCII_WORD_RE = re.compile("[a-zA-Z0-9_]+")
_ASCII_LETTERS_RE = re.compile("[a-zA-Z]+")
_ASCII_DIGITS_RE = re.compile("[0-9]+")
# ASCII members of [\s\p{P}] (JavaScript): whitespace and the punctuation of category P*.
_ASCII_SEPARATORS = "\t\n\v\f\r !\"#%&'()*,-./:;?@[\\]_{}"
_ASCII_SPLIT_RE = re.compile(f"[{re.escape(_ASCII_SEPARATORS)}]+")
_JS_WHITESPACE_SET = frozenset(JS_WHITESPACE)


def _is_separator(char: str) -> bool:
    """A member of JavaScript's ``[\\s\\p{P}]`` (whitespace or Unicode punctuation)."""
    return char in _JS_WHITESPACE_SET or unicodedata.category(char)[0] == "P"


def _segments(text: str) -> list[str]:
    """``normalizeLowercaseStringOrEmpty(text).split(/[\\s\\p{P}]+/u).filter(Boolean)``."""
    text = text.strip(JS_WHITESPACE).lower()
    if text.isascii():
        return [s for s in _ASCII_SPLIT_RE.split(text) if s]
    return ["".join(run) for sep, run in groupby(text, _is_separator) if not sep]


def _strip_korean_particle(segment: str) -> str | None:
    n = utf16_length(segment)
    for particle in KO_TRAILING_PARTICLES:
        if n > len(particle) and segment.endswith(particle):
            return segment[: -len(particle)]
    return None


def _useful_korean_stem(stem: str) -> bool:
    if _HANGUL_SYLLABLE_RE.search(stem):
        return utf16_length(stem) >= 2
    return _ASCII_WORD_RE.fullmatch(stem) is not None


def _bigrams(chars: str | list[str]) -> list[str]:
    return [chars[i] + chars[i + 1] for i in range(len(chars) - 1)]


def _tokens(text: str, trigram: bool) -> list[str]:
    """OpenClaw's ``tokenize`` of query-expansion.ts (before stop-word/validity filtering)."""
    tokens: list[str] = []
    for segment in _segments(text):
        if segment.isascii():
            tokens.append(segment)
        elif _KANA_RE.search(segment):
            for part in _JA_PART_RE.findall(segment):
                tokens.append(part)
                if not trigram and _HAN_RUN_RE.fullmatch(part):
                    tokens.extend(_bigrams(part))
        elif _HAN_RE.search(segment):
            chars = [c for c in segment if "\u4e00" <= c <= "\u9fff"]
            if trigram:
                tokens.append("".join(chars))  # never empty: the segment has a Han character
            else:
                tokens.extend(chars)
                tokens.extend(_bigrams(chars))
        elif _HANGUL_RE.search(segment):
            stem = _strip_korean_particle(segment)
            if segment not in STOP_WORDS_KO and (stem is None or stem not in STOP_WORDS_KO):
                tokens.append(segment)
            if stem and stem not in STOP_WORDS_KO and _useful_korean_stem(stem):
                tokens.append(stem)
        else:
            tokens.append(segment)
    return tokens


def _is_valid_keyword(token: str) -> bool:
    """``isValidKeyword``: not empty, not a < 3-letter ASCII word, not ASCII digits, not only
    punctuation/symbols."""
    if not token:
        return False
    if token.isascii():
        if _ASCII_LETTERS_RE.fullmatch(token):
            return len(token) >= 3
        if _ASCII_DIGITS_RE.fullmatch(token):
            return False
    return not all(unicodedata.category(c)[0] in "PS" for c in token)


def _check_tokenizer(fts_tokenizer: str) -> None:
    if fts_tokenizer not in FTS_TOKENIZERS:
        raise ValueError(f"fts_tokenizer must be 'unicode61' or 'trigram' "
                         f"(got {fts_tokenizer!r})")


def extract_keywords(query: str,
                     fts_tokenizer: Literal["unicode61", "trigram"] = "unicode61") -> list[str]:
    """OpenClaw's ``extractKeywords(query, {ftsTokenizer})``: the query's keywords, lower-cased,
    in order of first occurrence (rules in the module docstring).

    ``fts_tokenizer`` is ``store.fts.tokenizer``; it only changes how Han runs are split.

    >>> extract_keywords("That thing we discussed about the API")
    ['discussed', 'api']
    >>> extract_keywords("¿Qué decidimos sobre la migración?")
    ['decidimos', 'migración']
    """
    _check_tokenizer(fts_tokenizer)
    keywords: list[str] = []
    seen: set[str] = set()
    for token in _tokens(query or "", fts_tokenizer == "trigram"):
        if token in STOP_WORDS or token in seen or not _is_valid_keyword(token):
            continue
        seen.add(token)
        keywords.append(token)
    return keywords


def fallback_terms(query: str, fts_tokenizer: Literal["unicode61", "trigram"] = "unicode61",
                   limit: int = FALLBACK_TERM_LIMIT) -> list[str]:
    """The keywords OpenClaw searches one by one when the full query finds nothing
    (``resolveKeywordFallbackTerms``).

    The manager passes the query trimmed (JavaScript ``trim()``) but with its case; a keyword
    equal to that string is skipped (searching it again would repeat the full query), then the
    first ``limit`` keywords are kept.

    >>> fallback_terms("  what did we decide about the deploy window?  ")
    ['decide', 'deploy', 'window']
    >>> fallback_terms(" window "), fallback_terms("Window")
    ([], ['window'])
    """
    cleaned = (query or "").strip(JS_WHITESPACE)
    terms = [t for t in extract_keywords(cleaned, fts_tokenizer) if t != cleaned]
    return terms[: max(int(limit), 0)]


#: Most terms one keyword query may send to SQLite (each matching phrase costs FTS5's
#: ``bm25()`` work proportional to all the others: 43,000 copies of a word took > 400 s).
MAX_QUERY_TERMS = 128


class QueryTruncated(UserWarning):
    """A query had more terms than :data:`MAX_QUERY_TERMS`; only part of it was searched."""


def bound_query_terms(terms: list[str], limit: int = MAX_QUERY_TERMS) -> list[str]:
    """``terms`` unchanged when there are at most ``limit`` (OpenClaw's exact query, so
    scores keep parity); otherwise deduplicated (first occurrence kept) and cut to ``limit``,
    with a :class:`QueryTruncated` warning saying so.

    >>> bound_query_terms(["a", "b", "a"])
    ['a', 'b', 'a']
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     bound_query_terms(["x"] * 500 + ["y"], limit=4), str(w[0].message)[:40]
    (['x', 'y'], 'memlab: the query has 501 terms (2 disti')
    """
    if len(terms) <= limit:
        return terms
    distinct = list(dict.fromkeys(terms))
    kept = distinct[:limit]
    warnings.warn(f"memlab: the query has {len(terms)} terms ({len(distinct)} distinct); "
                  f"searching its first {len(kept)} distinct terms (at most {limit})",
                  QueryTruncated, stacklevel=3)
    return kept
