"""The ladder's folder as files: ladder.toml, ladder.sqlite and ladder.key, read, checked and written.

It imports of the ladder only its statistics (``stats``: the layouts, the
TrueSkill settings and the rule's default margin that ladder.toml holds);
``play``, ``present`` and ``commands`` import it.

* ``config``    ladder.toml: read, checked key by key, written
* ``store``     the SQLite schema and its transactions (WAL: ``show`` reads while ``run`` writes)
* ``side_tables`` the tables made after the schema: dial-in tokens and connections, each seat's log of a match
* ``key_file``  ladder.key: the secret the decks and match ids are drawn under
"""
