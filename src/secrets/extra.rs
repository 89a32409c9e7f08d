//! Shapes of secrets gitleaks' set does not cover that git-skill's outputs met (issue 48): a
//! password assigned in any syntax (`password = …`, `PGPASSWORD=…`, `"password": "…"`,
//! `--password …`, `Password=…;` in a connection string), `.netrc` and `.pgpass` lines, Azure
//! shared access signatures and keys, Discord, Teams and other webhook URLs, and secrets
//! written in hex or base64. They are rules of the same detector, found and reported like the
//! set's, with ids of their own (`git-skill-…`).

use std::ops::Range;
use std::sync::LazyLock;

use regex::bytes::{Regex, RegexBuilder};

/// One extra rule: its id, what it finds, and the pattern whose first group is the secret.
pub struct Extra {
    pub id: &'static str,
    pub description: &'static str,
    /// Whether it is gitleaks' kind of generic rule (a value by its name), for the guard's
    /// severity.
    pub generic: bool,
    /// Lower-case; the text must hold one.
    pub keywords: &'static [&'static str],
    pattern: &'static str,
}

pub static EXTRAS: &[Extra] = &[
    Extra {
        id: "git-skill-password-assignment",
        description: "A password assigned to a setting, variable, JSON field or option.",
        generic: true,
        // `DB_PASS`, and the word in other languages (German, Spanish, French, Portuguese,
        // Russian, Chinese, Japanese, Korean).
        keywords: &[
            "pass", "pwd", "contrase", "senha", "пароль", "密码", "密碼", "パスワード", "비밀번호",
        ],
        // A value never starts with, and stops at, a JSON escape: `"password:\\nmachine"` is
        // a label before a line break in a quoted text, not a password `\nmachine`.
        pattern: r#"(?i)(?:^|[^a-z0-9])(?:[a-z0-9_.-]*(?:passw(?:or)?d|passwort|passphrase|pwd)|(?:[a-z0-9]+[_.-])+pass|pass|contrase(?:ñ|n)a|mot[ _]de[ _]passe|senha|пароль|Пароль|密码|密碼|パスワード|비밀번호)["']?[ \t]*(?::|=|:=|=>)[ \t]*["'`]?((?:[^\s"'`,;<>()\[\]{}\\]|\\[^nrtu"'\\/\s]){6,128})(?:["'`\s,;)}\]\\]|$)"#,
    },
    Extra {
        id: "git-skill-password-option",
        description: "A password given on a command line (`--password`, `-p`).",
        generic: true,
        keywords: &["--pass"],
        pattern: r#"(?i)--pass(?:word)?(?:[ \t]+|=)["']?((?:[^\s"'`;<>\\]|\\[^nrtu"'\\/\s]){6,128})"#,
    },
    Extra {
        id: "git-skill-user-password",
        description: "A password given with a user name on a command line (`curl -u user:password`).",
        generic: true,
        keywords: &["-u", "--user"],
        pattern: r#"(?:^|[ \t])(?:-u|--user)(?:[ \t]+|=)["']?[^\s:"'\\]+:((?:[^\s"'`;<>\\]|\\[^nrtu"'\\/\s]){6,128})"#,
    },
    Extra {
        id: "git-skill-netrc",
        description: "A `.netrc` entry's password.",
        generic: false,
        keywords: &["machine"],
        pattern: r"(?i)\bmachine[ \t]+\S+\s+login[ \t]+\S+\s+password[ \t]+(\S{4,128})",
    },
    Extra {
        id: "git-skill-pgpass",
        description: "A `.pgpass` line's password (`host:port:database:user:password`).",
        generic: false,
        keywords: &[":"],
        pattern: r"(?m)^[A-Za-z0-9_.*-]+:(?:[0-9]{2,5}|\*):[A-Za-z0-9_.*-]+:[A-Za-z0-9_.*@-]+:([^:\s]{6,128})$",
    },
    Extra {
        id: "git-skill-azure-sas",
        description: "An Azure shared access signature or key (`sig=`, `SharedAccessSignature`, `SharedAccessKey`).",
        generic: false,
        keywords: &["sig=", "sharedaccess"],
        pattern: r"(?i)(?:[?&;]sig=|SharedAccessSignature=sr=[^\s;]*?&sig=|SharedAccessKey=)([A-Za-z0-9%+/=]{20,256})",
    },
    Extra {
        id: "git-skill-discord-webhook",
        description: "A Discord webhook URL: whoever has it posts to the channel.",
        generic: false,
        keywords: &["discord"],
        pattern: r"https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/([A-Za-z0-9_-]{30,128})",
    },
    Extra {
        id: "git-skill-teams-webhook",
        description: "A Microsoft Teams incoming webhook URL.",
        generic: false,
        keywords: &["webhook.office.com", "incomingwebhook"],
        pattern: r"https://[A-Za-z0-9.-]*\.webhook\.office\.com/webhookb2/[A-Za-z0-9@-]+/IncomingWebhook/([A-Za-z0-9_-]{16,})/[A-Za-z0-9-]+",
    },
    Extra {
        id: "git-skill-webhook-url",
        description: "A webhook URL with a long token in its path.",
        generic: false,
        keywords: &["hook"],
        pattern: r"https?://[A-Za-z0-9.-]+(?::[0-9]+)?/(?:[A-Za-z0-9._-]+/)*(?:web)?hooks?/(?:[A-Za-z0-9._-]+/)*([A-Za-z0-9_-]{24,128})",
    },
];

