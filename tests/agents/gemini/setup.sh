# Gemini CLI: $HOME/.gemini/settings.json (API-key auth, folder trust off, no telemetry or
# updates); the model server's address and the key are environment variables (cmd.sh).
# No hooks: `git skill init` writes those.
set -eu
mkdir -p "$HOME/.gemini"
cat >"$HOME/.gemini/settings.json" <<JSON
{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
JSON
