"""Short-lived signed download links, so that a browser's plain ``<a href>`` needs no API token in the URL.

A link is ``?link=<token id>.<expiry>.<signature>`` on the download route: the signature is an HMAC-SHA256
of the version id and the expiry, keyed with the *stored hash* of the API token that asked for it. The
hash never leaves the server, so nobody can mint a link without a token; no extra server secret has to be
configured or shared between API replicas; and revoking the token voids its links at once.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from xmd.users import service as users_service
from xmd.users.models import ApiToken, User

LINK_TTL_S = 300
"""How long a link works: long enough to start a download, short enough that a copied link goes stale."""


def _signature(token_hash: str, version_id: int, expires: int) -> str:
    return hmac.new(token_hash.encode(), f"download:{version_id}:{expires}".encode(), hashlib.sha256).hexdigest()


def make(token: ApiToken, version_id: int, *, now: float | None = None) -> tuple[str, int]:
    """``(link value, expiry as a Unix time)`` for downloading ``version_id`` with ``token``'s rights."""
    expires = int(now if now is not None else time.time()) + LINK_TTL_S
    return f"{token.id}.{expires}.{_signature(token.token_hash, version_id, expires)}", expires


def _digits(text: str, most: int) -> bool:
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def verify(db_session: Session, version_id: int, link: str, *, now: float | None = None) -> User | None:
    """The user a link was made for, or None if it is malformed, expired, for another version, or its
    token is revoked."""
    parts = link.split(".")
    # Bounded runs of ASCII digits: a 1,000-digit id would overflow the database's integer before any
    # check, and str.isdigit() also takes "²", which int() refuses.
    if len(parts) != 3 or not (_digits(parts[0], 18) and _digits(parts[1], 12)):
        return None
    token_id, expires, sig = int(parts[0]), int(parts[1]), parts[2]
    if expires < (now if now is not None else time.time()):
        return None
    token = db_session.scalars(select(ApiToken).where(ApiToken.id == token_id, users_service.usable())).one_or_none()
    if token is None or not hmac.compare_digest(sig, _signature(token.token_hash, version_id, expires)):
        return None
    return db_session.get(User, token.user_id)
