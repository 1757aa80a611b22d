"""SVG elements: building them with every text and attribute made XML-safe, and numbers.

The picture is built with :mod:`xml.etree.ElementTree`, which escapes every text and
attribute (token names, ids); characters XML 1.0 cannot hold are dropped (:func:`xml_text`).
Coordinates are written with at most 2 decimals (:func:`num`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping

SVG_NS = "http://www.w3.org/2000/svg"

# Characters that XML 1.0 cannot represent (control characters, lone surrogates, U+FFFE/F).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: object) -> str:
    """``text`` as a string XML can hold (invalid characters dropped)."""
    return _NOT_XML.sub("", str(text))


def num(value: float) -> str:
    """A coordinate for an attribute: at most 2 decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def sub(parent: ET.Element, tag: str, attrs: Mapping[str, object] | None = None) -> ET.Element:
    """Append ``<tag>`` to ``parent`` with ``attrs`` (values cleaned; None left out)."""
    clean = {k: xml_text(v) for k, v in (attrs or {}).items() if v is not None}
    return ET.SubElement(parent, tag, clean)
