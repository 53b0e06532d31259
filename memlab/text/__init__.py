"""Text processing: tokenizers and stop-word lists for the lexical rankers.

See :mod:`memlab.text.tokenize` for what each tokenizer does, and :mod:`memlab.text.keywords`
for OpenClaw's keyword extraction (its keyword fallback).
"""

from memlab.text.keywords import extract_keywords, fallback_terms
from memlab.text.stopwords import LUCENE_ENGLISH_STOP_WORDS, STOPWORD_LISTS, get_stopwords
from memlab.text.tokenize import (
    CJK_MODES,
    THAI_MODES,
    Tokenizer,
    openclaw_fts_tokens,
    openclaw_mmr_tokens,
)

__all__ = [
    "CJK_MODES",
    "LUCENE_ENGLISH_STOP_WORDS",
    "STOPWORD_LISTS",
    "THAI_MODES",
    "Tokenizer",
    "extract_keywords",
    "fallback_terms",
    "get_stopwords",
    "openclaw_fts_tokens",
    "openclaw_mmr_tokens",
]
