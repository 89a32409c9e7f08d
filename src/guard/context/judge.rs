//! What a value of agents' settings means, judged by itself: an environment variable that loads
//! code or sends traffic elsewhere, a model endpoint or an MCP server on a host that is not the
//! vendor's, a marketplace from outside the repository. A host is "known" by the same
//! registration logic as a secret sent to its vendor (`guard::analysis::secrets::vendor_host`):
//! the name it is registered under is the vendor's word, or it is this machine.

use super::value::Value;
use crate::guard::analysis::secrets::{loopback, url_host, vendor_host};
use crate::guard::rules::agent_config::{CFG002, CFG003, CFG004, CFG013};
use crate::guard::Rule;

/// Variables that make a program load code before it does what it was asked: set for the
/// agent, its hooks or a server, they run that code in every command it starts.
const LOADS_CODE: &[&str] = &[
    "LD_PRELOAD",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "ZDOTDIR",
    "PYTHONSTARTUP",
    "PERL5OPT",
    "RUBYOPT",
];

/// Search paths for programs and native libraries: what is first in them runs instead of the
/// system's `git`, `node` or `libc`.
const SEARCH_PATHS: &[&str] = &["PATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"];

/// Search paths for a language's modules: the repository's own folders there are its own code
/// (`PYTHONPATH=src`), a temporary folder is anyone's.
const MODULE_PATHS: &[&str] = &["PYTHONPATH", "NODE_PATH", "PERL5LIB", "RUBYLIB"];

/// Variables that point git at another repository or configuration, or set git-skill's own
/// settings (see CFG013).
fn steers_git(upper: &str, value: &str) -> bool {
    const GIT: &[&str] = &[
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_EXEC_PATH",
        "GIT_TEMPLATE_DIR",
        "GIT_CONFIG",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_PARAMETERS",
    ];
    upper.starts_with("GIT_SKILL_")
        || upper.starts_with("GIT_CONFIG_KEY_")
        || upper.starts_with("GIT_CONFIG_VALUE_")
        || GIT.contains(&upper)
        || (upper == "SKIP" && value.split(',').any(|h| h.trim().starts_with("git-skill")))
}

/// What setting `var` to `value` does, as findings (rule and detail).
pub fn env(var: &str, value: &str) -> Vec<(&'static Rule, String)> {
    let upper = var.to_ascii_uppercase();
    let v = value.trim();
    let mut out = Vec::new();
    let loads = match upper.as_str() {
        "NODE_OPTIONS" => v.split_whitespace().any(|w| {
            matches!(
                w,
                "-r" | "--require" | "--import" | "--loader" | "--experimental-loader"
            ) || w.starts_with("--require=")
                || w.starts_with("--import=")
                || w.starts_with("--loader=")
                || w.starts_with("--experimental-loader=")
        }),
        "JAVA_TOOL_OPTIONS" | "_JAVA_OPTIONS" | "JDK_JAVA_OPTIONS" => {
            v.contains("-javaagent") || v.contains("-agentpath") || v.contains("-agentlib")
        }
        u if LOADS_CODE.contains(&u) => !v.is_empty(),
        u if SEARCH_PATHS.contains(&u) => search_dirs(v).any(|dir| unsafe_search_dir(dir.trim())),
        u if MODULE_PATHS.contains(&u) => search_dirs(v).any(|dir| temporary(dir.trim())),
        _ => false,
    };
    if loads {
        out.push((&CFG002, format!("{var}={}", crate::report::one_line(v, 60))));
    }
    if steers_git(&upper, v) {
        out.push((&CFG013, format!("{var}={}", crate::report::one_line(v, 60))));
    }
    if is_endpoint_variable(&upper) {
        if let Some(detail) = foreign_endpoint(var, v) {
            out.push((&CFG003, detail));
        }
    }
    let proxy = matches!(upper.as_str(), "HTTPS_PROXY" | "HTTP_PROXY" | "ALL_PROXY")
        && url_host(v).is_some_and(|h| !loopback(h));
    let tls_off = upper == "NODE_TLS_REJECT_UNAUTHORIZED" && v == "0";
    let own_ca = matches!(
        upper.as_str(),
        "NODE_EXTRA_CA_CERTS" | "SSL_CERT_FILE" | "REQUESTS_CA_BUNDLE" | "CURL_CA_BUNDLE"
    ) && !v.is_empty();
    if proxy || tls_off || own_ca {
        out.push((&CFG004, format!("{var}={}", crate::report::one_line(v, 60))));
    }
    if upper == "AIDER_YES_ALWAYS" && v.eq_ignore_ascii_case("true") {
        out.push((
            &crate::guard::rules::agent_config::CFG005,
            format!("{var}={v}"),
        ));
    }
    out
}

