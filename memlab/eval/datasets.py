"""Labeled datasets: memlab memory datasets (line-span judgments) and BEIR folders.

A memlab memory dataset is a folder::

    workspace/        MEMORY.md, memory/**.md (the agent's memory)
    queries.jsonl     {"id": "q001", "text": "...", "tags": ["paraphrase"],
                       "now": "2026-10-01T09:00:00Z", "session": "agent:main:main"}
    qrels.jsonl       {"query_id": "q001", "path": "memory/2026-07-03.md",
                       "start_line": 12, "end_line": 14, "grade": 2}

Judgments are line spans (1-based, inclusive), not chunk ids, so the same labels score any
chunking. Session transcripts (``workspace/sessions/<agentId>/*.jsonl``, searched when a
system's config enables them) are judged by JSONL line. A query's optional ``session`` is
the requester session whose transcript visibility applies to it (none: every transcript is
searchable). Queries without any judgment (tag ``none``) have no answer in memory.

A BEIR folder (:func:`load_beir_dataset`) is a document collection with document-level
judgments::

    corpus.jsonl      {"_id": "CACM-0001", "title": "...", "text": "..."}
    queries.jsonl     {"_id": "1", "text": "..."}
    qrels/test.tsv    query-id <TAB> corpus-id <TAB> score   (header line optional)

Each document becomes one file ``<_id>.md`` of an in-memory :class:`~memlab.corpus.Corpus`
(title, a blank line, then the text), chunked with OpenClaw's chunker, so every stage runs on
it; hits are scored per document with :func:`memlab.eval.relevance.doc_gains`.
:func:`load_dataset` tells the two layouts apart.

Every problem raises :class:`DatasetError` naming the file (and line, where there is one).

>>> ds = load_memory_dataset("datasets/sample-memory")  # doctest: +SKIP
>>> ds.queries.columns.tolist()  # doctest: +SKIP
['qid', 'query', 'tags', 'now']
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from memlab.corpus import CHUNK_TABLE_COLUMNS, FILE_TABLE_COLUMNS, Corpus
from memlab.eval.relevance import doc_path


class DatasetError(ValueError):
    """A dataset file is missing or malformed; the message names the file and line."""


@dataclass
class MemoryDataset:
    """A workspace with queries (``qid``, ``query``, ``tags``, ``now``) and span qrels
    (``qid``, ``path``, ``start_line``, ``end_line``, ``grade``)."""

    root: Path
    queries: pd.DataFrame
    qrels: pd.DataFrame

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def level(self) -> str:
        """``"span"``: judgments are line spans, scored with :func:`~memlab.eval.span_gains`."""
        return "span"

    @property
    def unjudged(self) -> list[str]:
        """Ids of the queries without any judgment (no answer in memory), in query order."""
        judged = set(self.qrels["qid"])
        return [q for q in self.queries["qid"] if q not in judged]

    def __repr__(self) -> str:
        return (f"MemoryDataset({self.name}: {len(self.queries)} queries, "
                f"{len(self.qrels)} judged spans)")


def _read_jsonl(path: Path) -> list[tuple[int, dict]]:
    if not path.is_file():
        raise DatasetError(f"{path}: file not found")
    rows = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read: {exc}") from None
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{n}: malformed JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise DatasetError(f"{path}:{n}: expected a JSON object")
        rows.append((n, obj))
    return rows


def _int_field(path: Path, n: int, obj: dict, key: str, default: int | None = None) -> int:
    """``obj[key]`` as an integer (``3``, ``3.0`` or ``"3"``), else a :class:`DatasetError`."""
    value = obj.get(key, default)
    try:
        number = float(value) if isinstance(value, int | float | str) and \
            not isinstance(value, bool) else None
    except ValueError:
        number = None
    if number is None or not number.is_integer():
        raise DatasetError(f"{path}:{n}: {key!r} must be an integer, got {value!r}")
    return int(number)


def _tags_field(path: Path, n: int, value: object) -> list[str]:
    """``tags``: a list of strings (a single string is one tag)."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise DatasetError(f"{path}:{n}: 'tags' must be a list of strings, got {value!r}")
    return list(value)


