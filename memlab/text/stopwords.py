"""Stop-word lists for :class:`memlab.text.Tokenizer`.

Named lists:

``"en"``
    scikit-learn's ``ENGLISH_STOP_WORDS`` (318 words, the Glasgow IR group list).
``"en-lucene"``
    The 33-word English stop set of Lucene's ``EnglishAnalyzer`` (also Elasticsearch's
    ``_english_`` default and the ``"en"`` list of bm25s), for comparisons with those systems.

OpenClaw's builtin FTS5 search removes no stop words (its keyword *fallback* does; see the
reference, section 4 step 4), so the default of :class:`~memlab.text.Tokenizer` is ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

LUCENE_ENGLISH_STOP_WORDS: frozenset[str] = frozenset(
    """a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with""".split()
)


def _sklearn_english() -> frozenset[str]:
    # imported on first use: scikit-learn pulls in scipy.stats and pandas (seconds of start-up
    # for every command that merely imports memlab.text)
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


class _StopwordLists(Mapping[str, frozenset[str]]):
    """Named stop-word lists, each built on first use."""

    def __init__(self, loaders: dict[str, Callable[[], frozenset[str]]]):
        self._loaders = loaders
        self._lists: dict[str, frozenset[str]] = {}

    def __getitem__(self, name: str) -> frozenset[str]:
        if name not in self._lists:
            self._lists[name] = self._loaders[name]()
        return self._lists[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


STOPWORD_LISTS: Mapping[str, frozenset[str]] = _StopwordLists({
    "en": _sklearn_english,
    "en-lucene": lambda: LUCENE_ENGLISH_STOP_WORDS,
})


def get_stopwords(stopwords: None | str | Iterable[str]) -> frozenset[str]:
    """Resolve a ``stopwords`` parameter into a set of (lower-case) words.

    ``None`` → empty set; a name from :data:`STOPWORD_LISTS`; or any iterable of words.

    >>> sorted(get_stopwords(["The", "a"]))
    ['a', 'the']
    >>> "the" in get_stopwords("en")
    True
    """
    if stopwords is None:
        return frozenset()
    if isinstance(stopwords, str):
        try:
            return STOPWORD_LISTS[stopwords]
        except KeyError:
            raise ValueError(
                f"unknown stop-word list {stopwords!r}; use one of {sorted(STOPWORD_LISTS)}, "
                "None, or pass your own iterable of words"
            ) from None
    try:
        words = list(stopwords)
    except TypeError:
        raise TypeError(
            f"stopwords must be None, a list name such as 'en', or an iterable of strings "
            f"(got {type(stopwords).__name__})"
        ) from None
    bad = [w for w in words if not isinstance(w, str)]
    if bad:
        raise TypeError(f"stopwords must contain strings only (got {bad[:3]!r})")
    return frozenset(w.lower() for w in words)