/// The entries of a search path, split at `:` and `;` but not inside `${...}`
/// (`${containerEnv:PATH}:/home/vscode/.local/bin` is two).
fn search_dirs(value: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    let bytes = value.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' if i > 0 && bytes[i - 1] == b'$' => depth += 1,
            b'}' if depth > 0 => depth -= 1,
            b':' | b';' if depth == 0 => {
                out.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&value[start..]);
    out.into_iter()
}

/// Variables that stand for the repository's own folder.
const PROJECT_FOLDERS: &[&str] = &[
    "$PWD",
    "${PWD}",
    "${workspaceFolder}",
    "${containerWorkspaceFolder}",
    "$CLAUDE_PROJECT_DIR",
    "${CLAUDE_PROJECT_DIR}",
    "$GEMINI_PROJECT_DIR",
    "${GEMINI_PROJECT_DIR}",
];

/// A folder that puts what the repository (a relative path, an empty entry, the project's
/// variable) or anyone (a temporary folder) wrote ahead of the system's programs.
fn unsafe_search_dir(dir: &str) -> bool {
    // An empty entry is the current folder.
    if dir.is_empty() || PROJECT_FOLDERS.iter().any(|v| dir.starts_with(v)) {
        return true;
    }
    let relative = !(dir.starts_with('/')
        || dir.starts_with('$')
        || dir.starts_with('~')
        || dir.starts_with('%')
        || dir.as_bytes().get(1) == Some(&b':'));
    relative || temporary(dir)
}

fn temporary(dir: &str) -> bool {
    ["/tmp", "/var/tmp", "/dev/shm", "/private/tmp"]
        .iter()
        .any(|t| dir == *t || dir.starts_with(&format!("{t}/")))
}

/// Whether a variable names where model requests go (`ANTHROPIC_BASE_URL`, `OPENAI_API_BASE`).
fn is_endpoint_variable(upper: &str) -> bool {
    // Only the shapes agents and their SDKs read: an application's own `NEXT_PUBLIC_API_URL` or
    // `AWS_ENDPOINT_URL` in a `.env` is not where a model's requests go.
    upper.ends_with("_BASE_URL") || upper.ends_with("_API_BASE") || upper == "OPENAI_BASE"
}

/// When `url`'s host is neither this machine nor the vendor's that `setting` names (its words
/// but the generic ones: `ANTHROPIC_BASE_URL` names `anthropic`): what to say.
pub fn foreign_endpoint(setting: &str, url: &str) -> Option<String> {
    let host = url_host(url.trim())?;
    if loopback(host) {
        return None;
    }
    let vendor: String = setting
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            !matches!(
                w.to_ascii_uppercase().as_str(),
                "BASE"
                    | "URL"
                    | "BASEURL"
                    | "HOST"
                    | "ENDPOINT"
                    | "URI"
                    | "PROXY"
                    | "MODEL"
                    | "PROVIDERS"
                    | "PROVIDER"
                    | "OPTIONS"
                    | ""
            )
        })
        .collect::<Vec<_>>()
        .join("_");
    (!vendor_host(&vendor, host)).then(|| format!("{setting} to {host}"))
}

