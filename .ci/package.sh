#!/usr/bin/env bash
# Packs a built git-skill into a release archive, as the release workflow publishes it:
#
#   bash .ci/package.sh <binary> <tag> <target> <out-dir>
#
# writes <out-dir>/git-skill-<tag>-<target>.tar.gz (.zip for Windows targets) holding one folder
# git-skill-<tag>-<target>/ with the binary, man/ (git-skill.1 and a page per subcommand),
# completions/ (bash, zsh, fish), README.md, CHANGELOG.md and both
# licences; and <archive>.sha256 (`<hex>  <archive name>`, as sha256sum -c reads it). The
# binary must run here: it writes its own man pages and completions.
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: package.sh <binary> <tag> <target> <out-dir>" >&2; exit 2; }
bin=$1 tag=$2 target=$3 out=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case $tag in v[0-9]*) ;; *) echo "package.sh: '$tag' is not a release tag (vX.Y.Z)" >&2; exit 2 ;; esac
[ -x "$bin" ] || { echo "package.sh: no binary at $bin" >&2; exit 2; }
version=$("$bin" --version)
[ "$version" = "git-skill ${tag#v}" ] ||
    { echo "package.sh: the binary says '$version', the tag is $tag" >&2; exit 2; }

stem="git-skill-$tag-$target"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dir="$stage/$stem"
mkdir -p "$dir/man" "$dir/completions"
case $target in *windows*) exe=git-skill.exe ;; *) exe=git-skill ;; esac
cp "$bin" "$dir/$exe"
"$bin" man --output-dir "$dir/man"
"$bin" completions bash >"$dir/completions/git-skill.bash"
"$bin" completions zsh >"$dir/completions/_git-skill"
"$bin" completions fish >"$dir/completions/git-skill.fish"
cp "$here/README.md" "$here/CHANGELOG.md" "$here/LICENSE-MIT" "$here/LICENSE-APACHE" "$dir/"

mkdir -p "$out"
out=$(cd "$out" && pwd)
case $target in
*windows*)
    archive="$stem.zip"
    rm -f "$out/$archive"
    if command -v 7z >/dev/null 2>&1; then
        (cd "$stage" && 7z a -tzip -bso0 "$out/$archive" "$stem")
    else
        (cd "$stage" && zip -qr "$out/$archive" "$stem")
    fi
    ;;
*)
    archive="$stem.tar.gz"
    # Owner and times fixed: the same build packs to the same bytes.
    (cd "$stage" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - "$stem" | gzip -n -9 >"$out/$archive") 2>/dev/null ||
        (cd "$stage" && tar -cf - "$stem" | gzip -n -9 >"$out/$archive")
    ;;
esac
(cd "$out" && if command -v sha256sum >/dev/null 2>&1; then sha256sum "$archive"; else shasum -a 256 "$archive"; fi) >"$out/$archive.sha256"
echo "$out/$archive"
