"""The ladder: many matches between bots on duplicate boards, rated, resumable, and stopped honestly.

A ladder is a folder (``ladder.toml``, ``ladder.sqlite``, ``records/``). The
modules, each with one job; data flows ladder -> referee, never back:

* ``config``      ladder.toml: read, checked key by key, written
* ``store``       the SQLite schema and its transactions (WAL: ``show`` reads while ``run`` writes)
* ``ratings``     pure TrueSkill: sides, ranks, new ratings from old ones
* ``boards``      pure: the matches of one deal as a board, its paired outcome and comparisons
* ``strength``    pure: the batch rating (Bradley-Terry in Elo, a team the sum of its bots), boards as clusters
* ``sequential``  pure: the stopping rule, anytime-valid over looks and pairs, that knows a tie
* ``sprt``        pure: the head to head's statistics (paired score, Elo, LOS, the SPRT on boards)
* ``evidence``    one reading of the results for the table, the stop and the figures (ρ, β)
* ``matchmaking`` pure: who plays whom in which seats, deterministic given the state and a seed
* ``design``      pure: what a board would tell the stopping rule about its open links (the variance removed)
* ``dense``       pure: the small dense linear algebra the fits and the design share
* ``ledger``      what to plan next, and results rated in planned order (what makes runs resumable)
* ``bots``        bot processes: launched, identified (Hello + file hash), never left behind
* ``scheduler``   ``run``: bots started once, matches played many at once, results committed
* ``planned_match`` one planned match played given its seats: the one path of a local run and of a Ray worker
* ``cluster``     ``--ray``: the option, its errors, and which scheduler plays (imports no Ray)
* ``ray_cluster`` the scheduler whose bots start and whose matches play on a Ray cluster (the one module with Ray)
* ``folder``      a ladder folder as a whole: init, open (one writer at a time), add, remove
* ``table``       the leaderboard, head to head, exports; ``live``: the live view of a run
* ``report``      ``ladder report``'s data: standings, ratings over time, head to head, faults, matches
* ``report_html`` the report as one self-contained page; ``svg``: its inline plots; ``plot``: ``show --plot``
* ``head_to_head``  bot A against bot B, board by board: what ``waraq versus`` shows and stops on
* ``cli``         ``waraq ladder ...``, registered through the ``waraq.commands`` entry point
* ``versus``      ``waraq versus A B``: a ladder of two bots played until its test decides
"""
