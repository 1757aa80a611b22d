"""Sightline: a headless rules service for virtual tabletops.

Importing ``service`` or its pure modules (``model``, ``geometry``, ``rules``) never pulls in
Flask: the web layer lives in ``service.app``, ``service.api`` and ``service.http_errors``.
"""

__version__ = "0.1.0"
