"""Signatures on thinking blocks, as the API puts one on every thinking block it sends.

The real API signs each thinking block and refuses one that comes back without
its signature (`...thinking.signature: Field required`) or changed under it
(``messages.N.content.M: Invalid `signature` in `thinking` block``). The sandbox
signs with a keyed hash of the thinking text: a script may leave the signature
out and the FakeModel derives it; a signature a script does give (a recorded
real run's, say) is trusted for exactly that text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from typing import Any

# Not a secret: the signature only has to change when the text does, as the API's does.
_KEY = b"loop-sandbox thinking signature"


def sign(thinking: str) -> str:
    """The signature the sandbox gives a thinking block with this text."""
    digest = hmac.new(_KEY, thinking.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def signed(block: dict[str, Any]) -> dict[str, Any]:
    """The block with its signature: a thinking block without one gets the derived one."""
    if block.get("type") == "thinking" and "signature" not in block and isinstance(block.get("thinking"), str):
        return {**block, "signature": sign(block["thinking"])}
    return block


def _decoded(signature: str) -> bytes | None:
    try:
        return base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return None


def well_formed(signature: str) -> bool:
    """Whether a signature is what the API issues: non-empty base64."""
    return bool(signature) and _decoded(signature) is not None


def issued_here(signature: str) -> bool:
    """Whether a signature has the sandbox's form (a keyed hash: 32 bytes); the API's are far longer."""
    decoded = _decoded(signature)
    return decoded is not None and len(decoded) == hashlib.sha256().digest_size
