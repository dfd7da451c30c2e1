"""The web's secrets: passwords, tokens, signed cookies, CSRF values; and the server key they are signed with.

* **Passwords** are hashed with scrypt (the standard library's, memory-hard):
  2^15 rounds of 8 blocks, 32 MiB and some 100 ms a guess, so a stolen
  database costs a guesser that for every guess of every password. The hash
  carries its parameters, so stronger ones later still verify the old.
* **Tokens** (invites, sessions, API tokens) are 256 random bits; the database
  keeps only their SHA-256, as the lobby keeps dial-in tokens
  (:mod:`waraq.referee.lobby.tokens`): a copy of the database opens nothing.
* **A session cookie** is its token and an HMAC of it under the server key, so
  a forged or truncated cookie is refused before the database is asked.
* **A CSRF value** is an HMAC of the session's token under the server key: a
  page's form carries it, and a request from another site cannot know it.
* **The server key** is ``serve.key`` in the ladder folder (0600), made at the
  first start. The sandbox hides the whole ladder folder from every bot.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from pathlib import Path

SERVER_KEY = "serve.key"
SCRYPT_N, SCRYPT_R, SCRYPT_P = 1 << 15, 8, 1
SCRYPT_MAXMEM = 64 << 20  # 128 * r * n = 32 MiB, and room for the library's own
HASH_BYTES = 32
MIN_PASSWORD = 10
MAX_PASSWORD = 1024  # scrypt reads it all: a megabyte of "password" would be a free CPU burner


class ServerKeyError(RuntimeError):
    """The server key cannot be read or made: the message names the file."""


def hash_password(password: str) -> str:
    """``scrypt$N$r$p$salt$hash``, the salt and hash in URL-safe base64."""
    salt = os.urandom(16)
    digest = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, stored: str | None) -> bool:
    """Whether ``password`` is the one ``stored`` was made from; a person without a password has none."""
    if stored is None:
        _scrypt(password, b"no such password", SCRYPT_N, SCRYPT_R, SCRYPT_P)  # the same time as a real one
        return False
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        assert kind == "scrypt"
        found = _scrypt(password, _unb64(salt), int(n), int(r), int(p))
    except (ValueError, AssertionError):
        return False
    return hmac.compare_digest(found, _unb64(digest))


def password_problem(password: str) -> str | None:
    """Why a new password is refused, or None."""
    if len(password) < MIN_PASSWORD:
        return f"a password has at least {MIN_PASSWORD} characters"
    if len(password) > MAX_PASSWORD:
        return f"a password has at most {MAX_PASSWORD} characters"
    return None


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    data = password.encode("utf-8", "surrogatepass")[: MAX_PASSWORD * 4]
    return hashlib.scrypt(data, salt=salt, n=n, r=r, p=p, maxmem=SCRYPT_MAXMEM, dklen=HASH_BYTES)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def sign(key: bytes, token: str) -> str:
    """``token.signature``: what a session cookie holds."""
    return f"{token}.{_mac(key, 'session', token)}"


def unsign(key: bytes, cookie: str) -> str | None:
    """The token of a cookie ``sign`` made under ``key``; None for anything else."""
    token, _, signature = cookie.rpartition(".")
    if not token or not hmac.compare_digest(signature, _mac(key, "session", token)):
        return None
    return token


def csrf_value(key: bytes, session_token: str) -> str:
    """The value a session's forms carry: only a page of this server, shown to this session, has it."""
    return _mac(key, "csrf", session_token)


def csrf_ok(key: bytes, session_token: str, given: str) -> bool:
    return hmac.compare_digest(given.encode(), csrf_value(key, session_token).encode())


def _mac(key: bytes, purpose: str, value: str) -> str:
    # The purpose is part of the message: a CSRF value is never a valid signature, nor the other way.
    return _b64(hmac.new(key, f"{purpose}:{value}".encode(), hashlib.sha256).digest())


def server_key(folder: Path) -> bytes:
    """The ladder's server key, made (0600, written whole or not at all) at the first start."""
    path = folder / SERVER_KEY
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    except OSError as error:
        raise ServerKeyError(f"{path}: cannot read the server key: {error.strerror}") from None
    if data:
        if len(data) < 32:
            raise ServerKeyError(f"{path} is not a server key (too short): remove it and a new one is made")
        return data
    made = os.urandom(32)
    temporary = path.with_name(path.name + ".new")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(made)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise ServerKeyError(f"{path}: cannot write the server key: {error.strerror}") from None
    return made


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
