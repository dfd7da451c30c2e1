"""Fixtures for the submission tests: ``small_disk``, a real full disk (:mod:`tests.support.small_disk`)."""

from tests.support.small_disk import small_disk  # noqa: F401 - a fixture, offered to this folder's tests
