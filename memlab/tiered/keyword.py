"""The keyword leg of OpenClaw 2026.9.6 on the profile's index (docs/openclaw-2026.9.md 3-5).

Ported from ``manager-search.ts`` (``searchKeyword``, ``searchPathKeyword``) and
``manager-keyword-retrieval.ts`` (``mergeKeywordSearchHits``, ``limitKeywordSearchHits``,
``searchKeywordWithFallback``): the SQL is 2026.9.6's own, run on the same FTS5 tables, so the
``bm25()`` ranks are SQLite's. Scores use the kernels (:func:`memlab.kernels.keyword`,
:mod:`memlab.kernels.tiers`).

Hits are plain dicts with OpenClaw's field names (``id``, ``path``, ``startLine``, ``endLine``,
``source``, ``score``, ``textScore``, ``pathScore``, ``exactPathSpecificity``,
``hasBodyMatch``, ``snippet``).
"""

from __future__ import annotations

import functools
import re
import sqlite3
import unicodedata
from typing import Any

from memlab.index.paths import PATHS_FTS_TABLE
from memlab.kernels.keyword import bm25_rank_to_score, boosted_score
from memlab.kernels.tiers import exact_path_matcher
from memlab.text.js import JS_WHITESPACE, truncate_utf16, utf16_length
from memlab.text.keywords import extract_keywords
from memlab.tiered.index import CHUNKS_TABLE, FTS_TABLE
from memlab.tiered.locale import locale_compare

SNIPPET_MAX_CHARS = 700
EXACT_PATH_CANDIDATE_LIMIT = 200
FALLBACK_TERM_LIMIT = 6
EXACT_FN = "openclaw_memory_exact_path_specificity"
CONTAINS_FN = "openclaw_memory_normalized_contains"

_TOKEN_RE = re.compile(r"[^\W]+")  # [\p{L}\p{N}_]+ (Python's \w, see text.tokenize)
_TOKEN_MARKS_RE = re.compile(r"(?:[^\W]|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
                             r"\ufe20-\ufe2f])+")  # [\p{L}\p{M}\p{N}_]+ (common marks)


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _entries(tokens: list[str]) -> list[str]:
    """``normalizeStringEntries``: trimmed, non-empty."""
    return [t for t in (x.strip(JS_WHITESPACE) for x in tokens) if t]


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def build_fts_query(raw: str) -> str | None:
    """``buildFtsQuery``: quoted ``[\\p{L}\\p{N}_]+`` runs joined by `` AND ``."""
    return _match_query(_entries(_TOKEN_RE.findall(raw)))


def _match_query(terms: list[str]) -> str | None:
    return " AND ".join('"' + t.replace('"', "") + '"' for t in terms) if terms else None


def _is_ascii(value: str) -> bool:
    return all(ord(c) <= 127 for c in value)


def plan_keyword_search(query: str, tokenizer: str, marks: bool = False
                        ) -> tuple[str | None, list[str]]:
    """``planKeywordSearch``: (MATCH query, substring terms)."""
    if tokenizer != "trigram":
        return build_fts_query(query), []
    tokens = _entries((_TOKEN_MARKS_RE if marks else _TOKEN_RE).findall(query))
    match = [t for t in tokens if len(t) >= 3]
    return _match_query(match), [t for t in tokens if len(t) < 3]


def plan_path_keyword_search(query: str, tokenizer: str) -> list[tuple[str, str | None,
                                                                        list[str]]]:
    """``planPathKeywordSearch``: ``(query form, MATCH query, substring terms)`` plans."""
    forms = (_unique([_nfc(query), unicodedata.normalize("NFD", query)])
             if tokenizer == "trigram" else [query])
    seen: set[tuple] = set()
    plans = []

    def add(q: str, match: str | None, terms: list[str]) -> None:
        key = (match, tuple(terms))
        if key not in seen:
            seen.add(key)
            plans.append((q, match, terms))

    for q in forms:
        add(q, *plan_keyword_search(q, tokenizer, marks=True))
    if tokenizer != "trigram":
        for q in _unique([_nfc(query), unicodedata.normalize("NFD", query)]):
            tokens = _entries(_TOKEN_MARKS_RE.findall(q))
            terms = [t for t in tokens if not _is_ascii(t)]
            if terms:
                add(q, _match_query([t for t in tokens if _is_ascii(t)]), terms)
    return plans


