#!/usr/bin/env bash
# Runs one real agent CLI, offline, against the scripted model (model.py), and waits for the
# review its session-end hook starts.
#
#   unshare -rn bash tests/agents/run.sh <cli> <workdir>     # loopback only: nothing leaves
#   bash tests/agents/run.sh <cli> <workdir>                 # where unshare is not allowed
#
# <cli>: claude | qwen | codex | gemini | copilot, installed (npm) at
#   ${AGENTS_PREFIX:-<repository>/target/agent-clis}/<cli>/node_modules/.bin/<cli>
# <workdir> holds, prepared by the caller:
#   home/       the CLI's HOME (its settings are written there; CODEX_HOME=home/.codex and
#               COPILOT_HOME=home/.copilot are exported for every step)
#   proj/       a git repository: the CLI's working directory. The scripts read README.md.
#   before.sh   optional: run by bash in proj/ after the settings are written, before the CLI,
#               with the CLI's environment (e.g. `git skill init --agent <cli> --scope user`)
#   instead.sh  optional: run by bash in proj/ in place of the CLI's session (<cli>/cmd.sh),
#               with what points the CLI at the model (<cli>/env.sh) and the CLI's folder
#               first on PATH: for git-skill itself running the CLI as its model
# and gets:
#   model.log, review-model.log     every request to each model server (JSON lines)
#   model.stderr, review-model.stderr, setup.log, before.log
#   cli.stdout, cli.stderr          the CLI's output
#   cli.json                        {cli, exit, wall_ms, ended_ms, timed_out, port, review_port,
#                                    review_wait, review_wait_ms, reviews, leftover}
#
# Environment:
#   REVIEW_SCRIPT   the review model's script (default tests/agents/review-script.json)
#   AGENT_TIMEOUT   seconds the CLI may run (120); REVIEW_WAIT seconds to wait after it (60)
#   AGENT_PROMPT    replaces the prompt of <cli>/cmd.sh
#   MODEL_SCRIPT    replaces the model's script <cli>/script.json
#   AGENT_WRITES=1  the session writes files: Claude Code runs with IS_SANDBOX=1 and
#                   --dangerously-skip-permissions, so that only the hooks decide (it asks
#                   before any write under .claude/ otherwise)
#   AGENTS_PREFIX   where the CLIs are installed
# The CLI runs under `env -i` with PATH, HOME, TERM=dumb, LANG, TMPDIR, the caller's
# GIT_SKILL_* (but the tests' own GIT_SKILL_REQUIRE_AGENTS and GIT_SKILL_AGENTS_PREFIX), GIT_AUTHOR_*, GIT_COMMITTER_*, GIT_CONFIG_*, RUST_BACKTRACE and
# LLVM_PROFILE_FILE, and, for git-skill's review: GIT_SKILL_PROVIDER=openai
# GIT_SKILL_BASE_URL=http://127.0.0.1:<review port>/v1 GIT_SKILL_MODEL=scripted
# OPENAI_API_KEY=sk-test. Hooks inherit it, and so does the review they start.
#
# Exit 0 whatever the CLI did (cli.json says); 2 for a harness failure, with the reason.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() {
    echo "run.sh: $*" >&2
    exit 2
}

[ $# -eq 2 ] || die "usage: run.sh <claude|qwen|codex|gemini|copilot> <workdir>"
cli=$1
case $cli in
claude | qwen | codex | gemini | copilot) ;;
*) die "unknown CLI '$cli' (claude, qwen, codex, gemini or copilot)" ;;
esac
[ -d "$2" ] || die "no workdir $2"
workdir=$(cd "$2" && pwd)
[ -d "$workdir/home" ] || die "no $workdir/home (the CLI's HOME)"
[ -d "$workdir/proj" ] || die "no $workdir/proj (the project, a git repository)"
AGENTS_PREFIX=${AGENTS_PREFIX:-$(cd "$here/../.." && pwd)/target/agent-clis}
agent_bin=$AGENTS_PREFIX/$cli/node_modules/.bin/$cli
[ -x "$agent_bin" ] || die "$cli: CLI not installed at $agent_bin"
python=$(command -v python3) || die "python3 not found"
review_script=${REVIEW_SCRIPT:-$here/review-script.json}
[ -f "$review_script" ] || die "no review script $review_script"
for tool in timeout date; do
    command -v $tool >/dev/null || die "$tool not found"
done

"$python" "$here/harness.py" lo-up || die "loopback is down"

pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup EXIT

