# Claude Code, headless. As root --dangerously-skip-permissions is refused: tools are allowed by name.
exec env ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-test \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
    DISABLE_ERROR_REPORTING=1 DISABLE_BUG_COMMAND=1 \
    timeout -k 5 "$AGENT_TIMEOUT" "$AGENT_BIN" -p "${AGENT_PROMPT:-Read README.md, list the files and show README.md.}" \
    --model claude-sonnet-4-5 --allowedTools "Read,Bash"
