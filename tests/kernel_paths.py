"""The compiled measurement or its numpy oracle (``tests/reference``), for a block of a test."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from tests.reference.trace import reference_paths


@contextmanager
def kernel_mode(mode: str) -> Iterator[None]:
    """``"numpy"``: the oracle's steps in place of the compiled ones; ``"kernel"``: as is."""
    assert mode in ("numpy", "kernel"), mode
    with reference_paths() if mode == "numpy" else nullcontext():
        yield