def _register_contains(con: sqlite3.Connection, terms: list[str]) -> None:
    matchers = {t: re.compile(re.escape(_nfc(t)), re.IGNORECASE) for t in terms}

    def contains(value: Any, term: Any) -> int:
        if not isinstance(value, str) or not isinstance(term, str) or term not in matchers:
            return 0
        return int(matchers[term].search(_nfc(value)) is not None)

    con.create_function(CONTAINS_FN, 2, contains, deterministic=True)


def _contains_sql(terms: list[str], column: str) -> str:
    return "".join(f" AND {CONTAINS_FN}({column}, ?) = 1" for _ in terms)


def _source_sql(column: str, sources: list[str]) -> tuple[str, list[str]]:
    return f" AND {column} IN ({', '.join('?' for _ in sources)})", list(sources)


def boost(query: str, texts: list[str], paths: list[str], text_scores: list[float]) -> list[float]:
    """``scoreFallbackKeywordResult`` of each hit against ``query`` (the ranking query):
    NFC tokens, whole-token overlap, 0.18 per query token in the path, the UTF-16 length."""
    qtokens = _unique([t.lower() for t in _entries(_TOKEN_RE.findall(_nfc(query)))])
    out = []
    for text, path, t in zip(texts, paths, text_scores, strict=True):
        tokens = {x.lower() for x in _entries(_TOKEN_RE.findall(_nfc(text)))}
        lowered_path = _nfc(path).lower()
        overlap = sum(1 for q in qtokens if q in tokens)
        path_hits = sum(1 for q in qtokens if q in lowered_path)
        out.append(float(boosted_score(t, overlap, len(qtokens), len(tokens), path_hits,
                                       utf16_length(text))))
    return out


def search_body(con: sqlite3.Connection, query: str, limit: int, tokenizer: str,
                sources: list[str], ranking_query: str | None = None) -> list[dict[str, Any]]:
    """``searchKeyword`` with ``boostFallbackRanking``: body FTS rows, ``score`` boosted
    against ``ranking_query`` (default ``query``)."""
    match, terms = plan_keyword_search(query, tokenizer)
    if not match and not terms:
        return []
    live = f" AND EXISTS (SELECT 1 FROM {CHUNKS_TABLE} c WHERE c.id = {FTS_TABLE}.id)"
    src_sql, src_params = _source_sql(f"{FTS_TABLE}.source", sources)

    def load(m: str | None, subs: list[str]) -> list[tuple]:
        if subs:
            _register_contains(con, subs)
        clause = f"{FTS_TABLE} MATCH ? AND {FTS_TABLE}.rank MATCH 'bm25()'" if m else "1=1"
        sql = (f"SELECT id, path, source, start_line, end_line, text, "
               f"{FTS_TABLE + '.rank' if m else '0'} AS rank FROM {FTS_TABLE} WHERE {clause}"
               f"{_contains_sql(subs, 'text')}{live}{src_sql}"
               + (" ORDER BY rank ASC" if m else "") + " LIMIT ?")
        return con.execute(sql, [*([m] if m else []), *subs, *src_params, limit]).fetchall()

    used_match = False
    if match:
        try:
            rows = load(match, terms)
            used_match = True
        except sqlite3.OperationalError:  # 2026.9: substring filters over the tokens, t = 0
            rows = load(None, _unique([*_entries(_TOKEN_RE.findall(query)), *terms]))
    else:
        rows = load(None, terms)
    t_scores = [float(bm25_rank_to_score(r[6])) if used_match else 0.0 for r in rows]
    boosted = boost(ranking_query if ranking_query is not None else query,
                    [r[5] for r in rows], [r[1] for r in rows], t_scores)
    return [{"id": r[0], "path": r[1], "startLine": r[3], "endLine": r[4], "score": b,
             "textScore": t, "hasBodyMatch": True, "snippet": truncate_utf16(r[5],
                                                                            SNIPPET_MAX_CHARS),
             "source": r[2], "pathScore": 0.0}
            for r, t, b in zip(rows, t_scores, boosted, strict=True)]


