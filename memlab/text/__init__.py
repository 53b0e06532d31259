"""Text processing: tokenizers and stop-word lists for the lexical rankers.

See :mod:`memlab.text.tokenize` for what each tokenizer does, and :mod:`memlab.text.keywords`
for OpenClaw's keyword extraction (its keyword fallback). The names below are loaded on first
use, so importing a light submodule (``memlab.text.js``, as the config loader does) does not
import the tokenizers (scikit-learn, and with it scipy and pandas).

>>> from memlab.text import Tokenizer
>>> Tokenizer()("Deploy keys")
['deploy', 'keys']
"""

from __future__ import annotations

from memlab.lazy import lazy_exports

_EXPORTS = {
    "extract_keywords": "memlab.text.keywords",
    "fallback_terms": "memlab.text.keywords",
    "LUCENE_ENGLISH_STOP_WORDS": "memlab.text.stopwords",
    "STOPWORD_LISTS": "memlab.text.stopwords",
    "get_stopwords": "memlab.text.stopwords",
    "CJK_MODES": "memlab.text.tokenize",
    "THAI_MODES": "memlab.text.tokenize",
    "Tokenizer": "memlab.text.tokenize",
    "openclaw_fts_tokens": "memlab.text.tokenize",
    "openclaw_mmr_tokens": "memlab.text.tokenize",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
