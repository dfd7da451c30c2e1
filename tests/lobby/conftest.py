"""The lobby's tests share the Python starter kit, made once (tests/support/dial_in.py)."""

from tests.support.dial_in import dial_kit, python_kit, stop

__all__ = ["dial_kit", "python_kit", "stop"]
