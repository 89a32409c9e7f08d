# Qwen Code, headless: the prompt is positional (-p is deprecated). OPENAI_API_KEY=sk-test
# comes from run.sh.
exec timeout -k 5 "$AGENT_TIMEOUT" "$AGENT_BIN" --approval-mode yolo \
    "${AGENT_PROMPT:-Read README.md, list the files and show README.md.}"
