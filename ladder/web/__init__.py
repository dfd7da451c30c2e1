"""``waraq serve``: the ladder as a web service, a door onto the ladder folder (docs/serve.md)."""