def _exact_patterns(query: str) -> list[str]:
    """``buildExactPathCandidatePatterns``."""
    q = query.strip(JS_WHITESPACE).replace("\\", "/")
    if q.startswith("./"):
        q = q[2:]
    if not q or q == ".":
        return []
    canon = _unique([_nfc(q), unicodedata.normalize("NFD", q)])
    forms = list(canon)
    if not _is_ascii(q):
        for form in canon:
            forms += [form.lower(), form.upper()]
    forms = _unique(forms)
    patterns: list[str] = []
    for form in forms:
        esc = form.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        patterns += [esc] if "/" in q else [esc, f"{esc}.%", f"%/{esc}", f"%/{esc}.%"]
    if not _is_ascii(q):
        anchors = sorted(re.findall(r"[a-z0-9_]+", unicodedata.normalize("NFD", q).lower()),
                         key=len, reverse=True)
        if anchors:
            a = anchors[0]
            patterns.append("%" + a.replace("\\", "\\\\").replace("%", "\\%")
                            .replace("_", "\\_") + "%")
        if q.lower() != q.upper():
            first = next((c for c in q if ord(c) > 127), None)
            if first:
                for anchor in _unique([first, first.lower(), first.upper()]):
                    patterns.append("%" + anchor.replace("\\", "\\\\").replace("%", "\\%")
                                    .replace("_", "\\_") + "%")
    return _unique(patterns)


def _by_path_score_then_position(a: dict, b: dict) -> int:
    """The tail both keyword comparators share: the higher ``pathScore`` first (non-exact
    hits only), then path (``localeCompare``), ``startLine``, chunk id."""
    if a["exactPathSpecificity"] == 0:
        p = b["pathScore"] - a["pathScore"]
        if p:
            return 1 if p > 0 else -1
    return (locale_compare(a["path"], b["path"]) or a["startLine"] - b["startLine"]
            or locale_compare(a["id"], b["id"]))


def _compare_path_hits(a: dict, b: dict) -> int:
    """``comparePathKeywordSearchResults``: exact tier, then the shared tail."""
    d = b["exactPathSpecificity"] - a["exactPathSpecificity"]
    return d or _by_path_score_then_position(a, b)


