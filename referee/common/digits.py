"""Whole numbers written as text: 1 to 18 ASCII digits.

``str.isdigit()`` is true of ``'²'`` and ``'٣'`` too: ``int('²')`` raises, and a port
spelled ``'٨٠٨٠'`` passes ``int()`` but not gRPC or a URL. And ``int()`` refuses more
than 4,300 digits, SQLite more than 2**63. So a number read from a person, a header,
a config or a file name is checked here before ``int()`` reads it.
"""

from __future__ import annotations

MOST_DIGITS = 18  # below 2**63: every count, size, id and port typed here is far smaller


def ascii_digits(text: str) -> bool:
    """``text`` is 1 to :data:`MOST_DIGITS` of 0-9 and nothing else."""
    return 0 < len(text) <= MOST_DIGITS and text.isascii() and text.isdigit()
