# Gemini CLI, headless.
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
exec timeout -k 5 "$AGENT_TIMEOUT" "$AGENT_BIN" -m gemini-2.5-flash --approval-mode yolo \
    -p "${AGENT_PROMPT:-Read README.md, list the files and show README.md.}"
