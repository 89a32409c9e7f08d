# Gemini CLI, headless. Plain http is accepted for localhost only.
exec env GEMINI_API_KEY=sk-test GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" GEMINI_TELEMETRY_ENABLED=false \
    timeout -k 5 "$AGENT_TIMEOUT" "$AGENT_BIN" -m gemini-2.5-flash --approval-mode yolo \
    -p "${AGENT_PROMPT:-Read README.md, list the files and show README.md.}"
