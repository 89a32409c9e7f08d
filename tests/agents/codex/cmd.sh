# Codex, headless. Only hooks the user trusted run; a test cannot open the /hooks screen, so
# --dangerously-bypass-hook-trust (without it no hook runs at all).
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
exec timeout -k 5 "$AGENT_TIMEOUT" "$AGENT_BIN" exec --skip-git-repo-check --dangerously-bypass-hook-trust \
    "${AGENT_PROMPT:-Read README.md, list the files and show README.md.}"
