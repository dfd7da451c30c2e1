"""Protocol version 1: ``bot.proto`` and its generated Python code."""
