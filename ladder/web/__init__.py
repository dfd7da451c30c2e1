"""``waraq serve``: the ladder as a web service, a door onto the ladder folder (docs/serve.md).

It imports every floor of the ladder below it (``present``, ``submit``, ``play``,
``storage``); only ``commands`` imports it. It changes the ladder through the
ladder's own operations and nothing else, and keeps what it adds (people,
sessions, uploads) in the ladder's database and folder.

* ``server``       the process: uvicorn, the scheduler and the lobby on one asyncio loop
* ``arena``        the ladder played without end, and what the web may change in it
* ``app``          every route, the refusals, the headers every response carries
* ``site``         what the routes share: rendering, forms, cookies
* ``public``       the pages and JSON anyone may read: standings, bots, matches, replays, report
* ``views``        the public snapshot, made off the loop once per change
* ``signin``       sign-in, joining by invite, sign-out
* ``author``       an author's own bots, uploads, logs and tokens
* ``admin``        the organiser's: people, invites, suspensions, pause, export
* ``uploads``      an upload received, built and checked in the background; its versions
* ``access``       who is asking and what they may do: sessions, API tokens, CSRF, sign-in limits
* ``people``       people, invites, sessions, API tokens, owners: their tables
* ``credentials``  passwords (scrypt), tokens, signatures, the server key
"""
