# Qwen Code: $HOME/.qwen/settings.json names an OpenAI-compatible provider at the model server
# (key from OPENAI_API_KEY). No hooks: `git skill init` writes those. Qwen rewrites this file
# at start ("$version", a settings.json.orig copy).
set -eu
mkdir -p "$HOME/.qwen"
cat >"$HOME/.qwen/settings.json" <<JSON
{
  "modelProviders": {
    "openai": [{"id": "scripted", "name": "scripted", "baseUrl": "http://127.0.0.1:$PORT/v1", "envKey": "OPENAI_API_KEY"}]
  },
  "security": {"auth": {"selectedType": "openai"}},
  "model": {"name": "scripted"},
  "general": {"enableAutoUpdate": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
JSON
