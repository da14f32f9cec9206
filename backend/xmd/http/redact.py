"""Secrets out of log lines: query parameters that authenticate (``token``, ``link``) are replaced.

The parameter *name* is compared after percent-decoding, because the server decodes it before use:
``?%74oken=…`` authenticates exactly like ``?token=…`` and must be redacted like it.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

SECRET_PARAMS = frozenset({"token", "link"})
_PARAM = re.compile(r"(?P<lead>^|[?&;\s\"])(?P<name>[^=&;\s\"?]+)=(?P<value>[^&;\s\"]*)")


def _redact(m: re.Match[str]) -> str:
    name = m["name"]
    decoded = unquote_plus(unquote_plus(name))  # twice: a name encoded twice decodes to the same secret name
    if decoded.strip().lower() not in SECRET_PARAMS:
        return m.group(0)
    return f"{m['lead']}{name}=***"


def redact_url_secrets(text: str) -> str:
    """``text`` with the value of every secret query parameter replaced by ``***``."""
    return _PARAM.sub(_redact, text)
