# Claude Code: settings under $HOME/.claude (no hooks: `git skill init` writes those).
# The model server, the key and the traffic switches are environment variables (cmd.sh).
set -eu
mkdir -p "$HOME/.claude"
cat >"$HOME/.claude/settings.json" <<JSON
{
  "permissions": {"allow": ["Read", "Bash"]}
}
JSON
