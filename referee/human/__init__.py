"""A person at a seat (``waraq match --bots human``, and ``waraq serve``'s exhibitions): docs/human.md.

* ``desk``        a person's messages and answers; the line a :class:`~waraq.referee.match.seats.RemoteSeat` plays over
* ``seat``        the human seat, and what a person "declares" in place of a Hello
* ``turn_steps``  Hand's turn built by clicks, each step asked of the turn rules' one owner
* ``app``         the page's routes (Starlette), mountable under any prefix
* ``server``      the page served for one run (uvicorn), and kept after it for its replays
* ``options``     ``--page``, ``--open``, ``--keep-page``, and the clock a person gets
"""