/// Providers whose hosts are known by their name, as settings name them under a map of
/// providers (Codex's `model_providers`, OpenCode's `provider`, Qwen Code's `modelProviders`).
const KNOWN_PROVIDERS: &[&str] = &[
    "openai",
    "anthropic",
    "azure",
    "google",
    "gemini",
    "mistral",
    "deepseek",
    "groq",
    "openrouter",
    "xai",
    "together",
    "fireworks",
    "cohere",
    "perplexity",
    "huggingface",
    "amazon",
    "aws",
    "github",
];

/// Whose endpoint the setting at `path` is: under a map of providers, the provider's key when
/// it is a provider's own name ("" otherwise: a name the repository chose vouches for
/// nothing); elsewhere the key itself, which the agent names (`openai-api-base`).
pub fn endpoint_owner<'p>(path: &[&'p str]) -> &'p str {
    let map = path
        .iter()
        .position(|k| matches!(*k, "model_providers" | "provider" | "modelProviders"));
    match map {
        Some(at) => path
            .get(at + 1)
            .copied()
            .filter(|id| KNOWN_PROVIDERS.iter().any(|p| p.eq_ignore_ascii_case(id)))
            .unwrap_or(""),
        None => path.last().copied().unwrap_or(""),
    }
}

pub fn is_url(text: &str) -> bool {
    let lower = text.trim().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// Whether a plugin or marketplace names a path (in the repository, if it resolves) rather
/// than a package or a remote repository.
pub fn is_local_path(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("./")
        || t.starts_with("../")
        || t.starts_with('/')
        || t.starts_with("file:")
        || t == "."
        || [".js", ".ts", ".mjs", ".cjs", ".mts", ".cts"]
            .iter()
            .any(|e| t.ends_with(e))
}

/// Where a marketplace comes from.
pub enum Source {
    /// A folder of this repository (checked like any plugin).
    Local(String),
    /// Anthropic's own.
    Anthropic,
    /// Elsewhere: what to say.
    Remote(String),
}

/// A marketplace entry's `source` (`{"source": "github", "repo": "o/r"}`, a URL, a path).
pub fn marketplace_source(entry: &Value) -> Source {
    let source = entry.get("source").unwrap_or(entry);
    let field = |k: &str| source.get(k).and_then(Value::as_text).map(str::to_owned);
    if let Some(text) = source.as_text() {
        return if is_local_path(text) {
            Source::Local(text.to_owned())
        } else if anthropic_repo(text) {
            Source::Anthropic
        } else {
            Source::Remote(text.to_owned())
        };
    }
    let kind = field("source").unwrap_or_default();
    if let Some(path) = field("path").filter(|_| matches!(kind.as_str(), "directory" | "file" | ""))
    {
        return Source::Local(path);
    }
    let what = field("repo").or_else(|| field("url")).unwrap_or(kind);
    if anthropic_repo(&what) {
        Source::Anthropic
    } else {
        Source::Remote(what)
    }
}

fn anthropic_repo(what: &str) -> bool {
    let lower = what.to_ascii_lowercase();
    lower.starts_with("anthropics/") || lower.contains("github.com/anthropics/")
}

/// Anthropic's own marketplaces, known to Claude Code by name.
pub fn anthropic_marketplace(name: &str) -> bool {
    matches!(
        name,
        "claude-plugins-official" | "anthropic-agent-skills" | "claude-code-plugins"
    )
}

/// Variables whose value a program runs as a command (`AIDER_LINT_CMD`, `GIT_SSH_COMMAND`).
pub fn command_variable(var: &str) -> bool {
    let upper = var.to_ascii_uppercase();
    upper.ends_with("_CMD") || upper.ends_with("_COMMAND")
}

/// The file a system-prompt variable puts in place of the agent's system prompt
/// (`GEMINI_SYSTEM_MD=1` reads `.gemini/system.md`; another value is a path).
pub fn system_prompt_file(var: &str, value: &str) -> Option<String> {
    let upper = var.to_ascii_uppercase();
    let dir = match upper.as_str() {
        "GEMINI_SYSTEM_MD" => ".gemini",
        "QWEN_SYSTEM_MD" => ".qwen",
        _ => return None,
    };
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "0" | "false" => None,
        "1" | "true" => Some(format!("{dir}/system.md")),
        _ => Some(value.trim().to_owned()),
    }
}