def search_paths(con: sqlite3.Connection, query: str, exact_query: str, limit: int,
                 tokenizer: str, sources: list[str]) -> list[dict[str, Any]]:
    """``searchPathKeyword`` with ``exactPathLimit`` 200: exact-path rows (the file's first
    chunk, score 0) and lexical path rows (``bm25`` of the path column)."""
    plans = plan_path_keyword_search(query, tokenizer)
    q0, match0, terms0 = plans[0] if plans else (query, None, [])
    col = f"{PATHS_FTS_TABLE}.path"
    _register_contains(con, terms0)
    tier = exact_path_matcher(exact_query)
    con.create_function(EXACT_FN, 1, lambda p: tier(p) if isinstance(p, str) else 0,
                        deterministic=True)
    src_sql, src_params = _source_sql(f"{PATHS_FTS_TABLE}.source", sources)
    exact_limit = EXACT_PATH_CANDIDATE_LIMIT
    patterns = _exact_patterns(exact_query)
    first_chunk = (f"JOIN {CHUNKS_TABLE} c ON c.id = (SELECT candidate.id FROM {CHUNKS_TABLE} "
                   "candidate WHERE candidate.path = {t}.path AND candidate.source = {t}.source "
                   "ORDER BY candidate.start_line, candidate.end_line, candidate.id LIMIT 1)")

    def load_exact(lexical: bool) -> list[tuple]:
        if lexical:
            ctes = (f"candidates AS MATERIALIZED (SELECT {col}, {PATHS_FTS_TABLE}.source FROM "
                    f"{PATHS_FTS_TABLE} WHERE "
                    f"{PATHS_FTS_TABLE + ' MATCH ?' if match0 else '1=1'}"
                    f"{_contains_sql(terms0, col)}{src_sql}), pattern_candidates AS "
                    "MATERIALIZED (SELECT path, source FROM candidates WHERE ("
                    + " OR ".join("path LIKE ? ESCAPE '\\'" for _ in patterns) + "))")
            params = [*([match0] if match0 else []), *terms0, *src_params, *patterns]
        else:
            ctes = (f"pattern_candidates AS MATERIALIZED (SELECT {col}, {PATHS_FTS_TABLE}.source "
                    f"FROM {PATHS_FTS_TABLE} WHERE ("
                    + " OR ".join(f"{col} LIKE ? ESCAPE '\\'" for _ in patterns) + f"){src_sql})")
            params = [*patterns, *src_params]
        sql = (f"WITH {ctes}, scored_paths AS MATERIALIZED (SELECT path, source, {EXACT_FN}(path) "
               "AS exact_path_specificity FROM pattern_candidates), exact_paths AS MATERIALIZED "
               "(SELECT path, source, exact_path_specificity FROM scored_paths WHERE "
               f"exact_path_specificity > 0 AND EXISTS (SELECT 1 FROM {CHUNKS_TABLE} live WHERE "
               "live.path = scored_paths.path AND live.source = scored_paths.source) ORDER BY "
               "exact_path_specificity DESC, path ASC, source ASC LIMIT ?) SELECT c.id, "
               "exact_paths.path, exact_paths.source, c.start_line, c.end_line, c.text, "
               f"exact_paths.exact_path_specificity FROM exact_paths "
               f"{first_chunk.format(t='exact_paths')} ORDER BY "
               "exact_paths.exact_path_specificity DESC, exact_paths.path ASC, "
               "exact_paths.source ASC")
        return con.execute(sql, [*params, exact_limit]).fetchall()

    lexical_exact = _is_ascii(exact_query) and (match0 is not None or bool(terms0))
    exact_rows: list[tuple] = []
    if patterns:
        try:
            exact_rows = load_exact(lexical_exact)
        except sqlite3.OperationalError:
            if not lexical_exact:
                raise
            exact_rows = load_exact(False)
    exact = [{"id": r[0], "path": r[1], "startLine": r[3], "endLine": r[4], "score": 0.0,
              "textScore": 0.0, "pathScore": 0.0, "exactPathSpecificity": r[6],
              "hasBodyMatch": False, "snippet": truncate_utf16(r[5], SNIPPET_MAX_CHARS),
              "source": r[2]} for r in exact_rows]
    if not any(m or t for _q, m, t in plans):
        return exact

    def load_filtered(m: str | None, subs: list[str], exact_part: bool, n: int) -> list[tuple]:
        op = ">" if exact_part else "="
        sql = (f"WITH retained_paths AS MATERIALIZED (SELECT {col}, {PATHS_FTS_TABLE}.source, "
               f"{'bm25(' + PATHS_FTS_TABLE + ')' if m else '0'} AS rank FROM {PATHS_FTS_TABLE} "
               f"WHERE {PATHS_FTS_TABLE + ' MATCH ?' if m else '1=1'}{_contains_sql(subs, col)}"
               f"{src_sql} AND {EXACT_FN}({col}) {op} 0 AND EXISTS (SELECT 1 FROM "
               f"{CHUNKS_TABLE} live WHERE live.path = {col} AND live.source = "
               f"{PATHS_FTS_TABLE}.source) ORDER BY rank ASC, {col} ASC, "
               f"{PATHS_FTS_TABLE}.source ASC LIMIT ?) SELECT c.id, retained_paths.path, "
               "retained_paths.source, c.start_line, c.end_line, c.text, retained_paths.rank "
               f"FROM retained_paths {first_chunk.format(t='retained_paths')} ORDER BY "
               "retained_paths.rank ASC, retained_paths.path ASC, retained_paths.source ASC")
        return con.execute(sql, [*([m] if m else []), *subs, *src_params, n]).fetchall()

    def load_lexical(q: str, m: str | None, subs: list[str]) -> tuple[list[tuple], bool]:
        def partitions(mm: str | None, ss: list[str]) -> list[tuple]:
            _register_contains(con, ss)
            return [*load_filtered(mm, ss, True, exact_limit),
                    *load_filtered(mm, ss, False, limit)]
        if m:
            try:
                return partitions(m, subs), True
            except sqlite3.OperationalError:
                return partitions(None, _unique([*_entries(_TOKEN_MARKS_RE.findall(q)),
                                                 *subs])), False
        return partitions(None, subs), False

    lexical: dict[str, dict[str, Any]] = {}
    for q, m, subs in plans:
        if not m and not subs:
            continue
        rows, used = load_lexical(q, m, subs)
        for r in rows:
            p = float(bm25_rank_to_score(r[6])) if used else 1.0
            hit = {"id": r[0], "path": r[1], "startLine": r[3], "endLine": r[4], "score": p,
                   "textScore": 0.0, "pathScore": p, "exactPathSpecificity": tier(r[1]),
                   "hasBodyMatch": False, "snippet": truncate_utf16(r[5], SNIPPET_MAX_CHARS),
                   "source": r[2]}
            old = lexical.get(hit["id"])
            if old is None:
                lexical[hit["id"]] = hit
                continue
            old["pathScore"] = max(old["pathScore"], p)
            old["score"] = max(old["score"], p)
            old["exactPathSpecificity"] = max(old["exactPathSpecificity"],
                                              hit["exactPathSpecificity"])
    by_id = {h["id"]: h for h in exact}
    non_exact = 0
    for hit in sorted(lexical.values(), key=functools.cmp_to_key(_compare_path_hits)):
        if hit["exactPathSpecificity"] > 0:
            found = by_id.get(hit["id"])
            if found is None:
                continue
            found["pathScore"] = max(found["pathScore"], hit["pathScore"])
            found["score"] = max(found["score"], hit["score"])
            found["exactPathSpecificity"] = max(found["exactPathSpecificity"],
                                                hit["exactPathSpecificity"])
            continue
        if non_exact >= limit:
            continue
        by_id[hit["id"]] = hit
        non_exact += 1
    return sorted(by_id.values(), key=functools.cmp_to_key(_compare_path_hits))[
        :exact_limit + limit]


