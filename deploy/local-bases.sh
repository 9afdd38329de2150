#!/usr/bin/env bash
# Makes the two images the Containerfile builds FROM, for a Debian machine that reaches
# Debian's package mirror but no container registry. Prints the two build arguments:
#
#   BUILDER=localhost/wrench-builder:<suite>-<rust>  Debian (debootstrap, minbase) with gcc,
#           plus this machine's own Rust toolchain (the one `rustc` on PATH belongs to) and
#           its CA bundle;
#   BASE=localhost/wrench-base:<suite>               only what the binary needs at run time,
#           unpacked from Debian's packages (libc6, libgcc-s1, tzdata) with this machine's CA
#           bundle and a passwd naming user 65532 "nonroot", as distroless/cc has.
#
# An image already made (same tag) is kept. Needs root (debootstrap, podman import), podman,
# debootstrap, apt-get and dpkg-deb. The mirror is the first one in this machine's apt
# sources, so nothing here names one.
#
#   deploy/local-bases.sh              # make both if missing, print BUILDER=... BASE=...
#   deploy/local-bases.sh --rebuild    # make both again
set -euo pipefail

REBUILD=0
[ "${1:-}" = "--rebuild" ] && REBUILD=1

for tool in podman debootstrap apt-get dpkg-deb rustc; do
  command -v "$tool" >/dev/null || { echo "local-bases: $tool is not installed" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "local-bases: run as root (debootstrap needs it)" >&2; exit 2; }

SUITE=$(. /etc/os-release && echo "${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}")
mirror() {
  local m=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    m=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
    m=$(awk '$1 == "deb" && $2 !~ /^\[/ {print $2; exit} $1 == "deb" {print $3; exit}' /etc/apt/sources.list)
  fi
  [ -n "$m" ] || { echo "local-bases: no Debian mirror found in the apt sources" >&2; exit 2; }
  echo "$m"
}
RUST_VERSION=$(rustc --version | awk '{print $2}')
SYSROOT=$(rustc --print sysroot)
BUILDER="localhost/wrench-builder:$SUITE-$RUST_VERSION"
BASE="localhost/wrench-base:$SUITE"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [ "$REBUILD" = 1 ] || ! podman image exists "$BUILDER"; then
  echo "local-bases: making $BUILDER (debootstrap $SUITE, then the Rust toolchain)" >&2
  ROOT="$WORK/builder"
  debootstrap --variant=minbase --include=gcc,libc6-dev,ca-certificates \
    "$SUITE" "$ROOT" "$(mirror)" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; exit 1; }
  # This machine's CA bundle, so that cargo inside the build trusts what this machine trusts
  # (a network that inspects TLS adds its authority there).
  cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
  # The toolchain without its documentation (share/doc is most of its size).
  mkdir -p "$ROOT/usr/local/rust" "$ROOT/usr/local/cargo"
  tar -C "$SYSROOT" --exclude=./share/doc -c . | tar -C "$ROOT/usr/local/rust" -x
  rm -rf "$ROOT/var/cache/apt/archives"/*.deb "$ROOT/var/lib/apt/lists"/*
  tar -C "$ROOT" -c . | podman import \
    --change 'ENV PATH=/usr/local/rust/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV CARGO_HOME=/usr/local/cargo' \
    - "$BUILDER" >/dev/null
fi

if [ "$REBUILD" = 1 ] || ! podman image exists "$BASE"; then
  echo "local-bases: making $BASE (libc6, libgcc-s1, tzdata unpacked; CA bundle; passwd)" >&2
  ROOT="$WORK/base"
  mkdir -p "$ROOT" "$WORK/debs"
  # apt fetches as its own user where it can write.
  chown _apt "$WORK/debs" 2>/dev/null || true
  (cd "$WORK/debs" && apt-get download libc6 libgcc-s1 tzdata >/dev/null)
  for deb in "$WORK/debs"/*.deb; do dpkg-deb -x "$deb" "$ROOT"; done
  # What a runtime needs beside the libraries, and nothing to run a shell with.
  rm -rf "$ROOT/usr/share/doc" "$ROOT/usr/share/man" "$ROOT/usr/share/lintian" "$ROOT/usr/share/locale"
  mkdir -p "$ROOT/etc/ssl/certs" "$ROOT/tmp" "$ROOT/home/nonroot"
  chmod 1777 "$ROOT/tmp"
  chown 65532:65532 "$ROOT/home/nonroot"
  cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$ROOT/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >"$ROOT/etc/group"
  printf 'hosts: files dns\n' >"$ROOT/etc/nsswitch.conf"
  ln -sf /usr/share/zoneinfo/Etc/UTC "$ROOT/etc/localtime"
  tar -C "$ROOT" -c . | podman import - "$BASE" >/dev/null
fi

echo "BUILDER=$BUILDER"
echo "BASE=$BASE"