/// A remote MCP server that receives a credential on a host the credential does not belong
/// to: what to say, and where.
pub fn remote_credential(name: &str, server: &Value) -> Option<(String, usize)> {
    // Every URL the server names: agents differ in which one they use (`httpUrl` before `url`).
    ["url", "httpUrl", "serverUrl", "endpoint"]
        .iter()
        .filter_map(|k| server.get(k).and_then(Value::as_str))
        .find_map(|url| credential_to(name, server, url))
}

/// [`remote_credential`] for one of the server's URLs.
fn credential_to(name: &str, server: &Value, url: &super::value::Str) -> Option<(String, usize)> {
    let host = url_host(&url.text)?;
    if loopback(host) {
        return None;
    }
    // The variables the credential comes from, and whether there is one at all.
    let mut vars: Vec<String> = Vec::new();
    let mut credential = false;
    if let Some(Value::Object(headers)) =
        server.get("headers").or_else(|| server.get("http_headers"))
    {
        for (header, v) in headers {
            let text = v.as_text().unwrap_or("");
            let named = variables(text);
            if header.eq_ignore_ascii_case("authorization")
                || header.to_ascii_lowercase().contains("key")
                || header.to_ascii_lowercase().contains("token")
                || !named.is_empty()
            {
                credential = true;
            }
            vars.extend(named);
        }
    }
    for key in ["bearer_token_env_var", "bearer_token"] {
        if let Some(v) = server.get(key).and_then(Value::as_text) {
            credential = true;
            if key.ends_with("env_var") {
                vars.push(v.to_owned());
            }
        }
    }
    if let Some(Value::Object(headers)) = server.get("env_http_headers") {
        for (_, v) in headers {
            if let Some(var) = v.as_text() {
                credential = true;
                vars.push(var.to_owned());
            }
        }
    }
    if !credential {
        return None;
    }
    // The credential belongs to the host its variable (or else the server's name) names.
    let owners: Vec<&str> = if vars.is_empty() {
        vec![name]
    } else {
        vars.iter().map(String::as_str).collect()
    };
    // Each credential must belong to the host: one variable named after it does not make the
    // others its.
    if owners.iter().all(|o| vendor_host(o, host)) {
        return None;
    }
    let what = if vars.is_empty() {
        "a credential".to_owned()
    } else {
        vars.join(", ")
    };
    Some((format!("{name}: {what} to {host}"), url.at))
}

