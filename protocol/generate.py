"""Generate the Python code of the protocol from ``waraq/v1/*.proto``.

    python protocol/generate.py            # rewrite protocol/waraq/v1/*_pb2*.py(i)
    python protocol/generate.py --check    # exit 1 if the committed files differ

The generated files are committed so that bots and the referee need no
protoc; ``tests/test_protocol_generated.py`` fails when they differ from
what this script makes, so the ``.proto`` and the code cannot drift apart.
The output depends on the grpcio-tools version, pinned in pyproject.toml.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent
PROTOS = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("waraq/v*/*.proto"))
MARK = "# Made by protocol/generate.py from {source}. DO NOT EDIT: change the .proto and run it.\n"


def generate(out: Path) -> list[Path]:
    """Write the generated files under ``out``; return their paths relative to it."""
    import grpc_tools

    include = Path(grpc_tools.__file__).parent / "_proto"  # google/protobuf/*.proto
    for proto in PROTOS:
        args = [
            "protoc",
            f"-I{ROOT}",
            f"-I{include}",
            f"--python_out={out}",
            f"--grpc_python_out={out}",
            f"--pyi_out={out}",
            proto,
        ]
        if protoc.main(args) != 0:
            raise SystemExit(f"protoc failed on {proto}")
    made = sorted(p for p in out.rglob("*") if p.is_file())
    for path in made:
        source = next(s for s in PROTOS if path.name.startswith(Path(s).stem + "_"))
        path.write_text(MARK.format(source=source) + path.read_text())
    return [p.relative_to(out) for p in made]


def generated() -> dict[str, str]:
    """What protoc makes from the .proto files: relative path -> text."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        return {str(rel): (out / rel).read_text() for rel in generate(out)}


def differences() -> list[str]:
    """The generated files that are missing or differ from what the .proto gives."""
    return [rel for rel, text in generated().items() if not (ROOT / rel).exists() or (ROOT / rel).read_text() != text]


def main() -> int:
    if "--check" in sys.argv[1:]:
        stale = differences()
        for rel in stale:
            print(f"protocol/{rel} differs from what protocol/generate.py makes", file=sys.stderr)
        return 1 if stale else 0
    for rel, text in generated().items():
        (ROOT / rel).write_text(text)
        print(f"wrote protocol/{rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
