"""memlab.text: the research Tokenizer and OpenClaw's own tokenisers."""

from __future__ import annotations

import pickle
import random
import time

import pytest
from sklearn.base import clone

from memlab.text import (
    LUCENE_ENGLISH_STOP_WORDS,
    Tokenizer,
    get_stopwords,
    openclaw_fts_tokens,
    openclaw_mmr_tokens,
)

# -- base splitting and lower-casing ---------------------------------------------------------


def test_default_splits_unicode_word_runs_and_lowercases():
    tok = Tokenizer()
    assert tok("Deploy-Key: ROTATE_now, v2.1!") == ["deploy", "key", "rotate_now", "v2", "1"]
    # non-ASCII letters and digits are word characters; punctuation is not
    assert tok("Café naïve Straße — ½ ٣") == ["café", "naïve", "straße", "½", "٣"]


def test_lowercase_false_keeps_case():
    assert Tokenizer(lowercase=False)("Deploy KEY") == ["Deploy", "KEY"]
    assert Tokenizer(lowercase=False)("Ünïcode Café") == ["Ünïcode", "Café"]


def test_lowercasing_happens_after_splitting():
    # "İ".lower() is "i" + U+0307 (a combining mark, not \w): lower-casing first would split
    assert Tokenizer()("İstanbul") == ["i̇stanbul"]


def test_empty_and_punctuation_only():
    tok = Tokenizer(stemmer="english", stopwords="en")
    assert tok("") == []
    assert tok("?!... — ,;") == []
    assert tok.tokenize_many(["", "a b", "!!"]) == [[], ["b"], []]  # "a" is a stop word


def test_non_string_input_is_an_error():
    with pytest.raises(TypeError, match="expects a str"):
        Tokenizer()(42)


# -- stop words and stemming -------------------------------------------------------------------


def test_stopwords_named_lists_and_iterables():
    text = "The key is in the vault with them"
    assert Tokenizer(stopwords="en")(text) == ["key", "vault"]
    assert Tokenizer(stopwords="en-lucene")(text) == ["key", "vault", "them"]
    assert Tokenizer(stopwords=["KEY", "vault"])(text) == ["the", "is", "in", "the", "with",
                                                            "them"]
    assert "them" not in LUCENE_ENGLISH_STOP_WORDS and len(LUCENE_ENGLISH_STOP_WORDS) == 33
    assert "them" in get_stopwords("en")


def test_stopwords_match_case_insensitively_without_lowercasing():
    assert Tokenizer(lowercase=False, stopwords="en")("The Key") == ["Key"]


def test_unknown_stopword_list_is_explained():
    with pytest.raises(ValueError, match="unknown stop-word list 'english'.*'en'"):
        Tokenizer(stopwords="english")("x")


def test_stemming_english_and_other_languages():
    assert Tokenizer(stemmer="english")("Running studies rotated keys") == [
        "run", "studi", "rotat", "key"]
    assert Tokenizer(stemmer="french")("continuellement") == ["continuel"]
    # stop words are removed before stemming ("was" would not be a stop word after stemming)
    assert Tokenizer(stopwords="en", stemmer="english")("it was running") == ["run"]


def test_unknown_stemmer_is_explained():
    with pytest.raises(ValueError, match="stemmer must be None or a Snowball algorithm name"):
        Tokenizer(stemmer="klingon")("x")


def test_stemming_memo_matches_plain_pystemmer():
    import Stemmer

    words = "the quick brown foxes were jumping over lazily sleeping dogs again".split() * 3
    ref = Stemmer.Stemmer("english").stemWords(words)
    tok = Tokenizer(stemmer="english")
    assert tok(" ".join(words)) == ref
    assert tok(" ".join(words)) == ref  # second call served from the memo


# -- CJK -----------------------------------------------------------------------------------------


def test_cjk_bigram_gives_unigrams_and_adjacent_bigrams():
    assert Tokenizer()("部署密钥") == ["部", "署", "密", "钥", "部署", "署密", "密钥"]
    assert Tokenizer()("钥") == ["钥"]


def test_mixed_runs_are_split_by_script():
    assert Tokenizer()("API接口v2") == ["api", "接", "口", "接口", "v2"]
    assert Tokenizer(cjk="none")("API接口v2") == ["api", "接口", "v2"]


def test_cjk_none_keeps_a_run_whole_like_unicode61():
    assert Tokenizer(cjk="none")("部署密钥 在 vault") == ["部署密钥", "在", "vault"]


def test_cjk_punctuation_separates_and_kana_hangul_are_cjk():
    assert Tokenizer()("東京、タワー・ビル") == [
        "東", "京", "東京", "タ", "ワ", "ー", "タワ", "ワー", "ビ", "ル", "ビル"]  # 、 ・ separate
    assert Tokenizer()("한국어") == ["한", "국", "어", "한국", "국어"]


def test_jieba_segments_chinese():
    toks = Tokenizer(cjk="jieba")("我们在部署密钥的时候遇到了问题")
    assert "部署" in toks and "密钥" in toks and "问题" in toks
    assert "署密" not in toks  # no bigrams across jieba word boundaries
    # kana inside a CJK run still gets bigrams; Latin is split off
    toks = Tokenizer(cjk="jieba")("API接口とタワー")
    assert toks[0] == "api" and "接口" in toks and "タワ" in toks


