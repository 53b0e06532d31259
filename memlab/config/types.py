"""Shared building blocks of the config models: OpenClaw's constants (version, providers, default
models), the strict pydantic base model, field types and secret inputs.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    SecretStr,
    Tag,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from memlab.lines import detected_line
from memlab.secrets import SENSITIVE_NAME

#: The OpenClaw release whose schema and defaults these models mirror.
OPENCLAW_VERSION = detected_line("memorySearch").release
#: Built-in memory embedding provider ids (reference section 7). OpenClaw's schema accepts any
#: string: plugin providers and ``models.providers`` entries are valid ids too.
KNOWN_PROVIDERS: tuple[str, ...] = (
    "openai", "gemini", "voyage", "mistral", "deepinfra", "bedrock", "github-copilot",
    "local", "ollama", "lmstudio", "openai-compatible", "none", "auto",
)
#: Adapter default models (reference section 7); ``model`` unset falls back to these.
DEFAULT_MODELS: dict[str, str] = {
    "openai": "text-embedding-3-small",
    "gemini": "gemini-embedding-001",
    "voyage": "voyage-4-large",
    "mistral": "mistral-embed",
    "deepinfra": "BAAI/bge-m3",
    "bedrock": "amazon.titan-embed-text-v2:0",
    "local": "hf:ggml-org/embeddinggemma-300m-qat-q8_0-GGUF/embeddinggemma-300m-qat-Q8_0.gguf",
    "ollama": "nomic-embed-text",
    "lmstudio": "text-embedding-nomic-embed-text-v1.5",
}
#: Snowball stemmers (PyStemmer's ``Stemmer.algorithms()``) accepted by ``memlab.tokenizer``.
STEMMERS: tuple[str, ...] = (
    "arabic", "armenian", "basque", "catalan", "czech", "danish", "dutch", "dutch_porter",
    "english", "esperanto", "estonian", "finnish", "french", "german", "greek", "hindi",
    "hungarian", "indonesian", "irish", "italian", "lithuanian", "nepali", "norwegian",
    "persian", "polish", "porter", "portuguese", "romanian", "russian", "serbian", "sesotho",
    "spanish", "swedish", "tamil", "turkish", "yiddish",
)
_MAX_SAFE_INTEGER = 2**53 - 1
MAX_TIMER_TIMEOUT_MS = 2_147_000_000
DEFAULT_VECTOR_WEIGHT = 0.7
DEFAULT_TEXT_WEIGHT = 0.3
MAX_CANDIDATES = 200
MAX_CANDIDATE_MULTIPLIER = 20
DEFAULT_AGENT_ID = "main"
SECRET_PLACEHOLDER = "<set; not written: secrets are never dumped>"
#: Header names whose values are treated as secrets: the one list of :mod:`memlab.secrets`
#: (the providers use it too).
SENSITIVE_HEADER = SENSITIVE_NAME


def _no_null(value: Any) -> Any:
    if value is None:
        raise PydanticCustomError(
            "null", "null is not allowed here; omit the key to use the default")
    return value


def _integral(value: Any) -> Any:
    """zod's ``number().int()``: integral floats (``4.0``, ``1e3``) are integers; bools are not."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _MAX_SAFE_INTEGER:
        raise PydanticCustomError("safe_int", "must be a safe integer (at most 2^53-1 in size)")
    return value


def _context_size(value: Any) -> Any:
    value = _integral(value)
    if value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
        return value
    raise PydanticCustomError("context_size", 'expected a positive integer or "auto"')


NoNull = BeforeValidator(_no_null)
Integral = BeforeValidator(_integral)
PosInt = Annotated[int, Integral, Field(gt=0)]
NonNegInt = Annotated[int, Integral, Field(ge=0)]
Unit = Annotated[float, Field(ge=0, le=1)]
NonEmptyStr = Annotated[str, Field(min_length=1)]
ContextSize = Annotated[int | Literal["auto"], BeforeValidator(_context_size)]
_SECRET_TEXT_TAG = "__secret_text__"
_SECRET_REF_TAG = "__secret_ref__"
UNION_TAGS = frozenset({_SECRET_TEXT_TAG, _SECRET_REF_TAG})


