# Claude Code, headless. As root --dangerously-skip-permissions is refused unless IS_SANDBOX=1:
# tools are allowed by name. A session that writes files (AGENT_WRITES=1) needs the sandbox
# route, since Claude Code asks before writing under .claude/ even with --allowedTools: then
# only the hooks decide.
if [ -n "${AGENT_WRITES:-}" ]; then
    export IS_SANDBOX=1
    permissions=(--dangerously-skip-permissions)
else
    permissions=(--allowedTools "Read,Bash")
fi
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
exec timeout -k 5 "$AGENT_TIMEOUT" "$AGENT_BIN" -p "${AGENT_PROMPT:-Read README.md, list the files and show README.md.}" \
    --model claude-sonnet-4-5 "${permissions[@]}"
