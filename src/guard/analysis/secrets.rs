//! What counts as a secret and where it may go: the vocabulary the code analyses share.
//! Sources are environment variables with secret-like names and credential files; sinks are
//! network destinations. Loopback destinations and a vendor's own API host receiving the
//! vendor's key are not exfiltration.

/// Whether an environment variable's name says it holds a secret (`GITHUB_TOKEN`,
/// `AWS_SECRET_ACCESS_KEY`, `DATABASE_URL`), as opposed to something about one
/// (`TOKEN_FILE`, `API_KEY_NAME`, `CLIENT_ID`).
pub fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    // Names of settings, not values: where a secret lives, how it is called, when it expires.
    const ABOUT: &[&str] = &[
        "_FILE",
        "_PATH",
        "_DIR",
        "_NAME",
        "_ID",
        "_HOST",
        "_PORT",
        "_TYPE",
        "_LENGTH",
        "_LEN",
        "_EXPIRY",
        "_EXPIRES",
        "_TTL",
        "_HEADER",
        "_ENV",
        "_VAR",
        "_URL_BASE",
        "_ENDPOINT",
        "_REGION",
        "_SCOPE",
        "_SCOPES",
        "_PREFIX",
        "_COUNT",
        "_MODE",
    ];
    if ABOUT.iter().any(|s| upper.ends_with(s)) && !upper.ends_with("DATABASE_URL") {
        return false;
    }
    let words: Vec<&str> = upper.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    let has = |w: &str| words.contains(&w);
    const PARTS: &[&str] = &[
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "APIKEY",
        "CREDENTIAL",
        "CREDENTIALS",
        "COOKIE",
        "PRIVATE_KEY",
        "ACCESS_KEY",
        "API_KEY",
        "AUTH_KEY",
        "SIGNING_KEY",
        "MASTER_KEY",
        "SERVICE_KEY",
        "SESSION_KEY",
        "CLIENT_SECRET",
        "DATABASE_URL",
        "CONNECTION_STRING",
        "MNEMONIC",
        "SEED_PHRASE",
    ];
    PARTS.iter().any(|p| upper.contains(p))
        || has("PASS")
        || has("PAT")
        || has("PWD") && words.len() > 1
        || has("DSN")
        || words.last() == Some(&"KEY") && words.len() > 1
}

/// The words of a secret's name that name its vendor (`GITHUB_TOKEN` -> `github`), for the
/// "vendor's key to the vendor's host" exemption; empty for generic names (`API_KEY`).
pub fn vendor_words(name: &str) -> Vec<String> {
    const GENERIC: &[&str] = &[
        "API",
        "KEY",
        "TOKEN",
        "SECRET",
        "ACCESS",
        "AUTH",
        "PERSONAL",
        "PAT",
        "CLIENT",
        "ID",
        "PRIVATE",
        "PASSWORD",
        "PASS",
        "BOT",
        "APP",
        "USER",
        "SERVICE",
        "ACCOUNT",
        "BEARER",
        "OAUTH",
        "REFRESH",
        "SESSION",
        "MY",
        "THE",
        "DEFAULT",
        "PROD",
        "DEV",
        "TEST",
        "STAGING",
        "ADMIN",
        "WRITE",
        "READ",
        "ORG",
        "APIKEY",
        "CREDENTIALS",
        "CREDENTIAL",
        "KEYS",
    ];
    name.to_ascii_uppercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 2 && !GENERIC.contains(w))
        .map(|w| {
            match w {
                "GH" => "github",
                "HF" => "huggingface",
                "GCP" | "GOOGLE" | "GEMINI" => "google",
                "CF" => "cloudflare",
                other => return other.to_ascii_lowercase(),
            }
            .to_owned()
        })
        .collect()
}

/// Whether `host` belongs to the vendor a secret's name names: the vendor's word is the name
/// the host is registered under (`github` in `api.github.com`, `openai` in `api.openai.com`),
/// not any part of it, so a look-alike (`github.com.t.example`, `evilgithub.com`) is not the
/// vendor's: a subdomain label is the attacker's to choose (`openai.t.example`). A few vendors
/// serve from other names (`googleapis.com`, `amazonaws.com`, `microsoftonline.com`,
/// `githubusercontent.com` and `githubcopilot.com`, NCBI from `nih.gov`).
pub fn vendor_host(secret: &str, host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    let host = host.trim_end_matches('.');
    let words = vendor_words(secret);
    let under = |domain: &str| host == domain || host.ends_with(&format!(".{domain}"));
    !words.is_empty()
        && words.iter().any(|w| {
            registered_name(host) == Some(w.as_str())
                || (w == "google" && (under("googleapis.com") || under("google.com")))
                || (w == "aws" && under("amazonaws.com"))
                || (w == "azure"
                    && [
                        "azure.com",
                        "microsoft.com",
                        "microsoftonline.com",
                        "windows.net",
                    ]
                    .iter()
                    .any(|d| under(d)))
                || (w == "github" && (under("githubusercontent.com") || under("githubcopilot.com")))
                || (w == "ncbi" && under("ncbi.nlm.nih.gov"))
        })
}

