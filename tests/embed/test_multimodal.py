"""Multimodal memory (reference §9): image/audio discovery, Gemini Embedding 2 inline parts,
index storage, and text queries finding an image -- end to end against a loopback
Gemini-shaped server."""

from __future__ import annotations

import base64
import io
import json
import sqlite3
import struct
import wave
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memlab.cli import main
from memlab.embed.base import EmbeddingInput, MultimodalUnsupported
from memlab.embed.gemini import GeminiProvider
from memlab.indexed_search import IndexedMemorySearch
from memlab.workspace import (
    MultimodalFile,
    MultimodalSettings,
    detect_mime,
    load_multimodal_input,
    multimodal_settings,
    scan_workspace,
)
from tests.embed.conftest import FakeServer

pytestmark = pytest.mark.filterwarnings("ignore::memlab.workspace.MemlabWarning")

SECRET = "AIza-multimodal-secret-123"
DIMS = 768


def png_bytes() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def wav_bytes() -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x00" * 800)
    return buf.getvalue()


def concept_vector(parts: list[dict[str, Any]], dims: int) -> list[float]:
    """Deterministic vectors: an image part -> axis 0, an audio part -> axis 1; texts about
    diagrams/sketches -> axis 0, about voice/recordings -> axis 1, anything else -> a
    text-hash axis >= 2."""
    vec = np.zeros(dims)
    mimes = [p["inlineData"]["mimeType"] for p in parts if "inlineData" in p]
    text = " ".join(p.get("text", "") for p in parts).lower()
    if any(m.startswith("image/") for m in mimes) or any(
            w in text for w in ("diagram", "sketch")):
        vec[0] = 1.0
    elif any(m.startswith("audio/") for m in mimes) or any(
            w in text for w in ("voice", "recording")):
        vec[1] = 1.0
    else:
        vec[2 + sum(text.encode()) % (dims - 2)] = 1.0
        vec[0] = 0.05
    return vec.tolist()


def gemini_route(req: dict[str, Any], n: int) -> Any:
    if req["headers"].get("x-goog-api-key") != SECRET:
        return 401, {"error": {"message": "API key not valid"}}
    body = req["body"]
    if req["path"].endswith(":batchEmbedContents"):
        return 200, {"embeddings": [
            {"values": concept_vector(r["content"]["parts"], r.get("outputDimensionality", 8))}
            for r in body["requests"]]}
    if req["path"].endswith(":embedContent"):
        return 200, {"embedding": {"values": concept_vector(
            body["content"]["parts"], body.get("outputDimensionality", 8))}}
    return 404, {}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Long-term\nWe deploy billing on Tuesdays.\n")
    (ws / "memory" / "2026-09-01.md").write_text("Lunch notes: the cafe closes early.\n")
    (ws / "media").mkdir()
    (ws / "media" / "whiteboard.png").write_bytes(png_bytes())
    (ws / "media" / "standup.wav").write_bytes(wav_bytes())
    (ws / "media" / "notes.txt").write_text("not indexed")
    (ws / "media" / "fake.png").write_bytes(wav_bytes())  # audio bytes under an image name
    return ws


def config(url: str, **multimodal: Any) -> dict[str, Any]:
    return {"memorySearch": {
        "provider": "gemini", "model": "gemini-embedding-2-preview",
        "outputDimensionality": DIMS,
        "remote": {"baseUrl": url + "/v1beta", "apiKey": SECRET},
        "extraPaths": ["media"],
        "multimodal": {"enabled": True, "modalities": ["all"], **multimodal},
        "query": {"minScore": 0.0}}}


# -- discovery ----------------------------------------------------------------------------


