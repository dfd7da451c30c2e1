"""The ladder: many matches between bots on duplicate boards, rated, resumable, and stopped honestly.

A ladder is a folder (``ladder.toml``, ``ladder.sqlite``, ``ladder.key``,
``records/``). Its code stands on seven floors, each a package with one job;
a floor imports the floors below it and none above (tests/packaging/test_imports.py),
and data flows ladder -> referee, never back:

* ``stats``     pure statistics: TrueSkill, boards, the batch Elo, the stopping rule, the SPRT, the design
* ``storage``   the folder's files: ladder.toml, the SQLite store, the deal key
* ``play``      a ladder at work: bots added and started, matches planned, played (here or on Ray), rated,
                and the stop judged from the evidence
* ``present``   what a person sees: the table, the live view, the report and its plots
* ``submit``    a bot an author uploads: its archive unpacked safely, its manifest read, built offline, checked
* ``web``       ``waraq serve``'s door onto the ladder: pages, people, uploads (an extra: Starlette, uvicorn)
* ``commands``  ``waraq ladder ...``, ``waraq versus`` and ``waraq serve``, registered through the
                ``waraq.commands`` entry point

Each floor's ``__init__.py`` lists its modules and their jobs.
"""
