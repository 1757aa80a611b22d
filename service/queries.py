"""Absorbed into :mod:`service.operations` (issue 13); only a re-export remains.

``service.matrix`` (owned elsewhere, being moved to ``service.engine``) still imports
``find_token`` from here inside a function. Delete this module once it imports
``service.operations.find_token`` (or the engine's own token lookup).
"""

from service.operations import find_token

__all__ = ["find_token"]