def _now_field(path: Path, n: int, value: object) -> pd.Timestamp | None:
    """``now``: an ISO-8601 date-time; without a time zone it is read as UTC (so values with
    and without ``Z`` can be mixed)."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(f"{path}:{n}: 'now' must be an ISO-8601 date-time string such as "
                           f"\"2026-10-01T09:00:00Z\", got {value!r}")
    try:
        stamp = pd.Timestamp(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise DatasetError(f"{path}:{n}: 'now' {value!r} is not an ISO-8601 date-time "
                           f"(such as \"2026-10-01T09:00:00Z\"): {exc}") from None
    if stamp is pd.NaT:
        raise DatasetError(f"{path}:{n}: 'now' {value!r} is not a date-time")
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


#: Columns of a span judgment frame (``qrels.jsonl``, ``judged.jsonl``,
#: ``session_qrels.jsonl``).
SPAN_QRELS_COLUMNS = ["qid", "path", "start_line", "end_line", "grade"]


def iter_spans(path: str | Path, default_grade: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, span)`` of each judgment of a span JSONL file (``query_id``, ``path``,
    ``start_line``, ``end_line``, optional ``grade``, else ``default_grade``); ``span`` has
    the keys of :data:`SPAN_QRELS_COLUMNS`. The one reader of ``qrels.jsonl``, ``judged.jsonl`` and
    ``session_qrels.jsonl``: each caller adds only its own checks (known query, lines inside
    the file, grade range). A missing key or a non-integer line raises
    :class:`DatasetError` naming the file and line."""
    path = Path(path)
    for n, obj in _read_jsonl(path):
        for key in ("query_id", "path", "start_line", "end_line"):
            if key not in obj:
                raise DatasetError(f"{path}:{n}: missing {key!r}")
        yield n, {"qid": str(obj["query_id"]), "path": str(obj["path"]),
                  "start_line": _int_field(path, n, obj, "start_line"),
                  "end_line": _int_field(path, n, obj, "end_line"),
                  "grade": _int_field(path, n, obj, "grade", default_grade)}


def read_span_file(path: str | Path, default_grade: int) -> pd.DataFrame:
    """The spans of a span JSONL file as a frame of :data:`SPAN_QRELS_COLUMNS`
    (:func:`iter_spans`); an empty frame when the file does not exist.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "judged.jsonl").write_text(
    ...     '{"query_id": "q1", "path": "MEMORY.md", "start_line": 2, "end_line": 3}\\n')
    >>> read_span_file(folder / "judged.jsonl", default_grade=0).values.tolist()
    [['q1', 'MEMORY.md', 2, 3, 0]]
    >>> len(read_span_file(folder / "absent.jsonl", default_grade=1))
    0
    """
    path = Path(path)
    rows = [span for _, span in iter_spans(path, default_grade)] if path.is_file() else []
    return pd.DataFrame(rows, columns=SPAN_QRELS_COLUMNS).astype(
        {"start_line": "int64", "end_line": "int64", "grade": "int64"})