def test_discovery_only_when_enabled_and_mime_must_match(workspace: Path) -> None:
    plain, _ = scan_workspace(workspace, ["media"])
    assert [f.path for f in plain] == ["MEMORY.md", "memory/2026-09-01.md"]
    settings = multimodal_settings({"enabled": True, "modalities": ["all"]})
    with pytest.warns(Warning, match="fake.png: content is audio/wav, not image"):
        loaded, skipped = scan_workspace(workspace, ["media"], multimodal=settings)
    media = [f for f in loaded if isinstance(f, MultimodalFile)]
    assert [(f.path, f.modality, f.mime_type, f.text) for f in media] == [
        ("media/standup.wav", "audio", "audio/wav", "Audio file: media/standup.wav"),
        ("media/whiteboard.png", "image", "image/png", "Image file: media/whiteboard.png")]
    # OpenClaw's chunk hash: sha256 of {path, contentText, mimeType, dataHash}
    import hashlib
    png = media[1]
    expect = hashlib.sha256(json.dumps({
        "path": png.path, "contentText": png.text, "mimeType": "image/png",
        "dataHash": hashlib.sha256(png_bytes()).hexdigest()},
        separators=(",", ":")).encode()).hexdigest()
    assert png.hash == expect
    assert [s.path for s in skipped] == ["media/fake.png"]
    images = MultimodalSettings(True, ("image",))
    only_images, _ = scan_workspace(workspace, ["media"], multimodal=images)
    assert [f.path for f in only_images if isinstance(f, MultimodalFile)] == [
        "media/whiteboard.png"]


def test_size_limit_and_disabled_settings(workspace: Path) -> None:
    assert multimodal_settings({"enabled": False, "modalities": ["all"]}) is None
    assert multimodal_settings({"enabled": True, "modalities": []}) is None
    small = MultimodalSettings(True, ("image", "audio"), max_file_bytes=50)
    with pytest.warns(Warning, match="larger than multimodal.maxFileBytes"):
        loaded, skipped = scan_workspace(workspace, ["media"], multimodal=small)
    assert not [f for f in loaded if isinstance(f, MultimodalFile)]
    assert {s.path for s in skipped} >= {"media/whiteboard.png", "media/standup.wav"}


def test_detect_mime_prefers_sniffed_bytes() -> None:
    assert detect_mime(png_bytes(), "x.png") == "image/png"
    assert detect_mime(wav_bytes(), "x.png") == "audio/wav"
    assert detect_mime(b"plain text", "x.png") == "image/png"  # unknown bytes: extension
    assert detect_mime(b"\xff\xd8\xff\xe0", "x.heic") == "image/jpeg"
    assert detect_mime(b"OggS\x00\x02" + b"\x00" * 22 + b"OpusHead", "x.ogg") == "audio/opus"


# -- the Gemini request shape -------------------------------------------------------------


def test_gemini_inline_parts_request_shape(fake: FakeServer, workspace: Path) -> None:
    fake.route = gemini_route
    g = GeminiProvider(api_key=SECRET, model="gemini-embedding-2-preview",
                       base_url=fake.url + "/v1beta", output_dimensionality=DIMS)
    assert g.supports_multimodal()
    loaded, _ = scan_workspace(workspace, ["media"],
                               multimodal=MultimodalSettings(True, ("image",)))
    image = next(f for f in loaded if isinstance(f, MultimodalFile))
    inp = load_multimodal_input(image)
    assert inp is not None and inp.structured and SECRET not in repr(inp)
    vecs = g.embed_inputs([inp, EmbeddingInput("plain text chunk")])
    assert vecs.shape == (2, DIMS) and vecs[0, 0] == pytest.approx(1.0)
    req = fake.requests[-1]
    assert req["path"] == "/v1beta/models/gemini-embedding-2-preview:batchEmbedContents"
    assert req["body"]["requests"][0] == {
        "content": {"parts": [
            {"text": "Image file: media/whiteboard.png"},
            {"inlineData": {"mimeType": "image/png",
                            "data": base64.b64encode(png_bytes()).decode()}}]},
        "taskType": "RETRIEVAL_DOCUMENT", "model": "models/gemini-embedding-2-preview",
        "outputDimensionality": DIMS}
    assert req["body"]["requests"][1]["content"] == {"parts": [{"text": "plain text chunk"}]}


