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
exec env ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-test \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
    DISABLE_ERROR_REPORTING=1 DISABLE_BUG_COMMAND=1 \
    timeout -k 5 "$AGENT_TIMEOUT" "$AGENT_BIN" -p "${AGENT_PROMPT:-Read README.md, list the files and show README.md.}" \
    --model claude-sonnet-4-5 "${permissions[@]}"
