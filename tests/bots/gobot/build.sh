#!/usr/bin/env bash
# Build gobot, the compiled test bot, from Debian's Go packages alone: no
# module proxy, no network.
#
#   tests/bots/gobot/build.sh [OUTPUT]    # default: tests/bots/gobot/bin/gobot (git-ignored)
#
# Needs Debian 12's packages in $packages below (apt-get install -y ...).
# golang-github-golang-protobuf-1-5-dev matters: Debian's gRPC (1.33) encodes
# through github.com/golang/protobuf, and with the 1.3 that apt picks by
# default a bot built from protoc-gen-go 1.28's code panics on its first call
# ("protobuf tag not enough fields in HelloRequest.state"); 1.5 hands every
# message to google.golang.org/protobuf. The two conflict: installing 1.5
# removes 1.3.
#
# The Go code for protocol/waraq/v1/bot.proto is generated afresh into a
# scratch GOPATH by every build and never committed: the .proto has no
# go_package, so the M options give it the import path gobot/waraqv1. Debian
# keeps its Go libraries in /usr/share/gocode, a GOPATH tree, so the build
# runs in GOPATH mode (GO111MODULE=off).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
protocol=$(cd "$here/../../../protocol" && pwd)
out=${1:-$here/bin/gobot}
proto=waraq/v1/bot.proto
package=gobot/waraqv1
packages="golang-go golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc protobuf-compiler"

for tool in go protoc protoc-gen-go protoc-gen-go-grpc; do
    if ! command -v "$tool" >/dev/null; then
        echo "build.sh: $tool is not on PATH; as root: apt-get install -y $packages" >&2
        exit 1
    fi
done

gocode=/usr/share/gocode/src
if ! grep -qs 'google.golang.org/protobuf' "$gocode/github.com/golang/protobuf/proto/proto.go"; then
    echo "build.sh: $gocode/github.com/golang/protobuf is not 1.5 (gRPC would panic on every call);" \
        "as root: apt-get install -y $packages" >&2
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gobot-build.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/src"
protoc -I "$protocol" \
    --go_out="$work/src" --go_opt="M$proto=$package" \
    --go-grpc_out="$work/src" --go-grpc_opt="M$proto=$package" \
    "$protocol/$proto"
mkdir -p "$work/src/gobot/cmd" "$(dirname "$out")"
cp "$here/main.go" "$work/src/gobot/cmd/"

# A build cache needs a home; give one when the caller has none (go refuses without).
if [ -z "${GOCACHE:-}${XDG_CACHE_HOME:-}${HOME:-}" ]; then
    export GOCACHE="$work/cache"
fi
GO111MODULE=off GOFLAGS= GOPATH="$work:/usr/share/gocode" \
    go build -trimpath -o "$out" gobot/cmd
