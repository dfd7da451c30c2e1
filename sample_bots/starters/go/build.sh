#!/usr/bin/env bash
# Build the Go starter bot into bin/bot, offline, from Debian's packages alone.
#
#   ./build.sh [[--proto] FILE] [--out FILE]
#
#   --proto  the protocol's bot.proto (default: bot.proto beside this script if
#            you copied it there, else the Waraq repository's
#            protocol/waraq/v1/bot.proto when this folder is still inside it)
#   --out    the binary (default: bin/bot beside this script)
#
# Every *.go file beside this script is built, so split your bot as you like.
#
# Why it builds this way (Debian 12's packages, no module proxy, no network):
# - Debian keeps its Go libraries in /usr/share/gocode, a GOPATH tree, and a
#   module build would want to download them: so GOPATH mode (GO111MODULE=off),
#   the GOPATH a scratch tree for the generated code and the bot, then
#   /usr/share/gocode. GOFLAGS is emptied so that a -mod=... of yours does not
#   break a GOPATH build.
# - The Go code of the .proto is generated afresh by every build, never kept:
#   its go_package, "waraq/v1", puts it at $scratch/src/waraq/v1, the import
#   path main.go names.
# - Debian's gRPC (1.33) reaches protobuf through github.com/golang/protobuf;
#   with its 1.3, which apt picks unless told otherwise, the bot panics on its
#   first call ("protobuf tag not enough fields in HelloRequest.state"). 1.5
#   (golang-github-golang-protobuf-1-5-dev) hands everything to
#   google.golang.org/protobuf, the API the generated code uses.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
packages="golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev"
gocode=/usr/share/gocode/src

die() {
    echo "build.sh: $*" >&2
    exit 1
}

proto=
out=$here/bin/bot
while [ $# -gt 0 ]; do
    case $1 in
        --proto) [ $# -ge 2 ] || die "--proto needs a file"; proto=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
        -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option '$1' (see ./build.sh --help)" ;;
        *) [ -z "$proto" ] || die "one .proto only: '$proto' and '$1'"; proto=$1; shift ;;
    esac
done
if [ -z "$proto" ]; then
    for candidate in "$here/bot.proto" "$here/../../../protocol/waraq/v1/bot.proto"; do
        if [ -f "$candidate" ]; then
            proto=$candidate
            break
        fi
    done
    [ -n "$proto" ] || die "no bot.proto: copy the protocol's protocol/waraq/v1/bot.proto beside build.sh, or give --proto FILE"
fi
[ -f "$proto" ] || die "the .proto '$proto' is not a file"

for tool in go protoc protoc-gen-go protoc-gen-go-grpc; do
    command -v "$tool" >/dev/null || die "$tool is not on PATH; as root: apt-get install -y $packages"
done
for library in google.golang.org/grpc google.golang.org/protobuf github.com/golang/protobuf; do
    [ -d "$gocode/$library" ] || die "$gocode/$library is missing; as root: apt-get install -y $packages"
done
if ! grep -qs 'google.golang.org/protobuf' "$gocode/github.com/golang/protobuf/proto/proto.go"; then
    die "$gocode/github.com/golang/protobuf is 1.3, not 1.5 (gRPC would panic on every call);" \
        "as root: apt-get install -y golang-github-golang-protobuf-1-5-dev (it replaces 1.3)"
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/waraq-go-build.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

mkdir -p "$scratch/src/bot"
protoc -I "$(dirname "$proto")" --go_out="$scratch/src" --go-grpc_out="$scratch/src" "$proto"
[ -d "$scratch/src/waraq/v1" ] || die "protoc wrote nothing at waraq/v1: the go_package of $proto is not \"waraq/v1;waraqv1\" (an older copy?)"
cp "$here"/*.go "$scratch/src/bot/"
mkdir -p "$(dirname "$out")"

# go needs a build cache: keep Go's own where it can write, else one for this build only.
if [ -z "${GOCACHE:-}" ]; then
    GOCACHE=$(go env GOCACHE 2>/dev/null || true)
    if [ -z "$GOCACHE" ] || [ "$GOCACHE" = off ] || ! mkdir -p "$GOCACHE" 2>/dev/null; then
        GOCACHE=$scratch/cache
    fi
fi
# No -trimpath: it would rebuild the standard library Debian ships compiled, three times
# the CPU of a first build (55 s against 19 s on a 2-core machine).
GOCACHE=$GOCACHE GO111MODULE=off GOFLAGS= GOPROXY=off GOPATH="$scratch:/usr/share/gocode" \
    go build -o "$out" bot
echo "built $out"