def compare_keyword_hits(a: dict, b: dict, prefer_exact_body: bool = True) -> int:
    """``compareKeywordSearchHits``."""
    d = b["exactPathSpecificity"] - a["exactPathSpecificity"]
    if d:
        return d
    if prefer_exact_body and a["exactPathSpecificity"] > 0:
        body = int(b["hasBodyMatch"]) - int(a["hasBodyMatch"])
        if body:
            return body
    for key in ("score", "textScore"):
        delta = b[key] - a[key]
        if delta:
            return 1 if delta > 0 else -1
    return _by_path_score_then_position(a, b)


def _sorted(hits: list[dict], prefer_exact_body: bool = True) -> list[dict]:
    return sorted(hits, key=functools.cmp_to_key(
        lambda a, b: compare_keyword_hits(a, b, prefer_exact_body)))


def merge_keyword_hits(result_sets: list[list[dict]], exact_query: str) -> list[dict]:
    """``mergeKeywordSearchHits`` (2026.9): one hit per chunk id, best body score, else the
    path score; path-only exact hits score 1."""
    tier = exact_path_matcher(exact_query)
    seen: dict[str, dict] = {}
    for results in result_sets:
        for r in results:
            old = seen.get(r["id"])
            if old is None:
                r["exactPathSpecificity"] = tier(r["path"])
                seen[r["id"]] = r
                continue
            old_body = old["score"] if old["hasBodyMatch"] else 0.0
            new_body = r["score"] if r["hasBodyMatch"] else 0.0
            old_has = old["hasBodyMatch"]
            old["textScore"] = max(old["textScore"], r["textScore"])
            old["pathScore"] = max(old["pathScore"], r["pathScore"])
            old["hasBodyMatch"] = old["hasBodyMatch"] or r["hasBodyMatch"]
            body = max(old_body, new_body)
            old["score"] = body if body > 0 else old["pathScore"]
            if (r["hasBodyMatch"] and not old_has) or (
                    r["hasBodyMatch"] == old_has
                    and utf16_length(r["snippet"]) > utf16_length(old["snippet"])):
                old["snippet"] = r["snippet"]
    merged = list(seen.values())
    for r in merged:
        if not r["hasBodyMatch"]:
            r["score"] = 1.0 if r["exactPathSpecificity"] > 0 else r["pathScore"]
    return _sorted(merged)


