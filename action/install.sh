#!/usr/bin/env bash
# The GitHub Action's install step: the released git-skill binary that matches the action's own
# ref, checked against its published SHA-256, or nothing (then action.yml builds from source).
#
# Environment:
#   ACTION_REPOSITORY, ACTION_REF   the action's repository (owner/name) and ref; when empty
#                                   (composite actions do not always fill github.action_*),
#                                   read from GITHUB_ACTION_PATH (.../_actions/OWNER/NAME/REF)
#   RUNNER_OS, RUNNER_ARCH          Linux|macOS|Windows, X64|ARM64
#   INSTALL_ROOT                    the binary goes to $INSTALL_ROOT/bin (default ~/.git-skill-action)
#   DOWNLOAD_BASE                   where releases are (default https://github.com; tests point
#                                   it at a local server)
#   GITHUB_OUTPUT                   gets installed=true|false and, when false, why=...
#
# A ref that is not a release tag, a runner with no released build, and a tag with no release
# (HTTP 404) install nothing: exit 0 with installed=false. A release whose checksum is missing or
# differs, or whose archive does not hold a working binary, fails the step (exit 1): a download
# that cannot be trusted is never run, and never silently replaced by a build.
set -euo pipefail

say() { printf 'git-skill: %s\n' "$*" >&2; }
out() { [ -n "${GITHUB_OUTPUT:-}" ] && printf '%s\n' "$@" >>"$GITHUB_OUTPUT"; return 0; }
none() {
    say "$1; building from source"
    out "installed=false" "why=$1"
    exit 0
}
fail() {
    say "error: $*"
    out "installed=false" "why=$*"
    exit 1
}

repo=${ACTION_REPOSITORY:-}
ref=${ACTION_REF:-}
if [ -z "$repo" ] || [ -z "$ref" ]; then
    # .../_actions/OWNER/NAME/REF
    path=${GITHUB_ACTION_PATH:-}
    path=${path%/}
    ref=${ref:-${path##*/}}
    rest=${path%/*}
    name=${rest##*/}
    rest=${rest%/*}
    owner=${rest##*/}
    [ -n "$repo" ] || repo="$owner/$name"
fi
case $ref in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) none "the action's ref '${ref:-?}' is not a release tag (vX.Y.Z)" ;;
esac
case $repo in
*[!A-Za-z0-9._/-]* | /* | */ | *//* | "" | *..*) fail "the action's repository '$repo' is not owner/name" ;;
esac
case $ref in
*[!A-Za-z0-9._+-]*) fail "the action's ref '$ref' is not a tag name" ;;
esac

case "${RUNNER_OS:-}-${RUNNER_ARCH:-}" in
Linux-X64) target=x86_64-unknown-linux-musl ext=tar.gz ;;
Linux-ARM64) target=aarch64-unknown-linux-musl ext=tar.gz ;;
macOS-X64) target=x86_64-apple-darwin ext=tar.gz ;;
macOS-ARM64) target=aarch64-apple-darwin ext=tar.gz ;;
Windows-X64) target=x86_64-pc-windows-msvc ext=zip ;;
*) none "no released build for ${RUNNER_OS:-?} ${RUNNER_ARCH:-?}" ;;
esac

base=${DOWNLOAD_BASE:-https://github.com}
stem="git-skill-$ref-$target"
url="$base/$repo/releases/download/$ref/$stem.$ext"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fetch URL FILE: prints the HTTP status (000 when nothing answered).
fetch() {
    curl -sSL --proto '=https,http' --retry 3 --retry-connrefused --connect-timeout 20 \
        --max-time 300 -o "$2" -w '%{http_code}' "$1" 2>"$work/curl.err" || true
}

say "downloading $url"
status=$(fetch "$url" "$work/$stem.$ext")
case $status in
200) ;;
404) none "no release $ref of $repo for $target" ;;
*) fail "downloading $url: HTTP ${status:-000} $(tail -1 "$work/curl.err" 2>/dev/null)" ;;
esac
status=$(fetch "$url.sha256" "$work/sum")
[ "$status" = 200 ] || fail "the release has no checksum ($url.sha256: HTTP ${status:-000}); not installed"

# `<64 hex digits>  <file name>`, as sha256sum writes it.
expected=$(sed -n '1s/^\([0-9a-fA-F]\{64\}\)\([[:space:]].*\)\{0,1\}$/\1/p' "$work/sum" | tr 'A-F' 'a-f')
[ -n "$expected" ] || fail "the checksum file $url.sha256 holds no SHA-256; not installed"
if command -v sha256sum >/dev/null 2>&1; then
    actual=$(sha256sum "$work/$stem.$ext" | cut -d' ' -f1)
else
    actual=$(shasum -a 256 "$work/$stem.$ext" | cut -d' ' -f1)
fi
[ "$actual" = "$expected" ] ||
    fail "checksum mismatch for $stem.$ext: the release says $expected, the download is $actual; not installed"

mkdir "$work/x"
if [ "$ext" = zip ]; then
    unzip -q "$work/$stem.$ext" -d "$work/x" || fail "cannot unpack $stem.$ext"
    exe=git-skill.exe
else
    tar -xzf "$work/$stem.$ext" -C "$work/x" || fail "cannot unpack $stem.$ext"
    exe=git-skill
fi
bin="$work/x/$stem/$exe"
[ -f "$bin" ] && [ ! -L "$bin" ] || fail "$stem.$ext holds no $stem/$exe"
chmod +x "$bin"
version=$("$bin" --version 2>&1) || fail "the released binary does not run: $version"
root=${INSTALL_ROOT:-$HOME/.git-skill-action}
mkdir -p "$root/bin"
cp "$bin" "$root/bin/$exe.tmp"
mv -f "$root/bin/$exe.tmp" "$root/bin/$exe"
say "installed $version ($target, sha256 $actual) in $root/bin"
out "installed=true"
