"""Bots that authors upload: an archive unpacked safely, its manifest read, built offline in the sandbox, checked."""
