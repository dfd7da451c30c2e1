"""Whole numbers written as text: ASCII digits only.

``str.isdigit()`` is true of ``'²'`` and ``'٣'`` too: ``int('²')`` raises, and a port
spelled ``'٨٠٨٠'`` passes ``int()`` but not gRPC or a URL. So a number read from a
person, a header, a config or a file name is checked here before ``int()`` reads it.
"""

from __future__ import annotations


def ascii_digits(text: str) -> bool:
    """``text`` is one or more of 0-9 and nothing else."""
    return text.isascii() and text.isdigit()