def load_memory_dataset(root: str | Path) -> MemoryDataset:
    """Load and validate a memory dataset folder (see the module docstring)."""
    root = Path(root)
    if not (root / "workspace").is_dir():
        raise DatasetError(f"{root}: no workspace/ folder")
    qpath, rpath = root / "queries.jsonl", root / "qrels.jsonl"
    queries = []
    seen: set[str] = set()
    for n, obj in _read_jsonl(qpath):
        for key in ("id", "text"):
            if key not in obj:
                raise DatasetError(f"{qpath}:{n}: missing {key!r}")
        qid = str(obj["id"])
        if qid in seen:
            raise DatasetError(f"{qpath}:{n}: duplicate query id {qid!r}")
        seen.add(qid)
        session = obj.get("session")
        queries.append({"qid": qid, "query": str(obj["text"]),
                        "tags": _tags_field(qpath, n, obj.get("tags", [])),
                        "now": _now_field(qpath, n, obj.get("now")),
                        "session": None if session is None else str(session)})
    qrels = []
    line_counts: dict[str, int] = {}
    for n, span in iter_spans(rpath, default_grade=1):
        qid, path, start, end, grade = (span[c] for c in SPAN_QRELS_COLUMNS)
        if qid not in seen:
            raise DatasetError(f"{rpath}:{n}: unknown query_id {qid!r}")
        if "\x00" in path or not path.strip():
            raise DatasetError(f"{rpath}:{n}: 'path' {path!r} is not a usable file path "
                               "(empty or holding a NUL byte)")
        if path not in line_counts:
            file = root / "workspace" / path
            base = (root / "workspace").resolve()
            if not file.resolve().is_relative_to(base):  # "../x", "/etc/passwd", symlinks
                raise DatasetError(f"{rpath}:{n}: {path!r} points outside workspace/")
            if not file.is_file():
                raise DatasetError(f"{rpath}:{n}: {path!r} does not exist under workspace/")
            try:
                line_counts[path] = len(file.read_text(encoding="utf-8").split("\n"))
            except (OSError, UnicodeDecodeError) as exc:
                raise DatasetError(f"{rpath}:{n}: cannot read {path!r}: {exc}") from None
        if not 1 <= start <= end <= line_counts[path]:
            raise DatasetError(f"{rpath}:{n}: lines {start}-{end} fall outside {path!r} "
                               f"({line_counts[path]} lines)")
        if grade < 1:
            raise DatasetError(f"{rpath}:{n}: grade must be >= 1, got {grade}")
        qrels.append(span)
    qframe = pd.DataFrame(queries, columns=["qid", "query", "tags", "now", "session"])
    if qframe["now"].notna().any():  # each value already a UTC Timestamp (or None)
        qframe["now"] = pd.to_datetime(qframe["now"], utc=True)
    else:
        qframe = qframe.drop(columns=["now"])
    if qframe["session"].isna().all():  # the requester session, for transcript visibility
        qframe = qframe.drop(columns=["session"])
    rframe = pd.DataFrame(qrels, columns=SPAN_QRELS_COLUMNS)
    return MemoryDataset(root=root, queries=qframe, qrels=rframe)


# -- BEIR folders ----------------------------------------------------------------------------

QRELS_COLUMNS = ["qid", "doc_id", "grade"]


@dataclass
class BeirDataset:
    """A BEIR document collection: ``corpus`` (one file ``<doc_id>.md`` per document, chunked),
    ``queries`` (``qid``, ``query``, ``tags``) and document ``qrels`` (``qid``, ``doc_id``,
    ``grade``; a grade <= 0 is judged non-relevant, as in trec_eval).

    ``documents`` keeps each document's file text (``doc_id``, ``path``, ``text``) so
    :meth:`rechunk` can build the corpus again with another chunking; ``rejected_qrels`` lists
    the qrels lines accepted despite an unknown id (``line``, ``qid``, ``doc_id``, ``grade``,
    ``problem``; see ``unknown_ids`` of :func:`load_beir_dataset`).
    """

    root: Path
    corpus: Corpus
    queries: pd.DataFrame
    qrels: pd.DataFrame
    split: str = "test"
    documents: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=["doc_id", "path", "text"]), repr=False)
    rejected_qrels: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=["line", "qid", "doc_id", "grade", "problem"]), repr=False)

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def level(self) -> str:
        """``"doc"``: judgments are documents, scored with :func:`~memlab.eval.doc_gains`."""
        return "doc"

    @property
    def unjudged(self) -> list[str]:
        """Ids of the queries without any relevant (grade > 0) document, in query order.

        They stay in ``queries``; metrics are undefined for them, so evaluation reports them
        apart instead of averaging them in.
        """
        judged = set(self.qrels.loc[self.qrels["grade"] > 0, "qid"])
        return [q for q in self.queries["qid"] if q not in judged]

    def rechunk(self, tokens: int = 400, overlap: int = 80, model: str = "fts-only",
                max_input_bytes: int | None = None) -> BeirDataset:
        """The same dataset with its documents chunked again (for chunk-size ablations)."""
        corpus = document_corpus(dict(zip(self.documents["doc_id"], self.documents["text"],
                                          strict=True)),
                                 tokens=tokens, overlap=overlap, model=model,
                                 max_input_bytes=max_input_bytes)
        return dataclasses.replace(self, corpus=corpus)

    def __repr__(self) -> str:
        n_judged = len(self.queries) - len(self.unjudged)
        return (f"BeirDataset({self.name}/{self.split}: {len(self.documents)} documents, "
                f"{len(self.corpus)} chunks, {len(self.queries)} queries "
                f"({n_judged} judged), {len(self.qrels)} judgments)")


