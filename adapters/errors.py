"""Errors raised by the adapters (standard library only)."""

from __future__ import annotations

from collections.abc import Sequence


class AdapterError(ValueError):
    """Raised when an export cannot be understood at all (not a scene, wrong format).

    Parameters
    ----------
    message : str
        What is wrong, naming the field and the value.
    path : sequence of str or int
        JSON path of the offending field inside the export, e.g. ``("walls", 3, "c")``;
        empty for the document as a whole.
    """

    def __init__(self, message: str, path: Sequence[str | int] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.path = tuple(path)

    def as_errors(self) -> dict:
        """Nested ``{"json": {...path...: [message]}}`` dict in the error shape of DESIGN.md."""
        node: object = [self.message]
        for key in reversed(self.path or ("_export",)):
            node = {str(key): node}
        return {"json": node}
