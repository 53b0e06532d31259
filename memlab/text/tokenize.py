"""Tokenizers: a configurable one for the research rankers, and OpenClaw's exact ones.

:class:`Tokenizer` turns text into index terms for :class:`memlab.stages.lexical.BM25` and
friends. It splits text into Unicode word runs (Python's ``\\w+``, which for Python 3.11's
Unicode 14 is exactly ``[\\p{L}\\p{N}_]+``) and treats two script families specially, because
they do not separate words with spaces:

* **CJK** (Han, kana, Hangul, Bopomofo): ``cjk="bigram"`` (default) turns each run into its
  characters plus every pair of adjacent characters (what OpenClaw's keyword extraction does
  for ``unicode61`` and what Lucene's CJK analyzer does); ``cjk="jieba"`` segments Han runs
  with jieba (kana/Hangul parts of a run still get bigrams); ``cjk="none"`` keeps a whole
  run as one token (SQLite ``unicode61`` behaviour, which is why OpenClaw cannot find CJK
  substrings, issue #20730).
* **Thai**: ``thai="pythainlp"`` (default) segments Thai runs into words with pythainlp's
  ``newmm`` engine; ``thai="none"`` keeps a Thai run as one token. A Thai run includes the
  vowel and tone marks, which ``\\w`` alone would split on.

Mixed runs such as ``"API接口"`` are split by script (``api`` + CJK handling of ``接口``).

The module also has OpenClaw's own tokenisers, for stages that must reproduce it exactly:
:func:`openclaw_fts_tokens` (the FTS query / lexical boost tokens, reference §4 step 4) and
:func:`openclaw_mmr_tokens` (the MMR Jaccard token set, reference §6).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

from memlab.text.params import Params
from memlab.text.stopwords import STOPWORD_LISTS, get_stopwords

__all__ = [
    "CJK_MODES",
    "THAI_MODES",
    "Tokenizer",
    "openclaw_fts_tokens",
    "openclaw_mmr_tokens",
]

CJK_MODES = ("bigram", "jieba", "none")
THAI_MODES = ("pythainlp", "none")

# Han ideographs and ideographic letters/numbers (々〆〇, Hangzhou numerals, …).
_HAN = (
    "\u3005-\u3007\u3021-\u3029\u3038-\u303c\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0003ffff"
)
# Other CJK-family letters: Hangul jamo, kana (with the combining voicing marks), Bopomofo,
# Hangul syllables, half-width kana/Hangul, kana supplement. Punctuation in these blocks
# (・ U+30FB, ゠ U+30A0, ゛゜ U+309B-C) is left out, so it separates tokens.
_CJK_OTHER = (
    "\u1100-\u11ff\u3031-\u3035\u3041-\u3096\u3099\u309a\u309d-\u309f\u30a1-\u30fa"
    "\u30fc-\u30ff\u3105-\u312f\u3131-\u318e\u31a0-\u31bf\u31f0-\u31ff\ua960-\ua97c"
    "\uac00-\ud7a3\ud7b0-\ud7fb\uff66-\uff9f\uffa0-\uffdc\U0001b000-\U0001b16f"
)
_CJK = _HAN + _CJK_OTHER
# Thai letters, vowels, tone marks and digits (not ฿, ๏, ๚, ๛).
_THAI = "\u0e01-\u0e3a\u0e40-\u0e4e\u0e50-\u0e59"

_WORD_RE = re.compile(r"\w+")
_ASCII_WORD_RE = re.compile(r"[A-Za-z0-9_]+")
_SPECIAL_RE = re.compile(f"[{_CJK}{_THAI}]")
_SCRIPT_RUN_RE = re.compile(f"([{_CJK}]+)|([{_THAI}]+)|([^\\W{_CJK}{_THAI}]+)")
_HAN_SPLIT_RE = re.compile(f"([{_HAN}]+)|([^{_HAN}]+)")
_HAS_WORD_RE = re.compile(r"\w")


_STEM_CACHE_MAX = 1_000_000


class _State(NamedTuple):
    lowercase: bool
    stop: frozenset[str]
    stemmer: Any
    cjk: str
    thai: str
    stem_cache: dict[str, str]


class Tokenizer(Params):
    """Text → list of index terms. Callable, picklable, with scikit-learn style parameters.

    Parameters
    ----------
    lowercase : bool, default True
        Lower-case every token (after splitting, so e.g. Turkish dotted İ cannot split a word).
    stopwords : None, str or iterable of str, default None
        Words to drop (compared after lower-casing). ``"en"`` is scikit-learn's English
        list, ``"en-lucene"`` Lucene's 33-word list (see :mod:`memlab.text.stopwords`).
    stemmer : None or str, default None
        A Snowball algorithm name known to PyStemmer (``"english"``, ``"porter"``,
        ``"french"``, …). Applied after stop-word removal.
    cjk : {"bigram", "jieba", "none"}, default "bigram"
        How CJK runs become tokens (see the module docstring). ``"jieba"`` needs the
        ``jieba`` package.
    thai : {"pythainlp", "none"}, default "pythainlp"
        How Thai runs become tokens. ``"pythainlp"`` imports pythainlp on the first Thai run.

    >>> Tokenizer()("Deploy the API接口 now")
    ['deploy', 'the', 'api', '接', '口', '接口', 'now']
    >>> Tokenizer(stopwords="en", stemmer="english")("The keys were rotated")
    ['key', 'rotat']

    State derived from the parameters (stop-word set, stemmer) is built on first use and
    dropped whenever a parameter is (re)assigned; mutating a stop-word list in place is not
    detected, so assign a new one instead.
    """

    def __init__(
        self,
        lowercase: bool = True,
        stopwords: None | str | Iterable[str] = None,
        stemmer: str | None = None,
        cjk: str = "bigram",
        thai: str = "pythainlp",
    ):
        self.lowercase = lowercase
        self.stopwords = stopwords
        self.stemmer = stemmer
        self.cjk = cjk
        self.thai = thai

    # -- derived state -----------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("_"):
            self.__dict__.pop("_state", None)
        super().__setattr__(name, value)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())
        state.pop("_state", None)
        return state

    def _get_state(self) -> _State:
        state = self.__dict__.get("_state")
        if state is None:
            state = self._build_state()
            self.__dict__["_state"] = state
        return state

    def _build_state(self) -> _State:
        if not isinstance(self.lowercase, bool):
            raise TypeError(f"lowercase must be True or False (got {self.lowercase!r})")
        stop = get_stopwords(self.stopwords)
        stemmer = None
        if self.stemmer is not None:
            import Stemmer  # PyStemmer

            names = Stemmer.algorithms()
            if not isinstance(self.stemmer, str) or self.stemmer.lower() not in names:
                raise ValueError(
                    f"stemmer must be None or a Snowball algorithm name, one of {names} "
                    f"(got {self.stemmer!r})"
                )
            stemmer = Stemmer.Stemmer(self.stemmer.lower())
        if self.cjk not in CJK_MODES:
            raise ValueError(f"cjk must be one of {CJK_MODES} (got {self.cjk!r})")
        if self.thai not in THAI_MODES:
            raise ValueError(f"thai must be one of {THAI_MODES} (got {self.thai!r})")
        if self.cjk == "jieba":
            _jieba()  # fail early with a clear message when it is missing
        return _State(self.lowercase, stop, stemmer, self.cjk, self.thai, {})

    # -- tokenising --------------------------------------------------------------------------

    def __call__(self, text: str) -> list[str]:
        """Tokenise one text."""
        st = self._get_state()
        if not text:
            return []
        if not isinstance(text, str):
            raise TypeError(f"Tokenizer expects a str (got {type(text).__name__})")
        if text.isascii():
            tokens = _ASCII_WORD_RE.findall(text.lower() if st.lowercase else text)
        else:
            if _SPECIAL_RE.search(text) is None:
                tokens = _WORD_RE.findall(text)
            else:
                tokens = _split_scripts(text, st)
            if st.lowercase:
                tokens = [t.lower() for t in tokens]
        if st.stop:
            stop = st.stop
            if st.lowercase:
                tokens = [t for t in tokens if t not in stop]
            else:
                tokens = [t for t in tokens if t.lower() not in stop]
        if st.stemmer is not None and tokens:
            # memoised stemming: PyStemmer's own cache is slower than a dict lookup
            cache = st.stem_cache
            missing = [t for t in set(tokens) if t not in cache]
            if missing:
                if len(cache) + len(missing) > _STEM_CACHE_MAX:
                    cache.clear()
                    missing = list(set(tokens))
                cache.update(zip(missing, st.stemmer.stemWords(missing), strict=True))
            tokens = list(map(cache.__getitem__, tokens))
        return tokens

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        """Tokenise every text of ``texts``."""
        return [self(t) for t in texts]

    @staticmethod
    def available_stopwords() -> list[str]:
        """Names accepted by ``stopwords``."""
        return sorted(STOPWORD_LISTS)


def _split_scripts(text: str, st: _State) -> list[str]:
    out: list[str] = []
    for cjk_run, thai_run, word in _SCRIPT_RUN_RE.findall(text):
        if word:
            out.append(word)
        elif cjk_run:
            if st.cjk == "bigram":
                out.extend(_bigrams(cjk_run))
            elif st.cjk == "jieba":
                out.extend(_jieba_tokens(cjk_run))
            else:
                out.append(cjk_run)
        elif st.thai == "pythainlp":
            out.extend(_thai_tokens(thai_run))
        else:
            out.append(thai_run)
    return out


def _bigrams(run: str) -> list[str]:
    """Characters of ``run`` plus its adjacent-character bigrams."""
    if len(run) == 1:
        return [run]
    return [*run, *(run[i : i + 2] for i in range(len(run) - 1))]


def _jieba():
    try:
        import jieba
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Tokenizer(cjk='jieba') needs the jieba package: pip install jieba "
            "(or use cjk='bigram', which needs nothing)"
        ) from None
    jieba.setLogLevel(logging.WARNING)
    return jieba


def _jieba_tokens(run: str) -> list[str]:
    jieba = _jieba()
    out: list[str] = []
    for han, other in _HAN_SPLIT_RE.findall(run):
        if han:
            out.extend(w for w in jieba.lcut(han) if _HAS_WORD_RE.search(w))
        else:
            out.extend(_bigrams(other))
    return out


_THAI_WORD_TOKENIZE = None


def _thai_tokens(run: str) -> list[str]:
    global _THAI_WORD_TOKENIZE
    if _THAI_WORD_TOKENIZE is None:
        try:
            from pythainlp.tokenize import word_tokenize
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError(
                "Tokenizer(thai='pythainlp') needs the pythainlp package: pip install pythainlp "
                "(or use thai='none' to keep Thai runs whole)"
            ) from None
        _THAI_WORD_TOKENIZE = word_tokenize
    words = _THAI_WORD_TOKENIZE(run, engine="newmm", keep_whitespace=False)
    return [w for w in words if _HAS_WORD_RE.search(w)]


# -- OpenClaw's own tokenisers -------------------------------------------------------------


def openclaw_fts_tokens(text: str, lower: bool = True) -> list[str]:
    """OpenClaw's FTS query tokens: maximal ``[\\p{L}\\p{N}_]+`` runs, lower-cased.

    These are the tokens of ``buildFtsQuery`` (not lower-cased there; pass ``lower=False``) and
    of the lexical boost (``normalizeSearchTokens``, lower-cased after matching). Python's
    ``\\w`` equals ``[\\p{L}\\p{N}_]`` for the Unicode version Python 3.11 ships (14.0);
    Node 20 uses a newer Unicode, so characters assigned after 14.0 may differ.

    >>> openclaw_fts_tokens("Deploy-key: ROTATE_now, 接口!")
    ['deploy', 'key', 'rotate_now', '接口']
    """
    text = text or ""
    if lower and text.isascii():
        return _ASCII_WORD_RE.findall(text.lower())
    tokens = _WORD_RE.findall(text)
    return [t.lower() for t in tokens] if lower else tokens


# The MMR tokenizer's CJK set (extensions/memory-core/src/memory/tokenize.ts, CJK_RE):
# hiragana, katakana (whole blocks, punctuation included), CJK ext A, unified ideographs,
# Hangul syllables and Hangul jamo.
_MMR_CJK_RUN_RE = re.compile("[\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
                             "\uac00-\ud7af\u1100-\u11ff]+")
_MMR_ASCII_RE = re.compile(r"[a-z0-9_]+")


def openclaw_mmr_tokens(text: str) -> set[str]:
    """OpenClaw's MMR token set (reference §6): lower-case ASCII ``[a-z0-9_]+`` runs, every
    CJK-family character, and bigrams of CJK characters adjacent in the text.

    Non-Latin, non-CJK text (Cyrillic, Thai, …) contributes nothing, as in OpenClaw.

    >>> sorted(openclaw_mmr_tokens("我喜欢hello你好"))
    ['hello', '你', '你好', '喜', '喜欢', '好', '我', '我喜', '欢']
    """
    lower = (text or "").lower()
    tokens = set(_MMR_ASCII_RE.findall(lower))
    for run in _MMR_CJK_RUN_RE.findall(lower):
        tokens.update(run)
        tokens.update(run[i : i + 2] for i in range(len(run) - 1))
    return tokens
