"""The secret behind a match's decks and its id: made here, never sent, never recorded.

A bot must learn nothing about cards it has not seen from anything it is sent
or can read. Without a secret it could: the decks follow from the seed
(:mod:`waraq.referee.games.dealers`), the seed is in every record and follows from
public arithmetic (``waraq match``'s seed + i, a ladder's seed × 1,000,000 +
deal), so trying seeds against its own hand finds all four hands in
milliseconds. So every match that seats a stranger's bot is dealt under a
*deal key*:

* :func:`dealing_seed` is what the dealers shuffle with: ``HMAC-SHA256(key,
  seed)``, a per-match secret. The key itself never enters a generator, so
  even a generator's whole seed, were it ever recovered from its shuffles,
  would give away that one match's decks and not the key.
* :func:`match_id` is the id the bots see: ``HMAC-SHA256(key, name)``,
  shortened. Opaque: without the key it cannot be traced to a seed or to the
  dealing seed (HMAC under another message), nor predicted for the next match.

Without a key (``""``: in-process play, tests, bots one trusts) the dealing
seed is the bare seed, as it always was, so pinned data and golden
playthroughs keep their decks. ``docs/security.md`` says what is secret,
where it is kept and why; ``ladder/storage/key_file.py`` keeps a ladder's key.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

KEY_BYTES = 32  # 256 bits: beyond any search, and the size of the HMAC's hash
KEY_DIGITS = (32, 128)  # a key given: at least 128 bits, as hex; made ones have 2 * KEY_BYTES digits
HEX_DIGITS = frozenset("0123456789abcdef")
ENVIRONMENT = "WARAQ_DEAL_KEY"  # where `waraq match` and `waraq versus` read a key fixed to play earlier deals again


def take_given_key(flag: str | None) -> str | None:
    """The key a command was given to play earlier deals again: its ``--deal-key`` ``flag``, else
    ``$WARAQ_DEAL_KEY`` (set but empty is not given); None when neither. The variable is removed
    from this process's environment either way, because launched bots inherit the environment and
    must not see it. A key given must be one :func:`new_key` could have made (:func:`checked_key`)."""
    from_environment = os.environ.pop(ENVIRONMENT, None)
    if flag is not None:
        return checked_key(flag, "--deal-key")
    if from_environment:
        return checked_key(from_environment, f"${ENVIRONMENT}")
    return None


def checked_key(text: str, source: str) -> str:
    """``text`` as a deal key, if it is as hard to guess as a key must be: 32 to 128 hex digits
    (128 to 512 bits), lower case as printed. A trailing line break (a key pasted or read from a file)
    is dropped; anything else is refused with a ValueError naming ``source`` (the option or variable),
    never quoting the key: a key mistyped is most of a key."""
    key = text.rstrip("\r\n")
    odd = next((c for c in key if c not in HEX_DIGITS), None)
    if odd is not None:
        problem = "holds whitespace" if odd.isspace() else f"holds {odd!r}, which is no lower-case hex digit"
    elif not KEY_DIGITS[0] <= len(key) <= KEY_DIGITS[1]:
        problem = f"is {len(key)} hex digit{'s' * (len(key) != 1)} long"
    else:
        return key
    low, high = KEY_DIGITS
    raise ValueError(
        f"{source} {problem}: a deal key is {low} to {high} hex digits (0-9, a-f), as `waraq match` prints one "
        f'or `python3 -c "import secrets; print(secrets.token_hex({KEY_BYTES}))"` makes one'
    )


def new_key() -> str:
    """A fresh key from the system's secure random source, as 64 hex digits."""
    return secrets.token_hex(KEY_BYTES)


def _mac(key: str, message: str) -> str:
    return hmac.new(key.encode(), message.encode(), hashlib.sha256).hexdigest()


def dealing_seed(seed: int, key: str) -> int | str:
    """What the dealers shuffle a match of ``seed`` with: the seed itself without a key,
    else a secret of the key and the seed (the same for the same two: a duplicate
    deal's matches share their seed, so they share their decks)."""
    if not key:
        return seed
    return "k-" + _mac(key, f"waraq-deal/{seed}")


def run_match_id(seed: int, key: str = "") -> str:
    """The id the bots see for ``waraq match``'s match ``seed``: the same for the same seed and key.

    Bots get it in every message (the sample bots seed their own choices from
    it). With a deal key it is opaque (:func:`match_id`). Without one it is a
    hash of the seed, which a bot can search; but then the decks follow from the
    seed anyway, so keyless runs are for bots one trusts (tests and the research
    environments play the same matches in-process under these ids).
    """
    if key:
        return match_id(key, f"match/{seed}")
    return "m-" + hashlib.sha256(f"waraq-match//{seed}".encode()).hexdigest()[:16]


def match_id(key: str, name: str) -> str:
    """The id of the match ``name`` (unique under this key: ``"match/7"``, ``"ladder/12"``),
    as the bots see it: ``m-`` and 16 hex digits, which say nothing without the key."""
    if not key:
        raise ValueError(f"match {name!r}: an opaque match id needs a deal key, and none was given")
    return "m-" + _mac(key, f"waraq-match/{name}")[:16]
