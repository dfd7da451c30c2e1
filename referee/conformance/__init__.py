"""``waraq check-bot``: a conformance run that puts a bot through every situation the referee can create.

* :mod:`.cases` — the numbered cases, their verdicts (pass, fail, skipped) and what each one reads;
* :mod:`.situations` — what a question asked of the bot was: a lead, a void, a TURN that could go out..;
* :mod:`.stages` — the matches played for them: rules, seats, staged deals, clocks, probes;
* :mod:`.startup` — the probes of a process: start-up, health, Hello, SIGTERM;
* :mod:`.check` — plays the stages and judges every case from their records;
* :mod:`.report` — the terminal table and the JSON.
"""
