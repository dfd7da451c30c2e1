"""Bots that show how: each decides from one seat's view alone."""
