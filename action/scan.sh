#!/usr/bin/env bash
# The scan step of the git-skill GitHub Action (action.yml), kept in a file so that CI can run
# it against real repositories. Reads its inputs from the environment:
#   GIT_SKILL   the git-skill binary (default: git-skill on PATH)
#   FROM_REF    the base revision (a pull request's or merge group's base, a push's `before`)
#   FROM_REF_INPUT  the action's `from-ref` input: when set, the base whatever the event
#   DEFAULT_BRANCH  the repository's default branch (github.event.repository.default_branch)
#   GITHUB_EVENT_NAME, GITHUB_REF  set by the runner: which route this is (without them,
#               FROM_REF is taken as given)
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
# Every route judges the change against a base, with the base's policy (.skillguard.yaml),
# baseline and git-skill:allow comments, widened by what the change adds (roots, a stricter
# failOn), never narrowed by it: a change must not suppress its own findings.
#   pull_request, merge_group    the event's base revision (FROM_REF)
#   push to the default branch   the commit before the push (FROM_REF)
#   push to another branch, a new branch or tag (FROM_REF all zeros), workflow_dispatch,
#   anything else                the merge base of TO_REF and the default branch (the
#                                default branch's tip when they share no history); when
#                                TO_REF is on the default branch, every skill at TO_REF
# The default branch must be in the clone (fetch-depth: 0); without it the step fails (exit 2)
# rather than judge a branch by its own policy.
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

# The default branch, as a revision of this clone.
default_tip() {
    local name=${DEFAULT_BRANCH:-}
    if [ -z "$name" ]; then
        name=$(git symbolic-ref -q --short refs/remotes/origin/HEAD 2>/dev/null) || name=""
        name=${name#origin/}
    fi
    [ -n "$name" ] || return 1
    local ref
    for ref in "refs/remotes/origin/$name" "refs/heads/$name"; do
        if git rev-parse -q --verify "$ref^{commit}" >/dev/null 2>&1; then
            git rev-parse "$ref^{commit}"
            return 0
        fi
    done
    return 1
}

event=${GITHUB_EVENT_NAME:-}
if [ -n "${FROM_REF_INPUT:-}" ]; then
    from_ref=$FROM_REF_INPUT
    route="the base given"
else
    case "$event" in
        pull_request|pull_request_target|merge_group) route="the $event's base" ;;
        # Not run by a runner (a script, a test): FROM_REF as given.
        "") route="the base given" ;;
        push)
            if [ -n "${DEFAULT_BRANCH:-}" ] && [ "${GITHUB_REF:-}" = "refs/heads/$DEFAULT_BRANCH" ] \
                && [ -n "$from_ref" ] && ! [[ "$from_ref" =~ ^0+$ ]]; then
                route="the commit before the push"
            else
                # A branch's own history is not a base: its policy is what it changes.
                from_ref=""
            fi
            ;;
        *) from_ref="" ;;
    esac
fi
if [ -z "$from_ref" ] || [[ "$from_ref" =~ ^0+$ ]]; then
    if ! target=$(git rev-parse -q --verify "$to_ref^{commit}" 2>/dev/null); then
        fail "the revision $to_ref is not in the clone"
    fi
    if ! tip=$(default_tip); then
        fail "cannot find the default branch${DEFAULT_BRANCH:+ ($DEFAULT_BRANCH)} in the clone to judge $to_ref against; check out with fetch-depth: 0"
    fi
    if merge_base=$(git merge-base "$tip" "$target" 2>/dev/null); then
        from_ref=$merge_base
        route="the merge base with the default branch"
    else
        from_ref=$tip
        route="the default branch (no shared history)"
    fi
    if [ "$from_ref" = "$target" ]; then
        from_ref=""
    fi
fi

if [ -z "$from_ref" ]; then
    # On the default branch: every skill, at the revision checked out, by its own policy.
    if [ "$(git rev-parse HEAD)" != "$(git rev-parse "$to_ref^{commit}" 2>/dev/null)" ]; then
        fail "without a base revision the work tree is scanned, and it is not at $to_ref"
    fi
    mode="every skill at $to_ref (on the default branch)"
else
    if ! git cat-file -e "$from_ref^{commit}" 2>/dev/null; then
        fail "the base revision $from_ref is not in the clone; check out with fetch-depth: 0"
    fi
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
    mode="skills changed from ${from_ref:0:12} ($route) to $to_ref"
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