/// The label a host is registered under: the one before its public suffix (`github` in
/// `api.github.com`; `bbc` in `www.bbc.co.uk`, for the common two-label suffixes).
fn registered_name(host: &str) -> Option<&str> {
    let labels: Vec<&str> = host.split('.').collect();
    let n = labels.len();
    if n < 2 {
        return None;
    }
    const SECOND_LEVEL: &[&str] = &["co", "com", "net", "org", "gov", "ac", "edu"];
    if n >= 3 && labels[n - 1].len() == 2 && SECOND_LEVEL.contains(&labels[n - 2]) {
        return Some(labels[n - 3]);
    }
    Some(labels[n - 2])
}

/// Whether a destination host is this machine.
pub fn loopback(host: &str) -> bool {
    let h = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    h == "localhost"
        || h.ends_with(".localhost")
        || (h.starts_with("127.") && h.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        || h == "::1"
        || h == "0.0.0.0"
        || h == "host.docker.internal"
}

/// The host of a URL-looking string (`https://h:8080/p`, `//h/p`), if any.
pub fn url_host(text: &str) -> Option<&str> {
    let lower_scheme = text.find("://").filter(|&i| {
        i > 0
            && text[..i]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-')
    });
    let rest = &text[lower_scheme? + 3..];
    let rest = rest.rsplit_once('@').map(|(_, h)| h).unwrap_or(rest);
    let end = rest.find(['/', '?', '#', '"', '\'']).unwrap_or(rest.len());
    let hostport = &rest[..end];
    let host = if hostport.starts_with('[') {
        hostport.split_inclusive(']').next().unwrap_or(hostport)
    } else {
        hostport.split(':').next().unwrap_or(hostport)
    };
    (!host.is_empty()).then_some(host)
}

/// A path with the home directory spelled `~` (`$HOME`, `/root`, `/home/u`, `/Users/u`).
pub fn home_relative(path: &str) -> String {
    let p = path.trim_matches(|c| c == '"' || c == '\'');
    for prefix in ["$HOME", "${HOME}", "%USERPROFILE%", "$env:USERPROFILE"] {
        if let Some(rest) = p.strip_prefix(prefix) {
            return format!("~{rest}");
        }
    }
    if let Some(rest) = p.strip_prefix("/root") {
        if rest.is_empty() || rest.starts_with('/') {
            return format!("~{rest}");
        }
    }
    for base in ["/home/", "/Users/"] {
        if let Some(rest) = p.strip_prefix(base) {
            if let Some(i) = rest.find('/') {
                return format!("~{}", &rest[i..]);
            }
        }
    }
    p.to_owned()
}

/// Whether reading this path reads credentials: SSH and cloud keys, token stores of package
/// managers and CLIs, keychains, browser and wallet stores, `.env` files, the shadow file and
/// a process's environment.
pub fn credential_path(path: &str) -> bool {
    let p = home_relative(path);
    let lower = p.to_ascii_lowercase();
    let name = lower.rsplit(['/', '\\']).next().unwrap_or(&lower);
    if let Some(rest) = lower.strip_prefix("~/.ssh") {
        let benign = rest.ends_with(".pub")
            || rest.ends_with("known_hosts")
            || rest.ends_with("/config")
            || rest.ends_with("authorized_keys")
            || rest.ends_with("environment");
        return !benign;
    }
    const HOME_STORES: &[&str] = &[
        "~/.aws/credentials",
        "~/.aws/sso/cache",
        "~/.azure/",
        "~/.config/gcloud",
        "~/.kube/config",
        "~/.docker/config.json",
        "~/.netrc",
        "~/_netrc",
        "~/.git-credentials",
        "~/.npmrc",
        "~/.yarnrc",
        "~/.pypirc",
        "~/.gem/credentials",
        "~/.cargo/credentials",
        "~/.config/gh/hosts.yml",
        "~/.vault-token",
        "~/.terraform.d/credentials",
        "~/.gnupg",
        "~/.password-store",
        "~/library/keychains",
        "~/.local/share/keyrings",
        "~/.claude/.credentials.json",
        "~/.codex/auth.json",
        "~/.config/google-chrome",
        "~/.config/chromium",
        "~/.config/bravesoftware",
        "~/library/application support/google/chrome",
        "~/library/application support/firefox",
        "~/library/cookies",
        "~/.mozilla/firefox",
        "~/.bitcoin",
        "~/.electrum",
        "~/.ethereum/keystore",
        "~/.solana/id.json",
        "~/.config/solana",
        "~/library/application support/exodus",
        "~/.bash_history",
        "~/.zsh_history",
    ];
    HOME_STORES.iter().any(|s| lower.starts_with(s))
        || lower.starts_with("/etc/shadow")
        || lower.starts_with("/etc/gshadow")
        || (lower.starts_with("/proc/") && lower.ends_with("/environ"))
        || name == "login data"
        || name == "key4.db"
        || name == "logins.json"
        || name == "cookies.sqlite"
        || name == "wallet.dat"
        || name == "id_rsa"
        || name == "id_ed25519"
        || name == "id_ecdsa"
        || name == ".git-credentials"
        || name == ".netrc"
        || name == "login.keychain-db"
        || name == "credentials.json"
        || (name == ".env"
            || name.starts_with(".env.")
                && ![".example", ".sample", ".template", ".dist", ".defaults"]
                    .iter()
                    .any(|s| name.ends_with(s)))
}

/// The system's account lists: not secrets, but what an attacker sends home first to learn
/// the users of a machine. Read alone they are ordinary (PTH007, low); sent to a host they are
/// a secret's flow.
pub fn account_list(path: &str) -> bool {
    matches!(path, "/etc/passwd" | "/etc/group" | "/etc/master.passwd")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for n in [
            "GITHUB_TOKEN",
            "ANTHROPIC_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "DATABASE_URL",
            "DOCKER_PASSWORD",
            "STRIPE_KEY",
            "NPM_TOKEN",
            "SSH_PRIVATE_KEY",
            "SENTRY_DSN",
            "DB_PASS",
        ] {
            assert!(secret_name(n), "{n}");
        }
        for n in [
            "HOME",
            "PATH",
            "TOKEN_FILE",
            "API_KEY_NAME",
            "CLIENT_ID",
            "KEYBOARD",
            "MONKEY",
            "PWD",
            "OPENAI_BASE_URL",
            "GITHUB_API_URL",
        ] {
            assert!(!secret_name(n), "{n}");
        }
    }

    #[test]
    fn vendors_and_hosts() {
        assert!(vendor_host("GITHUB_TOKEN", "api.github.com"));
        assert!(vendor_host("GH_TOKEN", "uploads.github.com"));
        assert!(vendor_host("OPENAI_API_KEY", "api.openai.com"));
        assert!(vendor_host("LINEAR_API_KEY", "api.linear.app"));
        assert!(!vendor_host("GITHUB_TOKEN", "t.example"));
        // Look-alikes are not the vendor's.
        assert!(!vendor_host("GITHUB_TOKEN", "github.com.t.example"));
        assert!(!vendor_host("GITHUB_TOKEN", "evilgithub.com"));
        assert!(!vendor_host("OPENAI_API_KEY", "openai.t.example"));
        assert!(!vendor_host("AZURE_TOKEN", "microsoft.t.example"));
        assert!(vendor_host("GITHUB_TOKEN", "objects.githubusercontent.com"));
        assert!(vendor_host(
            "GEMINI_API_KEY",
            "generativelanguage.googleapis.com"
        ));
        assert!(vendor_host("AZURE_TOKEN", "login.microsoftonline.com"));
        assert!(vendor_host("HF_TOKEN", "api-inference.huggingface.co"));
        assert!(vendor_host("BBC_KEY", "api.bbc.co.uk"));
        assert!(vendor_host("NCBI_API_KEY", "eutils.ncbi.nlm.nih.gov"));
        assert!(
            !vendor_host("API_KEY", "api.example.com"),
            "generic names have no vendor"
        );
        assert!(loopback("127.0.0.1") && loopback("localhost") && loopback("[::1]"));
        assert!(!loopback("127.evil.example"));
        assert_eq!(
            url_host("https://u:p@h.example:8080/x?y"),
            Some("h.example")
        );
        assert_eq!(url_host("not a url"), None);
    }

    #[test]
    fn credential_paths() {
        for p in [
            "~/.ssh/id_ed25519",
            "$HOME/.aws/credentials",
            "/home/u/.netrc",
            "/root/.ssh/id_rsa",
            ".env",
            "config/.env.production",
            "~/.config/gh/hosts.yml",
            "/proc/self/environ",
        ] {
            assert!(credential_path(p), "{p}");
        }
        for p in [
            "~/.ssh/id_rsa.pub",
            "~/.ssh/known_hosts",
            ".env.example",
            "README.md",
            "~/.aws/config",
        ] {
            assert!(!credential_path(p), "{p}");
        }
    }
}
