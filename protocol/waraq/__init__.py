"""The Waraq bot protocol (generated code and .proto files, see protocol/generate.py)."""
