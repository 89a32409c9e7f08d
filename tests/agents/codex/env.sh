# Codex reads its provider from $CODEX_HOME/config.toml (setup.sh) and its key from
# OPENAI_API_KEY (run.sh).
export CODEX_HOME="${CODEX_HOME:-$HOME/.codex}"