/// The environment variables a value refers to: `$VAR`, `${VAR}`, `${env:VAR}`, `{env:VAR}`.
fn variables(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        let start = if rest.starts_with("${env:") {
            Some(i + 6)
        } else if rest.starts_with("{env:") {
            Some(i + 5)
        } else if rest.starts_with("${") {
            Some(i + 2)
        } else if rest.starts_with('$') {
            Some(i + 1)
        } else {
            None
        };
        if let Some(s) = start {
            let end = text[s..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(text.len(), |e| s + e);
            if end > s {
                out.push(text[s..end].to_owned());
            }
            i = end.max(i + 1);
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(var: &str, value: &str) -> Vec<&'static str> {
        env(var, value).into_iter().map(|(r, _)| r.id).collect()
    }

    #[test]
    fn environment_variables_by_what_they_do() {
        assert_eq!(rules("NODE_OPTIONS", "--require ./boot.js"), ["CFG002"]);
        assert_eq!(rules("NODE_OPTIONS", "-r ./boot.js"), ["CFG002"]);
        assert!(rules("NODE_OPTIONS", "--max-old-space-size=4096").is_empty());
        assert_eq!(rules("LD_PRELOAD", "/tmp/x.so"), ["CFG002"]);
        assert_eq!(rules("path", "bin:/usr/bin"), ["CFG002"]);
        assert_eq!(rules("PATH", "/tmp/evil:/usr/bin"), ["CFG002"]);
        assert!(rules("PATH", "/usr/local/bin:$PATH").is_empty());
        assert!(rules("PATH", "$HOME/.cargo/bin:/usr/bin").is_empty());
        assert!(rules("PATH", "${containerEnv:PATH}:/home/vscode/.local/bin").is_empty());
        assert_eq!(rules("PATH", ":/usr/bin"), ["CFG002"]);
        assert_eq!(rules("PATH", "${PWD}/bin:/usr/bin"), ["CFG002"]);
        assert!(rules("PYTHONPATH", "src").is_empty() && rules("NODE_PATH", "src").is_empty());
        assert_eq!(rules("PYTHONPATH", "/tmp/x"), ["CFG002"]);
        assert!(rules("NEXT_PUBLIC_API_URL", "https://api.mysite.example").is_empty());
        assert!(rules("AWS_ENDPOINT_URL", "http://localstack:4566").is_empty());
        assert_eq!(rules("JAVA_TOOL_OPTIONS", "-javaagent:x.jar"), ["CFG002"]);
        assert_eq!(
            rules("ANTHROPIC_BASE_URL", "https://api.anthropic.example.net"),
            ["CFG003"]
        );
        assert!(rules("ANTHROPIC_BASE_URL", "https://api.anthropic.com/").is_empty());
        assert!(rules("OPENAI_BASE_URL", "http://localhost:11434/v1").is_empty());
        assert_eq!(
            rules("OPENAI_BASE_URL", "https://url.example.net/v1"),
            ["CFG003"]
        );
        // A host registered under "url" or "base" is no vendor's.
        assert_eq!(
            rules("ANTHROPIC_BASE_URL", "https://x.base.com"),
            ["CFG003"]
        );
        assert_eq!(
            rules("HTTPS_PROXY", "http://proxy.example.net:3128"),
            ["CFG004"]
        );
        assert!(rules("HTTPS_PROXY", "http://127.0.0.1:3128").is_empty());
        assert_eq!(rules("NODE_TLS_REJECT_UNAUTHORIZED", "0"), ["CFG004"]);
        assert!(rules("DISABLE_TELEMETRY", "1").is_empty());
        assert!(rules("🦀_BASE_URL", "not a url").is_empty());
    }

    #[test]
    fn helpers() {
        assert_eq!(
            variables("Bearer ${GITHUB_TOKEN} $X {env:Y} ${env:Z} $"),
            ["GITHUB_TOKEN", "X", "Y", "Z"]
        );
        assert_eq!(
            system_prompt_file("GEMINI_SYSTEM_MD", "1").as_deref(),
            Some(".gemini/system.md")
        );
        assert_eq!(
            system_prompt_file("GEMINI_SYSTEM_MD", "docs/p.md").as_deref(),
            Some("docs/p.md")
        );
        assert_eq!(system_prompt_file("GEMINI_SYSTEM_MD", "false"), None);
        assert!(is_local_path("./plugins/x.ts") && !is_local_path("opencode-helper"));
        assert!(command_variable("AIDER_LINT_CMD") && !command_variable("CMDLINE"));
        assert!(foreign_endpoint("azure_base_url", "https://x.openai.azure.com").is_none());
        assert!(foreign_endpoint("stub_base_url", "https://api.example.net").is_some());
        assert_eq!(endpoint_owner(&["model_providers", "evil", "base_url"]), "");
        assert_eq!(
            endpoint_owner(&["model_providers", "azure", "base_url"]),
            "azure"
        );
        assert_eq!(
            endpoint_owner(&["provider", "anthropic", "options", "baseURL"]),
            "anthropic"
        );
        assert_eq!(endpoint_owner(&["openai-api-base"]), "openai-api-base");
        assert!(foreign_endpoint("", "https://api.evil.example.net/v1").is_some());
    }
}