def test_jieba_missing_gives_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "jieba":
            raise ImportError("no jieba")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match=r"pip install jieba.*cjk='bigram'"):
        Tokenizer(cjk="jieba")("部署")


# -- Thai ----------------------------------------------------------------------------------------


def test_thai_is_segmented_into_words():
    toks = Tokenizer()("ฉันชอบกินข้าวผัดที่ร้านนี้")
    assert toks == ["ฉัน", "ชอบ", "กิน", "ข้าวผัด", "ที่", "ร้าน", "นี้"]


def test_thai_none_keeps_runs_whole_including_marks():
    # \w alone would split at the vowel signs ั and ี (Unicode category Mn)
    assert Tokenizer(thai="none")("สวัสดีครับ hello") == ["สวัสดีครับ", "hello"]


def test_thai_next_to_latin_and_cjk():
    toks = Tokenizer()("VPNสวัสดี部署")
    assert toks[0] == "vpn" and "สวัสดี" in toks and "部署" in toks


# -- parameters, repr, pickling --------------------------------------------------------------


def test_get_params_set_params_round_trip_and_clone():
    tok = Tokenizer(stopwords="en", stemmer="english", cjk="jieba", thai="none")
    params = tok.get_params()
    assert params == {"lowercase": True, "stopwords": "en", "stemmer": "english",
                      "cjk": "jieba", "thai": "none"}
    other = Tokenizer().set_params(**params)
    assert other.get_params() == params
    assert clone(tok).get_params() == params


def test_set_params_rebuilds_derived_state():
    tok = Tokenizer()
    assert tok("running keys") == ["running", "keys"]
    tok.set_params(stemmer="english")
    assert tok("running keys") == ["run", "key"]
    tok.stopwords = ["keys"]  # plain assignment too (stop words apply before stemming)
    assert tok("running keys") == ["run"]


def test_repr_is_readable():
    assert repr(Tokenizer()) == "Tokenizer()"
    assert (repr(Tokenizer(stemmer="english", cjk="none"))
            == "Tokenizer(cjk='none', stemmer='english')")


def test_pickle_round_trip_after_use():
    tok = Tokenizer(stopwords="en", stemmer="english")
    before = tok("The rotated keys")
    again = pickle.loads(pickle.dumps(tok))
    assert again.get_params() == tok.get_params()
    assert again("The rotated keys") == before == ["rotat", "key"]


def test_invalid_modes_are_explained():
    with pytest.raises(ValueError, match=r"cjk must be one of \('bigram', 'jieba', 'none'\)"):
        Tokenizer(cjk="trigram")("x")
    with pytest.raises(ValueError, match="thai must be one of"):
        Tokenizer(thai="icu")("x")
    with pytest.raises(TypeError, match="lowercase must be True or False"):
        Tokenizer(lowercase="yes")("x")


def test_tokenizes_5k_docs_of_1_5kb_in_a_few_seconds():
    rng = random.Random(0)
    words = [f"w{i}" for i in range(3000)] + ["running", "keys", "Deploy", "vault", "café"]
    docs = []
    for _ in range(5000):
        doc, size = [], 0
        while size < 1500:
            w = rng.choice(words)
            doc.append(w)
            size += len(w) + 1
        docs.append(" ".join(doc))
    tok = Tokenizer(stopwords="en", stemmer="english")
    start = time.process_time()
    out = tok.tokenize_many(docs)
    elapsed = time.process_time() - start
    assert len(out) == 5000 and all(out)
    assert elapsed < 10, f"tokenising 5k docs took {elapsed:.1f}s of CPU"


# -- OpenClaw's tokenisers (checked against the 2026.7.35 JavaScript) ----------------------


def test_openclaw_fts_tokens():
    assert openclaw_fts_tokens("Deploy-key: ROTATE_now, 接口!") == [
        "deploy", "key", "rotate_now", "接口"]
    assert openclaw_fts_tokens("Deploy KEY", lower=False) == ["Deploy", "KEY"]
    # combining marks are not \p{L}: Thai vowel signs split a word, as in JavaScript
    assert openclaw_fts_tokens("สวัสดี") == ["สว", "สด"]
    assert openclaw_fts_tokens("") == [] and openclaw_fts_tokens("?!") == []


def test_openclaw_mmr_tokens():
    assert openclaw_mmr_tokens("Hello, World_2") == {"hello", "world_2"}
    # only ASCII runs: "café" yields "caf"; Cyrillic yields nothing
    assert openclaw_mmr_tokens("café Привет") == {"caf"}
    # bigrams only between characters adjacent in the text
    assert openclaw_mmr_tokens("我喜欢hello你好") == {
        "hello", "我", "喜", "欢", "你", "好", "我喜", "喜欢", "你好"}
    # katakana punctuation ・ is inside OpenClaw's CJK range (whole U+30A0-30FF block)
    assert openclaw_mmr_tokens("タ・ワ") == {"タ", "・", "ワ", "タ・", "・ワ"}
    assert openclaw_mmr_tokens("") == set()
