"""The Hugging Face Hub's failures in words (a push of a model or of a feedback dataset): a token that was
rejected or may not write, a Hub that did not answer, never the client's exception class or a traceback."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager

from xmd.core.types import XMDError


class HubError(XMDError):
    """A push failed for a reason the user can fix (token, permissions, repo name, endpoint)."""


def explain_http_error(exc: Exception, endpoint: str) -> HubError:
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status == 401:
        return HubError(
            f"the Hugging Face token was rejected by {endpoint} (HTTP 401): give a valid token with write access "
            f"(in the push request, or HF_TOKEN on the worker); nothing was pushed"
        )
    if status == 403:
        return HubError(
            f"the Hugging Face token may not write to this repository at {endpoint} (HTTP 403); nothing was pushed"
        )
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return HubError(f"push to {endpoint} failed ({status or 'no response'}): {first}")


def unreachable_errors() -> tuple[type[BaseException], ...]:
    """What the Hub client raises when a request gets no answer at all (refused, DNS, TLS, timeout):
    ``OSError``, and the transport errors of the HTTP library ``huggingface_hub`` uses (``httpx2`` in
    huggingface_hub 1.x and later, ``httpx``), none of which is an ``OSError``."""
    found: list[type[BaseException]] = [OSError]
    for name in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(name).TransportError)
        except (ImportError, AttributeError):
            continue
    return tuple(found)


def unreachable(exc: BaseException, endpoint: str) -> HubError:
    """The push error for a Hub that did not answer: in words, never the client's exception class."""
    kind = type(exc).__name__.lower()
    if kind == "offlinemodeisenabled":  # huggingface_hub refuses every request under HF_HUB_OFFLINE
        return HubError(
            "the Hugging Face Hub is switched off for this worker (HF_HUB_OFFLINE is set), so nothing was "
            "pushed: unset HF_HUB_OFFLINE for the worker and restart it to push"
        )
    if "timeout" in kind:
        why = "it did not answer in time"
    elif "ssl" in kind or "certificate" in str(exc).lower():
        why = "its TLS certificate was not accepted"
    elif "name" in str(exc).lower() and "resolution" in str(exc).lower():
        why = "its name does not resolve"
    else:
        why = "the connection was refused or cut"
    return HubError(
        f"could not reach the Hugging Face Hub at {endpoint} ({why}); nothing was pushed. Check this "
        "server's network (or HF_ENDPOINT) and push again"
    )


@contextmanager
def in_words(endpoint: str, repo_id: str) -> Iterator[None]:
    """Turn the Hub client's failures inside the block into a :class:`HubError` that says what to do
    (a bad repo id, a rejected token, a Hub that did not answer); one place for every kind of push."""
    from huggingface_hub.errors import HfHubHTTPError, HFValidationError

    try:
        yield
    except HFValidationError as exc:
        raise HubError(f"invalid repository id {repo_id!r}: {exc}") from None
    except HfHubHTTPError as exc:
        raise explain_http_error(exc, endpoint) from None
    except unreachable_errors() as exc:  # refused, DNS, TLS, timeout: the endpoint did not answer
        raise unreachable(exc, endpoint) from None
