"""The env-variable id grammar of secret references (``env`` in both layouts, 2026.9's
``store``) is checked in one place, whole-string as JavaScript's ``/^...$/`` does."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from memlab.config.memory_layout import BlockSecretRef
from memlab.config.types import SecretRef


@pytest.mark.parametrize("model,source", [(SecretRef, "env"), (BlockSecretRef, "env"),
                                          (BlockSecretRef, "store")])
def test_env_style_ids(model, source):
    ref = model.model_validate({"source": source, "provider": "default", "id": "OPENAI_API_KEY"})
    assert ref.id == "OPENAI_API_KEY"
    for bad in ("openai_api_key", "1KEY", "", "K" * 129, "OPENAI_API_KEY\n"):
        with pytest.raises(ValidationError, match=f"{source} secret reference id must match"):
            model.model_validate({"source": source, "provider": "default", "id": bad})


def test_store_is_a_2026_9_source_only():
    with pytest.raises(ValidationError):
        SecretRef.model_validate({"source": "store", "provider": "default", "id": "KEY"})


@pytest.mark.parametrize("ref,message", [
    ({"source": "env", "provider": "default\n", "id": "KEY"}, "provider must match"),
    ({"source": "exec", "provider": "default", "id": "vault/key\n"}, "exec secret reference id"),
])
def test_provider_alias_and_exec_id_are_whole_string(ref, message):
    """A trailing newline is not accepted (Python's ``$`` would match before it; JavaScript's
    ``/^...$/`` does not)."""
    ok = dict(ref, provider="default", id=ref["id"].rstrip("\n"))
    assert SecretRef.model_validate(ok).id == ok["id"]
    with pytest.raises(ValidationError, match=message):
        SecretRef.model_validate(ref)
