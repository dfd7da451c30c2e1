"""The TrueSkill ladder: many matches between bots, rated, resumable, with duplicate deals.

A ladder is a folder (``ladder.toml``, ``ladder.sqlite``, ``records/``). The
modules, each with one job; data flows ladder -> referee, never back:

* ``config``      ladder.toml: read, checked key by key, written
* ``store``       the SQLite schema and its transactions (WAL: ``show`` reads while ``run`` writes)
* ``ratings``     pure TrueSkill: sides, ranks, new ratings from old ones
* ``matchmaking`` pure: who plays whom in which seats, deterministic given the state and a seed
* ``ledger``      what to plan next, and results rated in planned order (what makes runs resumable)
* ``bots``        bot processes: launched, identified (Hello + file hash), never left behind
* ``scheduler``   ``run``: bots started once, matches played many at once, results committed
* ``folder``      a ladder folder as a whole: init, open (one writer at a time), add, remove
* ``board``       the table, head to head, exports; ``live``: the live view of a run
* ``cli``         ``waraq ladder ...``, registered through the ``waraq.commands`` entry point
"""
