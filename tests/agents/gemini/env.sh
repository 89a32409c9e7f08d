# Gemini CLI at the scripted model (plain http is accepted for localhost only).
export GEMINI_API_KEY=sk-test GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" GEMINI_TELEMETRY_ENABLED=false
