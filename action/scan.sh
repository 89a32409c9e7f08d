#!/usr/bin/env bash
# The scan step of the git-skill GitHub Action (action.yml), kept in a file so that CI can run
# it against real repositories. Reads its inputs from the environment:
#   GIT_SKILL   the git-skill binary (default: git-skill on PATH)
#   FROM_REF    the base revision (a pull request's base, a push's `before`); empty or all
#               zeros (a new branch) scans every skill at TO_REF instead of a range
#   TO_REF      the revision scanned (default: HEAD)
#   FAIL_ON     dangerous | caution | never (default: failOn of .skillguard.yaml at the base)
#   ROOTS       skill roots to scan instead of the configured ones, one per line
#   SARIF       where the SARIF report goes (default: skillguard.sarif)
#   LINT        true (default): in range mode, lint errors the change brings fail it too, as
#               in the pre-commit hook; false: SkillGuard only
#   DRIFT       true (default): in range mode, the capability drift of the changed skills in
#               the log and the summary (git skill diff); false: left out
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY  set by the runner; optional here
# The log gets one annotation per finding (`git skill scan --format github`: errors for
# critical findings, warnings for high ones, on the file and line), the job summary the
# verdict, the findings, the capability drift and the allow comments the change adds.
# Always exits 0: the exit status of the scan goes to the output `exit-code` (0 pass, 1 a skill
# at the fail level, 2 the scan could not run, also when this script cannot start it), so that
# the report is uploaded before the job fails on it.
#
# In range mode the policy file (.skillguard.yaml) and the git-skill:allow comments that count
# are the base revision's, not the ones the pull request brings (git skill scan's default in
# range mode): a pull request must not suppress its own findings. A change to them takes effect
# once it is merged.
set -uo pipefail

# Stops with exit code 2 in the outputs, and the reason on stderr.
fail() {
    echo "git-skill action: $1" >&2
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
        echo "exit-code=2" >> "$GITHUB_OUTPUT"
    fi
    exit 0
}

git_skill=${GIT_SKILL:-git-skill}
to_ref=${TO_REF:-HEAD}
from_ref=${FROM_REF:-}
sarif=${SARIF:-skillguard.sarif}

args=(scan --format github --sarif "$sarif")
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    args+=(--summary "$GITHUB_STEP_SUMMARY")
fi
if [ -n "${FAIL_ON:-}" ]; then
    case "$FAIL_ON" in
        dangerous|caution|never) args+=(--fail-on "$FAIL_ON") ;;
        *) fail "fail-on must be dangerous, caution or never, not '$FAIL_ON'" ;;
    esac
fi
while IFS= read -r root; do
    root=${root#"${root%%[![:space:]]*}"}
    root=${root%"${root##*[![:space:]]}"}
    [ -n "$root" ] && args+=(--root "$root")
done <<< "${ROOTS:-}"

if [ -z "$from_ref" ] || [[ "$from_ref" =~ ^0+$ ]]; then
    # No base to compare with: every skill, at the revision checked out.
    if [ "$(git rev-parse HEAD)" != "$(git rev-parse "$to_ref^{commit}" 2>/dev/null)" ]; then
        fail "without a base revision the work tree is scanned, and it is not at $to_ref"
    fi
    mode="every skill at $to_ref"
else
    if ! git cat-file -e "$from_ref^{commit}" 2>/dev/null; then
        fail "the base revision $from_ref is not in the clone; check out with fetch-depth: 0"
    fi
    # The policy file, a baseline and inline allows are read as of the base by default, as on
    # every range route of git skill scan (PRE_COMMIT_FROM_REF/TO_REF included).
    args+=(--from-ref "$from_ref" --to-ref "$to_ref")
    case "${LINT:-true}" in
        true) args+=(--lint) ;;
        false) ;;
        *) fail "lint must be true or false, not '$LINT'" ;;
    esac
    case "${DRIFT:-true}" in
        true) ;;
        false) args+=(--no-drift) ;;
        *) fail "drift must be true or false, not '$DRIFT'" ;;
    esac
    mode="skills changed from ${from_ref:0:12} to $to_ref"
fi

"$git_skill" "${args[@]}"
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
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ "$code" -gt 1 ]; then
    echo "SkillGuard: $mode: $verdict." >> "$GITHUB_STEP_SUMMARY"
fi
exit 0
