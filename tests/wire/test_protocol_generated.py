"""The committed Python code of the protocol is exactly what protocol/generate.py makes."""

from __future__ import annotations

import importlib.util

from tests.support import ROOT


def _generator():
    spec = importlib.util.spec_from_file_location("generate", ROOT / "protocol" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_code_matches_the_proto():
    generator = _generator()
    stale = generator.differences()
    assert not stale, f"run `python protocol/generate.py`: {', '.join(stale)} differ from the .proto"


def test_generated_files_are_marked_do_not_edit():
    for path in (ROOT / "protocol" / "waraq" / "v1").glob("*_pb2*.py*"):
        assert "DO NOT EDIT" in path.read_text().splitlines()[0], path


def test_every_message_and_field_of_the_proto_is_commented():
    # The .proto is the documented contract: a field line without a comment on it or
    # just above it is a gap a bot author would fall into.
    lines = (ROOT / "protocol" / "waraq" / "v1" / "bot.proto").read_text().splitlines()
    bare = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        is_field = text.endswith(";") and "=" in text and not text.startswith(("syntax", "package", "//"))
        if is_field and "//" not in text and not lines[number - 2].strip().startswith("//"):
            bare.append(f"{number}: {text}")
    assert not bare, "fields without a comment:\n" + "\n".join(bare)
