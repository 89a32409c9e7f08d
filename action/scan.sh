#!/usr/bin/env bash
# The scan step of the git-skill GitHub Action (action.yml), kept in a file so that CI can run
# it against real repositories. Reads its inputs from the environment:
#   GIT_SKILL   the git-skill binary (default: git-skill on PATH)
#   FROM_REF    the base revision (a pull request's base, a push's `before`); empty or all
#               zeros (a new branch) scans every skill at TO_REF instead of a range
#   TO_REF      the revision scanned (default: HEAD)
#   FAIL_ON     dangerous | caution | never (default: the repository's skill.failOn)
#   ROOTS       skill roots to scan instead of the configured ones, one per line
#   SARIF       where the SARIF report goes (default: skillguard.sarif)
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY  set by the runner; optional here
# Always exits 0 once the report is written: the exit status of the scan goes to the output
# `exit-code` (0 pass, 1 a skill at the fail level, 2 the scan could not run), so that the
# report is uploaded before the job fails on it. Exits 2 itself only when it cannot run at all.
set -uo pipefail

git_skill=${GIT_SKILL:-git-skill}
to_ref=${TO_REF:-HEAD}
from_ref=${FROM_REF:-}
sarif=${SARIF:-skillguard.sarif}

args=(scan --no-inline-allow --format sarif)
if [ -n "${FAIL_ON:-}" ]; then
    case "$FAIL_ON" in
        dangerous|caution|never) args+=(--fail-on "$FAIL_ON") ;;
        *) echo "git-skill action: fail-on must be dangerous, caution or never, not '$FAIL_ON'" >&2; exit 2 ;;
    esac
fi
while IFS= read -r root; do
    root=${root#"${root%%[![:space:]]*}"}
    root=${root%"${root##*[![:space:]]}"}
    [ -n "$root" ] && args+=(--root "$root")
done <<< "${ROOTS:-}"

if [ -z "$from_ref" ] || [[ "$from_ref" =~ ^0+$ ]]; then
    # No base to compare with: every skill, at the revision checked out.
    if [ "$(git rev-parse HEAD)" != "$(git rev-parse "$to_ref^{commit}")" ]; then
        echo "git-skill action: without a base revision the work tree is scanned, and it is not at $to_ref" >&2
        exit 2
    fi
    mode="every skill at $to_ref"
else
    if ! git cat-file -e "$from_ref^{commit}" 2>/dev/null; then
        echo "git-skill action: the base revision $from_ref is not in the clone; check out with fetch-depth: 0" >&2
        exit 2
    fi
    args+=(--from-ref "$from_ref" --to-ref "$to_ref")
    mode="skills changed from ${from_ref:0:12} to $to_ref"
fi

"$git_skill" "${args[@]}" > "$sarif"
code=$?
case $code in
    0) verdict="no skill at the fail level" ;;
    1) verdict="a skill at the fail level" ;;
    *) verdict="the scan could not run (exit $code)" ;;
esac
echo "git-skill action: $mode: $verdict"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        echo "exit-code=$code"
        echo "sarif=$sarif"
    } >> "$GITHUB_OUTPUT"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    echo "SkillGuard: $mode: $verdict." >> "$GITHUB_STEP_SUMMARY"
fi
exit 0