/// Values that stand for a secret without being one, where only the name says a secret is
/// meant (`password = …`): any value [`super::placeholder::placeholder`] says is one, a variable
/// or a call (`config['password']`, `input(...)`), and words docs write there.
fn placeholder(value: &[u8]) -> bool {
    if super::placeholder::placeholder(value) {
        return true;
    }
    let v = String::from_utf8_lossy(value).to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "password",
        "passwd",
        "secret",
        "changeme",
        "change-me",
        "change_me",
        "example",
        "placeholder",
        "your",
        "my-",
        "my_",
        "none",
        "null",
        "true",
        "false",
        "redacted",
        "hunter2",
        "dummy",
        "sample",
        "test",
        "admin",
        "required",
        "optional",
        "string",
        "env",
        "getenv",
        "environ",
        "input",
        "prompt",
        "os.",
        "process.",
        "config.",
        "settings.",
        "self.",
        "args.",
        "params.",
        "options.",
        "request.",
    ];
    WORDS.iter().any(|w| v.contains(w))
}

/// Whether a value has what a chosen password has and a name does not: a digit or a symbol
/// (`authToken`, `user_password` and `Enabled` are names and words).
fn chosen(value: &[u8]) -> bool {
    let digit = value.iter().any(u8::is_ascii_digit);
    let symbol = value
        .iter()
        .any(|b| b.is_ascii_punctuation() && !b".-_/".contains(b));
    digit || symbol
}

static COMPILED: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    EXTRAS
        .iter()
        .map(|e| {
            RegexBuilder::new(e.pattern)
                .unicode(false)
                .build()
                .expect("the extra secret patterns compile")
        })
        .collect()
});

