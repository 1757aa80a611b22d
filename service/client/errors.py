"""The errors of the Python client: :class:`SightlineError` and how it is read.

An error answer of the API (``{"code", "status", "message", "errors"}``, ``shared/API.md``
"Errors") or no answer at all (connection refused, timeout) becomes one
:class:`SightlineError`; :func:`error_lines` flattens its field paths for the command line.

Only ``requests``, ``urllib3`` and the standard library are imported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import requests
from urllib3.exceptions import MaxRetryError, ProtocolError

__all__ = ["SightlineError", "connection_reason", "error_from_response", "error_lines"]


class SightlineError(Exception):
    """Raised when a request fails: an error answer of the API, or no answer at all.

    Parameters
    ----------
    code : int
        HTTP status code of the answer; 0 when the server could not be reached (connection
        refused, DNS failure, timeout) or the answer was not HTTP.
    status : str
        HTTP reason phrase (``"Unprocessable Entity"``), or ``"Connection error"`` /
        ``"Timeout"`` when ``code`` is 0.
    message : str
        What went wrong, from the error body's ``message``.
    errors : dict
        The error body's ``errors`` (``{"json": {...field path...: [messages]}}``); ``{}``
        when no field is to blame.
    """

    def __init__(
        self, code: int, status: str, message: str, errors: Mapping[str, Any] | None = None
    ) -> None:
        self.code = code
        self.status = status
        self.message = message
        self.errors: dict[str, Any] = dict(errors or {})
        super().__init__(self.describe())

    def describe(self) -> str:
        """One line: code, status, message and the first offending field path.

        Returns
        -------
        str
            E.g. ``"422 Unprocessable Entity: The scene is invalid. (scene.walls.3.c:
            Length must be 4.)"``.
        """
        head = self.status if self.code == 0 else f"{self.code} {self.status}"
        text = f"{head}: {self.message}"
        details = [(p, m) for p, m in error_lines(self.errors) if p or m != self.message]
        if details:
            path, msg = details[0]
            more = f"; +{len(details) - 1} more" if len(details) > 1 else ""
            if msg == self.message:
                text += f" (at {path}{more})"
            else:
                text += f" ({path + ': ' if path else ''}{msg}{more})"
        return " ".join(text.split())

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.status, self.message, self.errors))


def error_lines(errors: Mapping[str, Any] | Sequence[Any] | str) -> list[tuple[str, str]]:
    """Flatten a nested error dict into ``(dotted path, message)`` pairs.

    Parameters
    ----------
    errors : dict, list or str
        The ``errors`` of an error body, or marshmallow's ``ValidationError.messages``:
        nested dicts whose leaves are lists of messages. A leading ``"json"`` or
        ``"query"`` key (the request location) is left out of the path.

    Returns
    -------
    list of (str, str)
        E.g. ``[("scene.walls.3.c", "Length must be 4.")]``, in document order.
    """
    out: list[tuple[str, str]] = []

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                walk(value, (*path, str(key)))
        elif isinstance(node, list | tuple):
            for item in node:
                walk(item, path)
        else:
            out.append((".".join(path), str(node)))

    if isinstance(errors, Mapping) and set(errors) <= {"json", "query", "form", "headers"}:
        for value in errors.values():
            walk(value, ())
    else:
        walk(errors, ())
    return out


def connection_reason(err: BaseException) -> str:
    """The innermost cause of a connection error, in a few words (``"Connection refused"``).

    Walks the exception types: requests' error -> urllib3 ``MaxRetryError.reason`` ->
    ``ProtocolError``'s exception or the ``__cause__`` chain -> the ``OSError`` and its
    ``strerror``; never parses reprs.
    """
    node: BaseException = err
    seen: set[int] = set()
    while id(node) not in seen:
        seen.add(id(node))
        if isinstance(node, OSError) and node.strerror:
            return node.strerror  # ConnectionRefusedError, socket.gaierror ...
        nxt: object = None
        if isinstance(node, MaxRetryError):
            nxt = node.reason
        elif isinstance(node, ProtocolError) and len(node.args) > 1:
            nxt = node.args[1]  # ("Connection aborted.", RemoteDisconnected(...))
        elif isinstance(node, requests.RequestException) and node.args:
            nxt = node.args[0]
        if not isinstance(nxt, BaseException):
            nxt = node.__cause__ or node.__context__
        if nxt is None:
            break
        node = nxt
    if isinstance(node, OSError) and not node.strerror and node.args:
        return str(node.args[0])  # RemoteDisconnected("Remote end closed connection ...")
    return type(node).__name__


def error_from_response(resp: requests.Response) -> SightlineError:
    """A :class:`SightlineError` from a non-2xx answer (JSON error body or not)."""
    reason = resp.reason or "Error"
    try:
        body = resp.json()
    except ValueError:
        body = None
    if isinstance(body, Mapping) and "message" in body:
        errors = body.get("errors")
        return SightlineError(
            int(body.get("code") or resp.status_code),
            str(body.get("status") or reason),
            str(body["message"]),
            errors if isinstance(errors, Mapping) else {},
        )
    text = " ".join(resp.text.split())[:200] or reason
    return SightlineError(resp.status_code, reason, text)
