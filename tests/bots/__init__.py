"""Bots that are test fixtures: misbehaving ones run as real processes, a recording one in the test's loop."""