# start_model NAME SCRIPT: a model server logging to $workdir/NAME.log; its port in $port.
start_model() {
    local name=$1 script=$2 out=$workdir/$1.port
    : >"$out"
    "$python" "$here/model.py" 0 --script "$script" --log "$workdir/$name.log" \
        --var "PROJ=$workdir/proj" --var "HOME=$workdir/home" \
        >"$out" 2>"$workdir/$name.stderr" </dev/null &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 100); do
        port=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$out")
        [ -n "$port" ] && return 0
        kill -0 "$pid" 2>/dev/null || die "$name server died: $(tail -5 "$workdir/$name.stderr")"
        sleep 0.05
    done
    die "$name server did not start in 5 s"
}
rm -f "$workdir/model.log" "$workdir/review-model.log" "$workdir/cli.json"
model_script=${MODEL_SCRIPT:-$here/$cli/script.json}
[ -f "$model_script" ] || die "no model script $model_script"
start_model model "$model_script"
cli_port=$port
start_model review-model "$review_script"
review_port=$port

# The environment of the CLI, its hooks and what they start.
envs=(
    "PATH=$PATH" "HOME=$workdir/home" "TERM=dumb" "LANG=${LANG:-C.UTF-8}"
    "TMPDIR=${TMPDIR:-/tmp}"
    # where Codex and Copilot keep their settings (their defaults, made explicit for before.sh)
    "CODEX_HOME=$workdir/home/.codex" "COPILOT_HOME=$workdir/home/.copilot"
)
while IFS= read -r name; do
    envs+=("$name=${!name}")
done < <(compgen -e | grep -E '^(GIT_SKILL_|GIT_AUTHOR_|GIT_COMMITTER_|GIT_CONFIG_|RUST_BACKTRACE$|LLVM_PROFILE_FILE$)' |
    grep -vE '^GIT_SKILL_(REQUIRE_AGENTS|AGENTS_PREFIX)$')
marker="GIT_SKILL_BASE_URL=http://127.0.0.1:$review_port/v1"
envs+=(
    "GIT_SKILL_PROVIDER=openai" "$marker" "GIT_SKILL_MODEL=scripted" "OPENAI_API_KEY=sk-test"
    # for setup.sh and cmd.sh
    "AGENT=$cli" "AGENT_BIN=$agent_bin" "AGENT_TIMEOUT=${AGENT_TIMEOUT:-120}"
    "AGENT_PROMPT=${AGENT_PROMPT:-}" "AGENT_WRITES=${AGENT_WRITES:-}" "PORT=$cli_port" "WORKDIR=$workdir" "PROJ=$workdir/proj"
)
[ -n "${AGENTS_PREFIX:-}" ] && envs+=("AGENTS_PREFIX=$AGENTS_PREFIX")

cd "$workdir/proj" || die "cannot enter $workdir/proj"
env -i "${envs[@]}" bash "$here/$cli/setup.sh" >"$workdir/setup.log" 2>&1 </dev/null ||
    die "$cli: setup.sh failed: $(tail -5 "$workdir/setup.log")"
if [ -f "$workdir/before.sh" ]; then
    env -i "${envs[@]}" bash "$workdir/before.sh" >"$workdir/before.log" 2>&1 </dev/null ||
        die "$cli: before.sh failed: $(tail -5 "$workdir/before.log")"
fi

start=$(date +%s%N)
if [ -f "$workdir/instead.sh" ]; then
    env -i "${envs[@]}" timeout -k 5 "${AGENT_TIMEOUT:-120}" bash -c '. "$1"; PATH=$(dirname "$AGENT_BIN"):$PATH; . "$2"' instead \
        "$here/$cli/env.sh" "$workdir/instead.sh" >"$workdir/cli.stdout" 2>"$workdir/cli.stderr" </dev/null
else
    env -i "${envs[@]}" bash "$here/$cli/cmd.sh" >"$workdir/cli.stdout" 2>"$workdir/cli.stderr" </dev/null
fi
rc=$?
ended=$(date +%s%N)
wall_ms=$(((ended - start) / 1000000))
timed_out=false
[ $rc -eq 124 ] || [ $rc -eq 137 ] && timed_out=true
printf '{"cli": "%s", "exit": %d, "wall_ms": %d, "ended_ms": %d, "timed_out": %s, "port": %d, "review_port": %d}\n' \
    "$cli" "$rc" "$wall_ms" "$((ended / 1000000))" "$timed_out" "$cli_port" "$review_port" >"$workdir/cli.json"

"$python" "$here/harness.py" wait-review "$workdir" "$marker" "${REVIEW_WAIT:-60}" ||
    die "waiting for the review failed"
exit 0
