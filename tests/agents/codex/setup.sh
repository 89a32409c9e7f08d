# Codex: $CODEX_HOME/config.toml with a provider at the model server (Responses API, key from
# OPENAI_API_KEY). plugins = false, or it runs `git ls-remote` of a plugin repository at start.
# No hooks: `git skill init` writes those ($CODEX_HOME/hooks.json; 0.171 runs them without
# features.hooks, and a [features] table is already here: add keys to it, never a second one).
set -eu
export CODEX_HOME="${CODEX_HOME:-$HOME/.codex}"
mkdir -p "$CODEX_HOME"
cat >"$CODEX_HOME/config.toml" <<TOML
model = "gpt-5-codex"
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.scripted]
name = "scripted"
base_url = "http://127.0.0.1:$PORT/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
in_app_updates = false
TOML
