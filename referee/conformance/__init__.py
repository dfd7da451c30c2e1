"""``waraq check-bot``: a conformance run that puts a bot through every situation the referee can create.

* :mod:`.cases` — the numbered cases, their verdicts (pass, fail, skipped) and their ids;
* :mod:`.situations` — what a question asked of the bot was: a lead, a void, a TURN that could go out..;
* :mod:`.stages` — the matches played for them: rules, seats, staged deals, clocks;
* :mod:`.future_fields` — a field of a later ``waraq.v1`` inside every message, for the compatibility case;
* :mod:`.startup` — the probes of a process: start-up, health, Hello, SIGTERM;
* :mod:`.check` — plays the stages against fresh processes of the bot;
* :mod:`.played` — what the stages left: records, and how each stream ended;
* :mod:`.judge` — every case's verdict, read from the probe and the records;
* :mod:`.report` — the terminal table and the JSON.
"""