/// The secrets the extra rule `index` of [`EXTRAS`] finds in `bytes` (the caller knows the text
/// holds one of its keywords): secret, match.
pub fn find(index: usize, bytes: &[u8]) -> Vec<(Range<usize>, Range<usize>)> {
    let extra = &EXTRAS[index];
    let mut out = Vec::new();
    for caps in COMPILED[index].captures_iter(bytes) {
        let (Some(whole), Some(secret)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        let value = secret.as_bytes();
        // A rule that knows a secret by its name alone leaves placeholders, words and names
        // alone; one that knows it by its place (`.netrc`, `.pgpass`, `sig=`) takes any value
        // but a mask (masking a masked text changes nothing): `$ecret`, `my…` are passwords.
        let stands_for = if extra.generic {
            placeholder(value) || !chosen(value)
        } else {
            String::from_utf8_lossy(value).contains(crate::redact::MASK)
        };
        if stands_for {
            continue;
        }
        out.push((secret.range(), whole.range()));
    }
    out
}

/// The shortest run looked into: base64 of a 21-byte token, hex of a 14-byte one.
const MIN_BASE64: usize = 28;
/// Longer runs are data (an image, a bundle), not a token written out.
const MAX_RUN: usize = 4096;

/// Where the runs of base64 or hex characters of a token's length are: from a letter, digit
/// or `_` after a character that is none of them, with up to two `=` of padding. A loop over
/// a byte table: this pass reads every byte of every file scanned.
fn runs(bytes: &[u8]) -> Vec<Range<usize>> {
    const fn table() -> [u8; 256] {
        // 1: a base64 (standard or URL-safe) character; 2: a word character too.
        let mut t = [0u8; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            if c.is_ascii_alphanumeric() || c == b'_' {
                t[b] = 2;
            } else if c == b'+' || c == b'/' || c == b'-' {
                t[b] = 1;
            }
            b += 1;
        }
        t
    }
    static CLASS: [u8; 256] = table();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if CLASS[usize::from(bytes[i])] == 0 {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && CLASS[usize::from(bytes[i])] != 0 {
            i += 1;
        }
        // The run starts at its first word character after a boundary: `+`, `/`, `-` before
        // it are separators (`--`, a path's `/`).
        let Some(first) = (start..i).find(|&j| CLASS[usize::from(bytes[j])] == 2) else {
            continue;
        };
        let mut end = i;
        while end < bytes.len() && end - i < 2 && bytes[end] == b'=' {
            end += 1;
        }
        if (MIN_BASE64..=MAX_RUN).contains(&(i - first)) {
            // Hex has no padding.
            let hex = bytes[first..i].iter().all(u8::is_ascii_hexdigit);
            out.push(first..if hex { i } else { end });
        }
        i = end.max(i);
    }
    out
}

/// Runs of hex or base64 long enough to hold a token, with their decoded text when it is text.
pub fn encoded(text: &str) -> Vec<(Range<usize>, String)> {
    use base64::Engine as _;
    let mut out = Vec::new();
    for range in runs(text.as_bytes()) {
        let run = &text.as_bytes()[range.clone()];
        let hex = run.iter().all(u8::is_ascii_hexdigit) && run.len().is_multiple_of(2);
        // Base64 of a token has digits and both cases; a path or a long name has not.
        let mixed = run.iter().any(u8::is_ascii_digit)
            && run.iter().any(u8::is_ascii_uppercase)
            && run.iter().any(u8::is_ascii_lowercase);
        if !hex && !mixed {
            continue;
        }
        let decoded = if hex {
            run.chunks(2)
                .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap_or("zz"), 16).ok())
                .collect::<Option<Vec<u8>>>()
        } else {
            let trimmed: Vec<u8> = run.iter().copied().filter(|&b| b != b'=').collect();
            base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(&trimmed)
                .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(&trimmed))
                .ok()
        };
        let Some(decoded) = decoded else { continue };
        // Only text can be a token someone wrote: random bytes (a hash) are not looked at.
        if let Ok(s) = String::from_utf8(decoded) {
            if s.bytes()
                .all(|b| b.is_ascii_graphic() || b == b' ' || b == b'\n')
            {
                out.push((range.clone(), s));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_a_tokens_length_are_found_from_a_word_character() {
        let hex = "a1".repeat(20);
        let b64 = "QWxhZGRpbjpvcGVuIHNlc2FtZQxxYWJjZGVmZ2hpamts==";
        let text = format!("x {hex} --{b64}; short9AbCdEf; {}", "Zz9".repeat(2000));
        let found: Vec<&str> = runs(text.as_bytes())
            .iter()
            .map(|r| &text[r.clone()])
            .collect();
        assert_eq!(found, [hex.as_str(), b64]);
        assert!(runs(b"").is_empty());
        assert!(runs("字".repeat(40).as_bytes()).is_empty());
    }
}
