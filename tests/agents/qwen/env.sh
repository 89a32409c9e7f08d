# Qwen Code reads its provider from $HOME/.qwen/settings.json (setup.sh) and its key from
# OPENAI_API_KEY (run.sh).
:
