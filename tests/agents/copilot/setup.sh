# Copilot CLI: offline mode with a custom OpenAI-compatible provider, all set by environment
# variables (cmd.sh); it keeps its state in COPILOT_HOME=$HOME/.copilot. No hooks:
# `git skill init` writes those ($COPILOT_HOME/hooks/*.json).
set -eu
mkdir -p "${COPILOT_HOME:-$HOME/.copilot}"
