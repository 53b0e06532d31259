"""The ``bedrock`` provider: Amazon Bedrock ``InvokeModel`` embeddings (reference §7, §7.1).

OpenClaw's ``extensions/amazon-bedrock/embedding-provider.ts`` over plain HTTP, signed with
SigV4 by ``botocore`` (an optional extra: ``pip install memlab[bedrock]``):

* ``POST {endpoint}/model/{modelId}/invoke``; the endpoint is
  ``https://bedrock-runtime.{region}.amazonaws.com`` or ``remote.baseUrl``.
* Region: from ``remote.baseUrl`` (``bedrock-runtime.<region>.``), else ``AWS_REGION``, else
  ``AWS_DEFAULT_REGION``, else ``us-east-1``.
* Credentials: the AWS chain of botocore (env vars, shared config/profile, SSO, container and
  instance roles), or a Bedrock API key in ``AWS_BEARER_TOKEN_BEDROCK`` (sent as bearer).
* Request bodies by model family: Titan v2 ``{"inputText", "dimensions", "normalize": true}``;
  Titan v1 ``{"inputText"}``; Cohere v3 ``{"texts", "input_type": "search_query" |
  "search_document", "truncate": "END"}`` (v4 adds ``"embedding_types": ["float"]`` and
  ``"output_dimension"``); Nova ``SINGLE_EMBEDDING``; TwelveLabs ``{"inputType": "text"}``.
  Titan/Nova/TwelveLabs embed one text per request; Cohere embeds the batch.
* Dimensions: ``outputDimensionality`` (validated against the model's allowed sizes) or the
  model's default; vectors are L2-normalised; a blank text embeds as the zero vector.
* Cache key (§8): region, model, dimensions.

    >>> BedrockProvider(region="eu-west-1", credentials={"access_key": "AKIA-x",
    ...                 "secret_key": "s-x"}).key_settings()
    {'region': 'eu-west-1', 'dimensions': 1024}
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import numpy as np

from memlab.embed.base import ProviderUnavailable, register_provider
from memlab.embed.http import RemoteEmbedder, malformed

DEFAULT_MODEL = "amazon.titan-embed-text-v2:0"

#: model id -> (max input tokens, default dims, allowed dims or None, family)
MODELS: dict[str, tuple[int, int, tuple[int, ...] | None, str]] = {
    "amazon.titan-embed-text-v2:0": (8192, 1024, (256, 512, 1024), "titan-v2"),
    "amazon.titan-embed-text-v1": (8000, 1536, None, "titan-v1"),
    "amazon.titan-embed-g1-text-02": (8000, 1536, None, "titan-v1"),
    "amazon.titan-embed-image-v1": (128, 1024, None, "titan-v1"),
    "cohere.embed-english-v3": (512, 1024, None, "cohere-v3"),
    "cohere.embed-multilingual-v3": (512, 1024, None, "cohere-v3"),
    "cohere.embed-v4:0": (128000, 1536, (256, 384, 512, 768, 1024, 1536), "cohere-v4"),
    "amazon.nova-2-multimodal-embeddings-v1:0": (8192, 1024, (256, 384, 1024, 3072), "nova"),
    "twelvelabs.marengo-embed-2-7-v1:0": (512, 1024, None, "twelvelabs"),
    "twelvelabs.marengo-embed-3-0-v1:0": (512, 512, None, "twelvelabs"),
}
_PROFILE_PREFIX = re.compile(r"^(?:us|eu|ap|apac|au|jp|global)\.")
_REGION_IN_URL = re.compile(r"bedrock-runtime\.([a-z0-9-]+)\.")


def model_spec(model: str) -> tuple[int, int, tuple[int, ...] | None, str] | None:
    """The catalog entry of ``model`` (inference-profile prefixes and throughput suffixes
    resolved to the base model).

    >>> model_spec("us.cohere.embed-v4:0")[3], model_spec("amazon.titan-embed-text-v2:0:8k")[1]
    ('cohere-v4', 1024)
    """
    bare = _PROFILE_PREFIX.sub("", model)
    if bare in MODELS:
        return MODELS[bare]
    parts = bare.split(":")
    for i in range(len(parts) - 1, 0, -1):
        spec = MODELS.get(":".join(parts[:i]))
        if spec:
            return spec
    return None


def infer_family(model: str) -> str:
    mid = _PROFILE_PREFIX.sub("", model).lower()
    for prefix, family in (("amazon.titan-embed-text-v2", "titan-v2"),
                           ("amazon.titan-embed", "titan-v1"), ("amazon.nova", "nova"),
                           ("cohere.embed-v4", "cohere-v4"), ("cohere.embed", "cohere-v3"),
                           ("twelvelabs.", "twelvelabs")):
        if mid.startswith(prefix):
            return family
    return "titan-v1"


def region_from_url(url: str | None) -> str | None:
    match = _REGION_IN_URL.search(url or "")
    return match.group(1) if match else None


@register_provider
class BedrockProvider(RemoteEmbedder):
    """Amazon Bedrock embeddings (Titan, Cohere, Nova, TwelveLabs).

    ``credentials`` (``{"access_key", "secret_key", "token"}``) overrides the AWS chain;
    ``bearer_token`` is a Bedrock API key. Both are secrets: never hashed, shown or logged.
    """

    id = "bedrock"
    normalize = True
    secret_settings = frozenset({"credentials", "bearer_token"})
    auth_fix = ("check the AWS credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "
                "AWS_PROFILE or AWS_BEARER_TOKEN_BEDROCK) and model access in the region")

    def __init__(self, model: str | None = None, base_url: str | None = None,
                 region: str | None = None, output_dimensionality: int | None = None,
                 credentials: Mapping[str, str] | None = None, bearer_token: str | None = None,
                 **http: Any):
        name = (model or "").strip()
        self.model = re.sub(r"^(?:bedrock|amazon-bedrock|aws)/", "", name) or DEFAULT_MODEL
        self.spec = model_spec(self.model)
        self.family = self.spec[3] if self.spec else infer_family(self.model)
        url = (base_url or "").strip().rstrip("/")
        self.region = (region or region_from_url(url) or os.environ.get("AWS_REGION")
                       or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1").strip()
        self.base_url = url if re.match(r"^https?://", url) else \
            f"https://bedrock-runtime.{self.region}.amazonaws.com"
        if output_dimensionality is not None:
            allowed = self.spec[2] if self.spec else None
            if allowed and output_dimensionality not in allowed:
                raise ProviderUnavailable(
                    f"Invalid dimensions {output_dimensionality} for {self.model}. Valid "
                    f"values: {', '.join(map(str, allowed))}")
            self.dimensions: int | None = output_dimensionality
        else:
            self.dimensions = self.spec[1] if self.spec else None
        if self.spec:
            self.max_input_tokens = self.spec[0]
        if self.family in ("titan-v2", "cohere-v4", "nova") and self.dimensions:
            self._dims = self.dimensions
        elif self.family in ("titan-v1", "cohere-v3", "twelvelabs") and self.spec:
            self._dims = self.spec[1]
        bearer = bearer_token if bearer_token is not None else \
            os.environ.get("AWS_BEARER_TOKEN_BEDROCK")
        self._bearer = bearer.strip() if isinstance(bearer, str) and bearer.strip() else None
        self._given = dict(credentials) if credentials else None
        self._credentials: Any = None
        secrets = [self._bearer, *((self._given or {}).values())]
        self._init_http(secrets=secrets, **http)
        if not self._bearer:
            self._resolve_credentials()

    # -- credentials & signing --------------------------------------------------------------

    @staticmethod
    def _botocore() -> Any:
        try:
            import botocore.auth
            import botocore.awsrequest
            import botocore.credentials
            import botocore.session
        except ImportError as exc:
            raise ProviderUnavailable(
                "the bedrock embedding provider needs the optional dependency botocore: "
                "pip install 'memlab[bedrock]' (or pip install botocore)") from exc
        return botocore

    def _resolve_credentials(self) -> Any:
        botocore = self._botocore()
        if self._given:
            creds = botocore.credentials.Credentials(
                self._given.get("access_key"), self._given.get("secret_key"),
                self._given.get("token"))
        else:
            creds = botocore.session.get_session().get_credentials()
        if creds is None or not getattr(creds, "access_key", None):
            raise ProviderUnavailable(
                'No API key found for provider "bedrock". AWS credentials are not available. '
                "Set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or "
                "AWS_BEARER_TOKEN_BEDROCK, configure an EC2/ECS/EKS role, or set "
                "memorySearch.provider to another provider.")
        self._credentials = creds
        frozen = creds.get_frozen_credentials()
        for secret in (frozen.secret_key, frozen.token, frozen.access_key):
            self._add_secret(secret)
        return creds

    def _signed_headers(self, url: str, payload: bytes) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "application/json"}
        if self._bearer:
            headers["authorization"] = f"Bearer {self._bearer}"
            return headers
        botocore = self._botocore()
        creds = self._credentials or self._resolve_credentials()
        request = botocore.awsrequest.AWSRequest(method="POST", url=url, data=payload,
                                                 headers=headers)
        botocore.auth.SigV4Auth(creds.get_frozen_credentials(), "bedrock",
                                self.region).add_auth(request)
        return {k: v for k, v in request.headers.items()}

    # -- identity ---------------------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/model/{self.model}/invoke"

    def key_settings(self) -> dict[str, Any]:
        data: dict[str, Any] = {"region": self.region}
        if self.dimensions is not None:
            data["dimensions"] = self.dimensions
        return data

    def public_settings(self) -> dict[str, Any]:
        return {"region": self.region, "model": self.model, "base_url": self.base_url,
                "dimensions": self.dimensions}

    # -- wire format ------------------------------------------------------------------------

    def _body(self, texts: list[str], kind: str) -> dict[str, Any]:
        if self.family in ("cohere-v3", "cohere-v4"):
            body: dict[str, Any] = {
                "texts": texts,
                "input_type": "search_query" if kind == "query" else "search_document",
                "truncate": "END"}
            if self.family == "cohere-v4":
                body["embedding_types"] = ["float"]
                if self.dimensions is not None:
                    body["output_dimension"] = self.dimensions
            return body
        text = texts[0]
        if self.family == "titan-v2":
            body = {"inputText": text}
            if self.dimensions is not None:
                body.update(dimensions=self.dimensions, normalize=True)
            return body
        if self.family == "nova":
            return {"taskType": "SINGLE_EMBEDDING", "singleEmbeddingParams": {
                "embeddingPurpose": "GENERIC_INDEX",
                "embeddingDimension": self.dimensions or 1024,
                "text": {"truncationMode": "END", "value": text}}}
        if self.family == "twelvelabs":
            return {"inputType": "text", "text": {"inputText": text}}
        return {"inputText": text}

    def _invoke(self, body: dict[str, Any], timeout: float) -> Any:
        url = f"{self.base_url}/model/{quote(self.model, safe='')}/invoke"
        payload = json.dumps(body).encode("utf-8")
        return self._request_json("POST", url, content=payload,
                                  headers=self._signed_headers(url, payload), timeout=timeout)

    def _parse_single(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise malformed("Amazon Bedrock embedding response is not an object")
        if self.family == "nova":
            embs = data.get("embeddings")
            return embs[0].get("embedding") if isinstance(embs, list) and embs and \
                isinstance(embs[0], dict) else None
        if self.family == "twelvelabs":
            inner = data.get("data")
            if isinstance(inner, list) and inner and isinstance(inner[0], dict):
                return inner[0].get("embedding")
            if isinstance(inner, dict):
                return inner.get("embedding")
        return data.get("embedding")

    def _embed_request(self, texts: list[str], kind: str, timeout: float) -> Any:
        if self.family in ("cohere-v3", "cohere-v4"):
            data = self._invoke(self._body(texts, kind), timeout)
            embs = data.get("embeddings") if isinstance(data, dict) else None
            if self.family == "cohere-v4" and isinstance(embs, dict):
                embs = embs.get("float")
            if not isinstance(embs, list):
                raise malformed("Amazon Bedrock embedding response has no embeddings")
            return embs
        rows: list[Any] = []
        blanks: list[int] = []
        for i, text in enumerate(texts):
            if not text.strip():
                blanks.append(i)
                rows.append(None)
                continue
            rows.append(self._parse_single(self._invoke(self._body([text], kind), timeout)))
        if blanks:
            width = next((len(r) for r in rows if isinstance(r, list)), None) or self.dims
            for i in blanks:
                rows[i] = np.zeros(width).tolist()
        return rows

    def _vectors(self, rows: Any, n: int) -> np.ndarray:
        # zero rows (blank texts) stay zero through normalisation
        if isinstance(rows, list):
            rows = [r if not (isinstance(r, list) and r and not any(r)) else
                    [0.0] * len(r) for r in rows]
        return super()._vectors(rows, n)

    def embed_query(self, text: str) -> np.ndarray:
        if not str(text).strip():
            return np.zeros(self.dims, dtype=np.float32)
        return super().embed_query(text)
