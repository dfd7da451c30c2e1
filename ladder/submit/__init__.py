"""Bots that authors upload: an archive unpacked safely, its manifest read, built offline in the sandbox, checked.

It imports of the ladder ``storage`` (a ladder bot is what it makes) and ``play``
(which files are a bot's code), and the referee's sandbox and check-bot; only
``web`` imports it. It knows no web and no database: ``web`` keeps the uploads.

* ``archive``   a zip or tar.gz unpacked into an empty folder: no path out, no link, limits counted as written
* ``manifest``  ``waraq-bot.toml``: the bot's name, games, build and run commands, checked
* ``build``     the manifest's build, offline in the sandbox, on a disk of its own; its result back as a tar
* ``pipeline``  ``submit``: unpack, read, build, check-bot; a stage and a line for the author
"""
