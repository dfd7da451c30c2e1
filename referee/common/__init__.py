"""The referee's ground floor: what the commands, the ladder and the bots all share.

The command line's checked option values and one-line errors, and the table
of built-in bots. It imports nothing of the referee but the games' registry,
so the bots (``waraq.bots``) and the ladder may use it without reaching the
referee's command line or its launcher.
"""