def test_text_only_models_refuse_structured_inputs(fake: FakeServer) -> None:
    g = GeminiProvider(api_key=SECRET, base_url=fake.url)  # gemini-embedding-001
    assert not g.supports_multimodal()
    inp = EmbeddingInput("Image file: a.png", [{"type": "text", "text": "Image file: a.png"},
                                               {"type": "inline-data", "mimeType": "image/png",
                                                "data": "AAAA"}])
    with pytest.raises(MultimodalUnsupported, match="does not support multimodal"):
        g.embed_inputs([inp])
    assert fake.requests == []


def test_structured_batches_count_text_parts_only(fake: FakeServer) -> None:
    fake.route = gemini_route
    g = GeminiProvider(api_key=SECRET, model="gemini-embedding-2-preview",
                       base_url=fake.url + "/v1beta", output_dimensionality=DIMS)
    big = base64.b64encode(b"\x00" * 30_000).decode()
    inputs = [EmbeddingInput(f"Image file: {i}.png", [
        {"type": "text", "text": f"Image file: {i}.png"},
        {"type": "inline-data", "mimeType": "image/png", "data": big}]) for i in range(3)]
    g.embed_inputs(inputs)
    # 3 labels of ~17 bytes fit one 8,000-byte batch: the inline data is not counted
    assert len(fake.requests) == 1


# -- end to end: index, search, CLI ----------------------------------------------------------


def test_index_and_search_finds_the_image(fake: FakeServer, workspace: Path,
                                          tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("MEMLAB_CACHE_DIR", str(tmp_path / "cache"))
    fake.route = gemini_route
    index = tmp_path / "index.sqlite"
    ms = IndexedMemorySearch(workspace, config(fake.url), index_path=index)
    assert ms.sync_report is not None and ms.sync_report.mode == "full"
    chunks = ms.corpus.chunks
    row = chunks[chunks["path"] == "media/whiteboard.png"].iloc[0]
    assert (row["start_line"], row["end_line"], row["text"]) == (
        1, 1, "Image file: media/whiteboard.png")
    assert (chunks["path"] == "media/standup.wav").sum() == 1
    out = ms.search("architecture diagram sketch")
    assert out["results"][0]["path"] == "media/whiteboard.png"
    assert out["results"][0]["vectorScore"] == pytest.approx(1.0, abs=1e-6)
    out = ms.search("voice recording from the meeting")
    assert out["results"][0]["path"] == "media/standup.wav"
    # the label is what FTS indexes
    assert ms.search("whiteboard")["results"][0]["textScore"] > 0
    ms.store.close()
    # a second sync re-embeds nothing (hash-based skip + cache)
    n = len(fake.requests)
    again = IndexedMemorySearch(workspace, config(fake.url), index_path=index)
    assert again.sync_report.mode == "incremental" and again.sync_report.indexed == 0
    assert len(fake.requests) == n
    again.store.close()
    # the API key is nowhere in the index or the cache
    for db in [index, tmp_path / "cache" / "embeddings.sqlite"]:
        if db.exists():
            assert SECRET.encode() not in db.read_bytes()
            with sqlite3.connect(db) as conn:
                dump = "\n".join(conn.iterdump())
            assert SECRET not in dump


def test_cli_search_returns_the_image_hit(fake: FakeServer, workspace: Path, tmp_path: Path,
                                          monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setenv("MEMLAB_CACHE_DIR", str(tmp_path / "cache"))
    fake.route = gemini_route
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(config(fake.url)))
    index = str(tmp_path / "i.sqlite")
    assert main(["index", str(workspace), "--config", str(cfg), "--index", index]) == 0
    capsys.readouterr()
    assert main(["search", str(workspace), "diagram sketch", "--config", str(cfg),
                 "--index", index, "--json"]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    assert payload["results"][0]["path"] == "media/whiteboard.png"
    assert payload["provider"] == "gemini"
    assert SECRET not in captured.out + captured.err


def test_multimodal_requires_gemini_embedding_2_and_no_fallback(tmp_path: Path) -> None:
    from memlab.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="requires a provider adapter"):
        load_config({"provider": "openai", "multimodal": {"enabled": True}})
    with pytest.raises(ConfigError, match="does not support memorySearch.fallback"):
        load_config({"provider": "gemini", "model": "gemini-embedding-2-preview",
                     "fallback": "local", "multimodal": {"enabled": True}})
