"""The ladder's commands: parse options, call the floors below, print. The top floor: nothing imports it.

It may import every other floor of the ladder, and of the referee anything
but its command line (what they share is ``waraq.referee.common``).

* ``cli``     ``waraq ladder ...``, registered through the ``waraq.commands`` entry point
* ``versus``  ``waraq versus A B``: a ladder of two bots played until its test decides
"""
