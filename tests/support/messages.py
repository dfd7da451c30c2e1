"""Walks over a protobuf message's fields: what the hiding tests look for in every request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def string_lists(message: Any) -> Iterator[list[str]]:
    """Every string field of a message and its sub-messages, each as a list."""
    for field, value in message.ListFields():
        if field.type == field.TYPE_MESSAGE:
            for item in value if field.is_repeated else [value]:
                yield from string_lists(item)
        elif field.type == field.TYPE_STRING:
            yield list(value) if field.is_repeated else [value]


def numbers(message: Any) -> Iterator[int | float]:
    """Every number field of a message and its sub-messages (bools left out)."""
    for field, value in message.ListFields():
        if field.type == field.TYPE_MESSAGE:
            for item in value if field.is_repeated else [value]:
                yield from numbers(item)
        elif field.type not in (field.TYPE_STRING, field.TYPE_BOOL):
            yield from value if field.is_repeated else [value]
