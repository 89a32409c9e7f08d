# Copilot CLI, offline, at the scripted model (OpenAI chat completions). COPILOT_PKG_CACHE_HOME:
# where it unpacked its platform package at install time (shared, read-only use).
export COPILOT_HOME="${COPILOT_HOME:-$HOME/.copilot}" COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false \
    COPILOT_PKG_CACHE_HOME="$AGENTS_PREFIX/copilot/pkgcache" \
    COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$PORT/v1" COPILOT_PROVIDER_API_KEY=sk-test COPILOT_MODEL=gpt-4.1
