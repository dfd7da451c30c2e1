#!/bin/sh
# Generate the Python stubs bot.py imports, waraq/v1/bot_pb2.py and bot_pb2_grpc.py (and
# bot_pb2.pyi, for editors), into this folder from the protocol's bot.proto:
#
#     ./generate.sh                  # the .proto given, else ./bot.proto, else the repository's
#     ./generate.sh PATH/bot.proto   # a kit copied out of the repository: name the .proto
#
# protoc writes its output at the .proto's path under the include folder, and the stubs must be
# waraq/v1/ (the .proto's package, which bot_pb2_grpc.py imports by that name): so the .proto is
# staged as waraq/v1/bot.proto wherever it lives. The generated files say DO NOT EDIT; run this
# again when the .proto changes. The Python is $PYTHON, else this folder's .venv, else python3:
# one with grpcio-tools (requirements.txt).
set -eu
kit=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 0 ]; then
    proto=$1
elif [ -f "$kit/bot.proto" ]; then
    proto=$kit/bot.proto
else
    repository=$(cd "$kit/../../.." && pwd)  # where this kit lies in the Waraq repository
    proto=${repository%/}/protocol/waraq/v1/bot.proto
fi
if [ ! -f "$proto" ]; then
    echo "generate.sh: no bot.proto at $proto: give its path (protocol/waraq/v1/bot.proto in the Waraq repository)" >&2
    exit 2
fi
if [ -n "${PYTHON:-}" ]; then
    python=$PYTHON
elif [ -x "$kit/.venv/bin/python" ]; then
    python=$kit/.venv/bin/python
else
    python=python3
fi

staged=$(mktemp -d)
trap 'rm -rf "$staged"' EXIT
mkdir -p "$staged/waraq/v1"
cp "$proto" "$staged/waraq/v1/bot.proto"
mkdir -p "$kit/waraq/v1"
"$python" -m grpc_tools.protoc -I "$staged" --python_out="$kit" --grpc_python_out="$kit" --pyi_out="$kit" \
    "$staged/waraq/v1/bot.proto"
# Regular packages, not namespace ones: an installed regular `waraq` (the referee's) would win over
# a namespace folder even from later on sys.path.
touch "$kit/waraq/__init__.py" "$kit/waraq/v1/__init__.py"
echo "wrote $kit/waraq/v1/bot_pb2.py, bot_pb2_grpc.py and bot_pb2.pyi from $proto"
