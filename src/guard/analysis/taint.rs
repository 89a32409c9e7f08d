//! What a value carries, shared by the shell and Python analyses: secrets (with the names of
//! the variables they came from, for the vendor exemption), downloaded or decoded data, and
//! block devices.

/// Kinds of data a value may hold.
pub type Flags = u16;

pub const SECRET: Flags = 1;
/// Data fetched from the network.
pub const DOWNLOAD: Flags = 2;
/// Data decoded from base64, hex or escapes.
pub const DECODED: Flags = 4;
/// A block device path, or a list of them (`lsblk`).
pub const DEVICE: Flags = 8;
/// Read from a file at run time.
pub const FILE: Flags = 16;
/// Read from a network socket (`nc -l`): whoever connects writes it.
pub const SOCKET: Flags = 32;
/// Only known at run time: an unset variable's expansion echoed or printed.
pub const VARIABLE: Flags = 64;
/// Run-time data passed through base64, base32 or hex, either way: what is sent so encoded
/// hides what it is (`echo "$x" | base64 | curl --data @- ...`).
pub const TRANSCODED: Flags = 128;

/// Secret names kept per value: enough to judge the vendor exemption.
const MAX_NAMES: usize = 8;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Taint {
    pub flags: Flags,
    /// Where the secrets came from: variable names, `credential file`, `environment`.
    pub sources: Vec<String>,
}

impl Taint {
    pub fn of(flags: Flags) -> Taint {
        Taint {
            flags,
            sources: Vec::new(),
        }
    }

    pub fn secret(source: &str) -> Taint {
        Taint {
            flags: SECRET,
            sources: vec![source.to_owned()],
        }
    }

    pub fn has(&self, flag: Flags) -> bool {
        self.flags & flag != 0
    }

    pub fn add(&mut self, other: &Taint) {
        self.flags |= other.flags;
        for s in &other.sources {
            if self.sources.len() < MAX_NAMES && !self.sources.contains(s) {
                self.sources.push(s.clone());
            }
        }
    }

    pub fn union(mut self, other: &Taint) -> Taint {
        self.add(other);
        self
    }

    /// Whether every secret in it came from a variable whose vendor owns `host`.
    pub fn vendor_owned(&self, host: &str) -> bool {
        !self.sources.is_empty()
            && self
                .sources
                .iter()
                .all(|s| super::secrets::vendor_host(s, host))
    }

    /// Whether the secrets are only named variables with no vendor in their name (`API_KEY`),
    /// not whole environments or credential files.
    pub fn generic_names_only(&self) -> bool {
        !self.sources.is_empty()
            && self.sources.iter().all(|s| {
                s != ENVIRONMENT
                    && s != CREDENTIAL_FILE
                    && super::secrets::vendor_words(s).is_empty()
            })
    }
}

/// The source name of a whole environment read at once.
pub const ENVIRONMENT: &str = "environment";
/// The source name of a credential file's contents.
pub const CREDENTIAL_FILE: &str = "credential file";

/// Whether sending `data` (a body, a query, a URL's path) and `header` (auth headers,
/// cookies) to `url` carries a secret off the machine: the judgement every code analysis
/// shares. Not exfiltration: a loopback destination, every secret going to its own vendor's
/// host, and a key in a header only, sent to a host the code does not spell out or under a
/// generic name (`API_KEY` to `$BASE_URL`), which is how API clients authenticate.
pub fn exfiltration(data: &Taint, header: &Taint, url: Option<&str>) -> bool {
    let host = url.and_then(super::secrets::url_host);
    if host.is_some_and(super::secrets::loopback) {
        return false;
    }
    if !data.has(SECRET) && !header.has(SECRET) {
        return false;
    }
    let all = data.clone().union(header);
    if host.is_some_and(|h| all.vendor_owned(h)) {
        return false;
    }
    data.has(SECRET) || host.is_some() && !header.generic_names_only()
}

/// A literal bundling several secrets (see [`bundle`]): the one flag that is about a
/// literal's shape rather than its data.
pub const BUNDLE: Flags = 1 << 15;

/// Secrets of two or more unrelated sources (or a whole environment) in one literal: a
/// bundle made to travel once it is serialised.
pub fn bundle(t: &Taint) -> bool {
    if !t.has(SECRET) {
        return false;
    }
    let mut vendors: Vec<String> = Vec::new();
    for s in &t.sources {
        let w = super::secrets::vendor_words(s);
        let v = if w.is_empty() { s.clone() } else { w.join("_") };
        if !vendors.contains(&v) {
            vendors.push(v);
        }
    }
    vendors.len() >= 2 || t.sources.iter().any(|s| s == ENVIRONMENT)
}