def document_text(title: str, text: str) -> str:
    """A document's file text: the title, a blank line, the text (either alone if the other
    is empty)."""
    title, text = title.strip(), text.strip()
    if title and text:
        return f"{title}\n\n{text}"
    return title or text


def document_corpus(documents: Mapping[str, str], tokens: int = 400, overlap: int = 80,
                    model: str = "fts-only", max_input_bytes: int | None = None) -> Corpus:
    """An in-memory corpus with one file ``<doc_id>.md`` (source ``memory``) per document,
    chunked with OpenClaw's chunker exactly as :func:`memlab.corpus.load_workspace` chunks
    a workspace file (blank chunks dropped, provider splitting with ``max_input_bytes``).
    A blank document yields no chunk (it can never be retrieved) but is listed in ``files``.

    >>> corpus = document_corpus({"d1": "alpha beta", "d2": "gamma\\n\\ndelta"})
    >>> corpus.chunks[["path", "start_line", "end_line"]].values.tolist()
    [['d1.md', 1, 1], ['d2.md', 1, 3]]
    """
    from memlab.chunking import chunk_id, chunk_markdown, sha256_hex, split_for_provider

    rows = []
    files = []
    for doc_id, text in documents.items():
        path = doc_path(doc_id)
        chunks = chunk_markdown(text, tokens=tokens, overlap=overlap)
        if max_input_bytes:
            chunks = split_for_provider(chunks, max_input_bytes)
        for c in chunks:
            cid = chunk_id("memory", path, c.start_line, c.end_line, c.hash, model)
            rows.append((cid, path, "memory", c.start_line, c.end_line, c.text, c.hash))
        files.append((path, "memory", sha256_hex(text), 0, len(text.encode("utf-8"))))
    chunks_df = pd.DataFrame(rows, columns=CHUNK_TABLE_COLUMNS).astype(
        {"start_line": "int64", "end_line": "int64"})
    files_df = pd.DataFrame(files, columns=FILE_TABLE_COLUMNS).astype({"mtime_ms": "int64",
                                                                       "size": "int64"})
    return Corpus(chunks=chunks_df, files=files_df, root=None, model=model)


def _beir_id(path: Path, n: int, obj: dict, what: str) -> str:
    if "_id" not in obj:
        raise DatasetError(f"{path}:{n}: missing '_id'")
    value = obj["_id"]
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise DatasetError(f"{path}:{n}: '_id' must be a string, got {value!r}")
    ident = str(value)
    if not ident or any(ch.isspace() for ch in ident):
        raise DatasetError(f"{path}:{n}: {what} id {ident!r} is empty or contains whitespace "
                           "(TREC files could not carry it)")
    return ident


def _beir_str(path: Path, n: int, obj: dict, key: str, required: bool) -> str:
    if key not in obj:
        if required:
            raise DatasetError(f"{path}:{n}: missing {key!r}")
        return ""
    value = obj[key]
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DatasetError(f"{path}:{n}: {key!r} must be a string, got {type(value).__name__}")
    return value


def _parse_grade(token: str) -> int | None:
    try:
        return int(token)
    except ValueError:
        try:
            value = float(token)
        except ValueError:
            return None
        return int(value) if value.is_integer() else None


UNKNOWN_ID_MODES = ("error", "drop", "keep")


def _near_id(ident: str, known: Mapping[str, int]) -> str | None:
    """A known id equal to ``ident`` up to leading zeros of its numbers ('D-75' ~ 'D-0075')."""
    def norm(x: str) -> str:
        return re.sub(r"\d+", lambda m: str(int(m.group())), x)

    target = norm(ident)
    found = [k for k in known if norm(k) == target and k != ident]
    return found[0] if len(found) == 1 else None


