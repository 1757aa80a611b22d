"""The client's transport: a ``requests`` session that retries what is safe to retry.

Every endpoint of the API is a pure function of its request, so a request that could not
connect, whose connection dropped before an answer, or that answered 502, 503 or 504 is sent
again (urllib3 ``Retry``, exponential backoff); a read timeout is not (the server may still
be working on it).

Only ``requests``, ``urllib3`` and the standard library are imported.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Self

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ReadTimeoutError
from urllib3.util.retry import Retry

if TYPE_CHECKING:
    from urllib3.connectionpool import ConnectionPool
    from urllib3.response import BaseHTTPResponse

__all__ = ["RETRY_STATUSES", "PureRetry", "retrying_session"]

#: Answers retried: a proxy or load balancer that could not reach a worker (gateway errors).
RETRY_STATUSES = (502, 503, 504)


class PureRetry(Retry):
    """urllib3 ``Retry`` that never retries a read timeout.

    A connection refused, reset or dropped before the answer is retried; a server that
    is still working when ``timeout`` runs out is not asked again (that would multiply
    the work), and the client reports a timeout.
    """

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Self:
        """Raise a read timeout as it is; anything else counts as urllib3's ``Retry`` does."""
        if isinstance(error, ReadTimeoutError):
            raise error
        return super().increment(method, url, response, error, _pool, _stacktrace)


def retrying_session(retries: int, backoff: float) -> requests.Session:
    """A ``requests.Session`` whose HTTP and HTTPS requests retry with urllib3 ``Retry``.

    Parameters
    ----------
    retries : int
        Retries after a connection error, a connection dropped before the answer, or a
        502/503/504 answer (then the last answer is returned, not an exception); 0: none.
        A read timeout is not retried (:class:`PureRetry`).
    backoff : float
        urllib3's ``backoff_factor``: seconds before the first retry, doubling after.

    Returns
    -------
    requests.Session
    """
    retry = PureRetry(
        total=retries,
        connect=retries,
        read=retries,
        status=retries,
        other=0,
        allowed_methods=frozenset({"GET", "POST"}),  # pure endpoints: POST is safe to repeat
        status_forcelist=RETRY_STATUSES,
        backoff_factor=backoff,
        raise_on_status=False,
        respect_retry_after_header=True,
    )
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session
