"""A ladder at work: its bots added and started, its matches planned, played, rated, and its stop judged.

It imports of the ladder ``stats`` and ``storage``, never ``present`` or
``commands``, which import it. Two modules straddle floors and sit here for
what they need: ``folder`` opens the files, but adding a bot starts it to
read its identity; ``evidence`` and ``head_to_head`` are statistics, but read
from the store, for the ledger's stop and for the table.

* ``folder``        a ladder folder as a whole: init, open (one writer at a time), add, remove
* ``bots``          bot processes: launched, identified (Hello + file hash), never left behind
* ``bot_code``      which files are a bot's code, the files its version hash covers
* ``matchmaking``   who plays whom in which seats, deterministic given the state and a seed
* ``evidence``      one reading of the results for the table, the stop and the figures (ρ, β)
* ``head_to_head``  bot A against bot B, board by board: what ``waraq versus`` shows and stops on
* ``ledger``        what to plan next, and results rated in planned order (what makes runs resumable)
* ``scheduler``     ``run``: bots started once, matches played many at once, results committed
* ``planned_match`` one planned match played given its seats: the one path of a local run and of a Ray worker
* ``cluster``       ``--ray``: the option, its errors, and which scheduler plays (imports no Ray)
* ``ray_cluster``   the scheduler whose bots start and whose matches play on a Ray cluster (the one module with Ray)
* ``warm_bots``     a Ray worker's bot processes, kept across its matches as the local run keeps its own
"""
