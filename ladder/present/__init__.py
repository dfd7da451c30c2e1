"""What a person sees of a ladder: the table, the live view of a run, the report and its plots.

It imports of the ladder ``stats``, ``storage`` and ``play`` (the evidence
the table ranks by, the run the live view shows), never ``commands``, which
imports it. Nothing below imports it: a ladder runs the same without a view.

* ``table``        the leaderboard, head to head, exports: data first, then rich renderables
* ``live``         the live view of a run, and the run played under it
* ``report``       ``ladder report``'s data: standings, ratings over time, head to head, faults, matches
* ``report_html``  the report as one self-contained page
* ``svg``          the page's inline plots
* ``plot``         ``show --plot``: ratings over time in the terminal
"""
