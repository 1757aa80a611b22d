"""The compiled kernel or the numpy reference path, for a block of a test (issue 20)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def kernel_mode(mode: str) -> Iterator[None]:
    """``SIGHTLINE_KERNEL=mode`` (``"numpy"`` or ``"kernel"``) for the block, then as before."""
    old = os.environ.get("SIGHTLINE_KERNEL")
    os.environ["SIGHTLINE_KERNEL"] = mode
    try:
        yield
    finally:
        if old is None:
            del os.environ["SIGHTLINE_KERNEL"]
        else:
            os.environ["SIGHTLINE_KERNEL"] = old