def limit_keyword_hits(results: list[dict], non_exact_limit: int) -> list[dict]:
    """``limitKeywordSearchHits``."""
    ranked = _sorted(results)
    exact_body = [r for r in ranked if r["exactPathSpecificity"] > 0 and r["hasBodyMatch"]][
        :non_exact_limit]
    exact_path_only = [r for r in ranked if r["exactPathSpecificity"] > 0
                       and not r["hasBodyMatch"]]
    bounded = _sorted(exact_body + exact_path_only)
    keys: set[str] = set()
    for r in bounded:
        keys.add(f"{r['source']}:{r['path']}")
        if len(keys) == EXACT_PATH_CANDIDATE_LIMIT:
            break
    exact = [r for r in bounded if f"{r['source']}:{r['path']}" in keys]
    non_exact = [r for r in ranked if r["exactPathSpecificity"] == 0][:non_exact_limit]
    return exact + non_exact


def search_keyword(con: sqlite3.Connection, query: str, limit: int, tokenizer: str,
                   sources: list[str], exact_query: str | None = None,
                   ranking_query: str | None = None) -> list[dict]:
    """``searchKeyword`` of the manager: body and path rows merged and limited."""
    exact_query = query if exact_query is None else exact_query
    body = search_body(con, query, limit, tokenizer, sources, ranking_query)
    paths = search_paths(con, query, exact_query, limit, tokenizer, sources)
    return limit_keyword_hits(merge_keyword_hits([body, paths], exact_query), limit)


def search_keyword_with_fallback(con: sqlite3.Connection, query: str, limit: int,
                                 tokenizer: str, sources: list[str]) -> list[dict]:
    """``searchKeywordWithFallback`` (2026.9): the full query, then, unless it already has
    ``limit`` non-exact hits, each of the ≤ 6 keywords (boosted against the full query)."""
    full = search_keyword(con, query, limit, tokenizer, sources)
    if sum(1 for r in full if r["exactPathSpecificity"] == 0) >= limit:
        return full
    lowered = query.strip(JS_WHITESPACE).lower()
    terms = [t for t in extract_keywords(query, tokenizer) if t != lowered][:FALLBACK_TERM_LIMIT]
    if not terms:
        return full
    strict = build_fts_query(query)
    keyword = build_fts_query(" ".join(terms))
    if full and (strict and strict.lower()) == (keyword and keyword.lower()):
        return full
    per_term = [search_keyword(con, t, limit, tokenizer, sources, exact_query=query,
                               ranking_query=query) for t in terms]
    return limit_keyword_hits(merge_keyword_hits([full, *per_term], query), limit)