def _read_beir_qrels(path: Path, doc_ids: Mapping[str, int], qids: Mapping[str, int],
                     unknown_ids: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    if not path.is_file():
        raise DatasetError(f"{path}: file not found")
    rows: list[tuple[str, str, int]] = []
    rejected: list[tuple[int, str, str, int, str]] = []
    seen: dict[tuple[str, str], tuple[int, int]] = {}  # (qid, doc) -> (grade, line)
    first = True
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            fields = line.split()
            if not fields:
                continue
            grade = _parse_grade(fields[2]) if len(fields) == 3 else None
            if first and len(fields) == 3 and grade is None:  # "query-id corpus-id score"
                first = False
                continue
            first = False
            if len(fields) != 3:
                raise DatasetError(f"{path}:{n}: expected 3 columns (query-id, corpus-id, "
                                   f"score), got {len(fields)}")
            if grade is None:
                raise DatasetError(f"{path}:{n}: score {fields[2]!r} is not an integer")
            qid, doc = fields[0], fields[1]
            problem = None
            if qid not in qids:
                problem = "unknown query"
                if unknown_ids == "error":
                    raise DatasetError(f"{path}:{n}: unknown query id {qid!r} "
                                       "(not in queries.jsonl)")
            elif doc not in doc_ids:
                problem = "unknown document"
                if unknown_ids == "error":
                    near = _near_id(doc, doc_ids)
                    hint = f"; did you mean {near!r}?" if near else ""
                    raise DatasetError(
                        f"{path}:{n}: unknown document id {doc!r} (not in corpus.jsonl{hint}); "
                        "load with unknown_ids='drop' or 'keep' to accept such lines")
            if problem:
                rejected.append((n, qid, doc, grade, problem))
                if problem == "unknown query" or unknown_ids == "drop":
                    continue
            if (qid, doc) in seen:
                prev_grade, prev_line = seen[qid, doc]
                if prev_grade != grade:
                    raise DatasetError(f"{path}:{n}: query {qid!r}, document {doc!r} judged "
                                       f"{grade} here but {prev_grade} on line {prev_line}")
                continue  # an identical repeat counts once
            seen[qid, doc] = (grade, n)
            rows.append((qid, doc, grade))
    if rejected:
        lines = ", ".join(str(r[0]) for r in rejected[:5]) + (", ..." if len(rejected) > 5 else "")
        action = ("dropped" if unknown_ids == "drop" else
                  "kept (documents; they count as relevant but can never be retrieved)")
        warnings.warn(f"{path}: {len(rejected)} judgment(s) name an unknown query or document "
                      f"(lines {lines}); {action}; unknown-query lines are always dropped; "
                      "see BeirDataset.rejected_qrels", UserWarning, stacklevel=3)
    qrels = pd.DataFrame(rows, columns=QRELS_COLUMNS).astype({"grade": "int64"})
    bad = pd.DataFrame(rejected, columns=["line", "qid", "doc_id", "grade", "problem"])
    return qrels, bad


def load_beir_dataset(root: str | Path, split: str = "test", tokens: int = 400,
                      overlap: int = 80, model: str = "fts-only",
                      max_input_bytes: int | None = None,
                      unknown_ids: str = "error") -> BeirDataset:
    """Load and validate a BEIR folder (``corpus.jsonl``, ``queries.jsonl``,
    ``qrels/<split>.tsv``) as a chunked corpus with queries and document judgments.

    Checks: the files exist; every JSON line parses to an object with an ``_id`` (documents
    also need ``text``, queries ``text``); ids are unique and free of whitespace; the qrels
    have three columns (a header line is skipped) with integer scores and known query and
    document ids; a (query, document) pair is judged once (an identical repeat is dropped).
    Queries without judgments are kept and listed by :attr:`BeirDataset.unjudged`.
    ``tokens``/``overlap``/``model``/``max_input_bytes`` are the chunking settings of
    :func:`document_corpus`.

    ``unknown_ids`` says what a qrels line naming an unknown id does: ``"error"`` (default)
    raises; ``"drop"`` drops it; ``"keep"`` keeps judgments of unknown *documents* (they then
    count in recall's and nDCG's denominators, as trec_eval counts them, but no hit can match
    them). Unknown-query lines are dropped in both lenient modes. Either way a warning names
    the lines and :attr:`BeirDataset.rejected_qrels` lists them.

    >>> ds = load_beir_dataset("../shared/datasets/cacm")  # doctest: +SKIP
    >>> ds.qrels.columns.tolist()  # doctest: +SKIP
    ['qid', 'doc_id', 'grade']
    """
    if unknown_ids not in UNKNOWN_ID_MODES:
        raise ValueError(f"unknown_ids must be one of {UNKNOWN_ID_MODES}, got {unknown_ids!r}")
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: dataset folder not found")
    cpath, qpath = root / "corpus.jsonl", root / "queries.jsonl"
    rpath = root / "qrels" / f"{split}.tsv"
    for p in (cpath, qpath):
        if not p.is_file():
            raise DatasetError(f"{p}: file not found")
    if not rpath.is_file():
        available = sorted(x.stem for x in (root / "qrels").glob("*.tsv"))
        raise DatasetError(f"{rpath}: file not found (qrels splits present: "
                           f"{available or 'none'})")

    documents: dict[str, str] = {}
    doc_line: dict[str, int] = {}
    for n, obj in _read_jsonl(cpath):
        doc_id = _beir_id(cpath, n, obj, "document")
        if doc_id in doc_line:
            raise DatasetError(f"{cpath}:{n}: duplicate document id {doc_id!r} "
                               f"(first on line {doc_line[doc_id]})")
        doc_line[doc_id] = n
        documents[doc_id] = document_text(_beir_str(cpath, n, obj, "title", False),
                                          _beir_str(cpath, n, obj, "text", True))
    if not documents:
        raise DatasetError(f"{cpath}: no documents")

    queries = []
    q_line: dict[str, int] = {}
    for n, obj in _read_jsonl(qpath):
        qid = _beir_id(qpath, n, obj, "query")
        if qid in q_line:
            raise DatasetError(f"{qpath}:{n}: duplicate query id {qid!r} "
                               f"(first on line {q_line[qid]})")
        q_line[qid] = n
        tags = obj.get("tags", [])
        if not isinstance(tags, list):
            raise DatasetError(f"{qpath}:{n}: 'tags' must be a list")
        queries.append({"qid": qid, "query": _beir_str(qpath, n, obj, "text", True),
                        "tags": [str(t) for t in tags]})
    qrels, rejected = _read_beir_qrels(rpath, doc_line, q_line, unknown_ids)

    corpus = document_corpus(documents, tokens=tokens, overlap=overlap, model=model,
                             max_input_bytes=max_input_bytes)
    doc_frame = pd.DataFrame({"doc_id": list(documents),
                              "path": [doc_path(d) for d in documents],
                              "text": list(documents.values())})
    qframe = pd.DataFrame(queries, columns=["qid", "query", "tags"])
    return BeirDataset(root=root, corpus=corpus, queries=qframe, qrels=qrels, split=split,
                       documents=doc_frame, rejected_qrels=rejected)


def load_dataset(path: str | Path, split: str = "test", **chunking) -> MemoryDataset | BeirDataset:
    """Load a memory dataset (a folder with ``workspace/``) or a BEIR folder (with
    ``corpus.jsonl``); ``split`` and the chunking keywords apply to BEIR folders only."""
    root = Path(path)
    if not root.is_dir():
        raise DatasetError(f"{root}: dataset folder not found")
    if (root / "workspace").is_dir():
        if chunking:
            raise TypeError(f"chunking options {sorted(chunking)} apply to BEIR folders only; "
                            "a memory dataset's workspace is chunked when it is loaded")
        return load_memory_dataset(root)
    if (root / "corpus.jsonl").is_file():
        return load_beir_dataset(root, split=split, **chunking)
    raise DatasetError(f"{root}: not a dataset folder: expected workspace/ + queries.jsonl + "
                       "qrels.jsonl (memory dataset) or corpus.jsonl + queries.jsonl + "
                       "qrels/<split>.tsv (BEIR)")
