"""The ladder's statistics: pure functions of results, no database, no files, no clock.

It imports nothing of the ladder's other floors, of the referee only its
games (a board's dealer), and no module of files, processes or clocks; every
other floor may import it. What it reads of a played
match it names as a Protocol (``boards.Result``), which the store's rows meet.

* ``ratings``     TrueSkill: sides, ranks, new ratings from old ones
* ``boards``      the matches of one deal as a board, its paired outcome and comparisons
* ``strength``    the batch rating (Bradley-Terry in Elo, a team the sum of its bots), boards as clusters
* ``sequential``  the stopping rule, anytime-valid over looks and pairs, that knows a tie
* ``sprt``        the head to head's statistics (paired score, Elo, LOS, the SPRT on boards)
* ``design``      what a board would tell the stopping rule about its open links (the variance removed)
* ``dense``       the small dense linear algebra the fits and the design share
"""