def _secret_input_tag(value: Any) -> str | None:
    if isinstance(value, str | SecretStr):
        return _SECRET_TEXT_TAG
    if isinstance(value, dict | SecretRef):
        return _SECRET_REF_TAG
    return None


class StrictModel(BaseModel):
    """Strict, camelCase-aliased, unknown keys forbidden (zod ``.strict()``)."""

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        populate_by_name=True,
        allow_inf_nan=False,
        validate_assignment=True,
        hide_input_in_errors=True,
    )


_ENV_ID = re.compile(r"^[A-Z][A-Z0-9_]{0,127}$")
_PROVIDER_ALIAS = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")
_EXEC_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/#-]{0,255}$")
_FILE_SEGMENT = re.compile(r"^(?:[^~]|~0|~1)*$")


def check_env_style_id(ref_id: str, source: str) -> None:
    """Raise OpenClaw's ``secret_ref`` error unless ``ref_id`` is an environment-variable
    name, ``/^[A-Z][A-Z0-9_]{0,127}$/`` (the id grammar of ``env`` references, and of
    2026.9's ``store`` ones); ``source`` names the reference kind in the message. The whole
    id must match, as in JavaScript (no trailing newline).

    >>> check_env_style_id("OPENAI_API_KEY", "env")
    >>> check_env_style_id("openai_api_key", "store")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pydantic_core...PydanticCustomError: store secret reference id must match /^[A-Z]...
    """
    if not _ENV_ID.fullmatch(ref_id):
        raise PydanticCustomError(
            "secret_ref", f"{source} secret reference id must match "
            '/^[A-Z][A-Z0-9_]{0,127}$/ (example: "OPENAI_API_KEY")')


class SecretRef(StrictModel):
    """A secret reference, e.g. ``{source: "env", provider: "default", id: "OPENAI_API_KEY"}``.

    It names where the secret lives, not the secret, so it is written by :func:`dump_config`.
    """

    source: Literal["env", "file", "exec"]
    provider: str
    id: str

    @field_validator("provider")
    @classmethod
    def _provider_alias(cls, value: str) -> str:
        if not _PROVIDER_ALIAS.fullmatch(value):
            raise PydanticCustomError(
                "secret_ref", 'secret reference provider must match /^[a-z][a-z0-9_-]{0,63}$/ '
                '(example: "default")')
        return value

    @model_validator(mode="after")
    def _id_grammar(self) -> SecretRef:
        if self.source == "env":
            check_env_style_id(self.id, "env")
        if self.source == "file" and not (
                self.id == "value" or (self.id.startswith("/") and all(
                    _FILE_SEGMENT.fullmatch(s) for s in self.id[1:].split("/")))):
            raise PydanticCustomError(
                "secret_ref", "file secret reference id must be an absolute JSON pointer "
                '(example: "/providers/openai/apiKey") or "value"')
        if self.source == "exec" and (not _EXEC_ID.fullmatch(self.id) or any(
                s in (".", "..") for s in self.id.split("/"))):
            raise PydanticCustomError(
                "secret_ref", "exec secret reference id must match "
                "/^[A-Za-z0-9][A-Za-z0-9._:/#-]{0,255}$/ without '.' or '..' segments")
        return self


SecretInput = Annotated[
    Annotated[SecretStr, Tag(_SECRET_TEXT_TAG)] | Annotated[SecretRef, Tag(_SECRET_REF_TAG)],
    Discriminator(_secret_input_tag, custom_error_type="secret_input",
                  custom_error_message="expected a string or a secret reference object "
                                       "{source, provider, id}"),
]


def model_to_raw(model: BaseModel) -> dict[str, Any]:
    """The explicitly set keys of ``model`` by alias, secrets kept (for re-validation)."""
    out: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        if name not in model.model_fields_set or info.exclude:
            continue
        value = getattr(model, name)
        key = info.alias or name
        if isinstance(value, BaseModel):
            out[key] = model_to_raw(value)
        elif isinstance(value, list):
            out[key] = [model_to_raw(v) if isinstance(v, BaseModel) else v for v in value]
        elif isinstance(value, dict):
            out[key] = dict(value)
        elif value is not None:
            out[key] = value
    return out
