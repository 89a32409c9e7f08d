//! Running the rule set over a text.

use std::ops::Range;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder};

use super::rules::{Allowlist, Rule, Target, GLOBAL, RULES};

/// A secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The rule's id (`github-pat`).
    pub rule: &'static str,
    pub description: &'static str,
    /// The secret itself.
    pub secret: Range<usize>,
    /// What the rule matched around it (`token = "..."`).
    pub matched: Range<usize>,
    /// Found by a value's name and randomness (gitleaks' `generic-api-key`, a password
    /// assigned), not by a service's own token shape.
    pub generic: bool,
}

/// Every secret in `text`, in order of where it starts: for output, whose origin is unknown
/// (the rules gitleaks keeps for some files, such as Terraform's passwords, apply too).
pub fn find(text: &str) -> Vec<Found> {
    find_in(text, None)
}

/// Every secret in the file `path` (from the top of the repository) holding `text`: the rules
/// and allowlists that name paths apply as gitleaks applies them.
pub fn find_in(text: &str, path: Option<&str>) -> Vec<Found> {
    let mut found = find_plain(text, path);
    // A secret written in hex or base64: the run that holds it.
    for (run, decoded) in super::extra::encoded(text) {
        if found
            .iter()
            .any(|f| f.secret.start <= run.start && run.end <= f.secret.end)
        {
            continue;
        }
        if let Some(inner) = find_plain(&decoded, None).into_iter().next() {
            found.push(Found {
                rule: "git-skill-encoded-secret",
                description: "A secret written in hex or base64.",
                secret: run.clone(),
                matched: run,
                generic: inner.generic,
            });
        }
    }
    found.sort_by_key(|f| (f.secret.start, f.secret.end));
    found
}

/// [`find_in`] without looking into encoded runs.
fn find_plain(text: &str, path: Option<&str>) -> Vec<Found> {
    let index = &*INDEX;
    if let Some(path) = path {
        if index
            .global_paths
            .as_ref()
            .is_some_and(|r| r.is_match(path.as_bytes()))
        {
            return Vec::new();
        }
    }
    let mut wanted = vec![false; RULES.len()];
    for m in index.keywords.find_overlapping_iter(text) {
        for &rule in &index.by_keyword[m.pattern().as_usize()] {
            wanted[rule] = true;
        }
    }
    for &rule in &index.always {
        wanted[rule] = true;
    }
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        if !wanted[i] {
            continue;
        }
        let Some(regex) = index.compiled[i].regex(rule) else {
            continue;
        };
        if let (Some(path), false) = (path, rule.path.is_empty()) {
            if !index.compiled[i]
                .path(rule)
                .is_some_and(|r| r.is_match(path.as_bytes()))
            {
                continue;
            }
        }
        for caps in regex.captures_iter(bytes) {
            let whole = caps.get(0).expect("group 0 is the match");
            let secret = match usize::try_from(rule.secret_group) {
                Ok(n) if n > 0 => caps.get(n),
                _ => (1..caps.len()).find_map(|g| caps.get(g).filter(|m| !m.is_empty())),
            }
            .unwrap_or(whole);
            let secret_text = &bytes[secret.range()];
            if rule.entropy > 0.0 && entropy(secret_text) <= rule.entropy {
                continue;
            }
            let line = line_around(bytes, whole.range());
            let sides = Sides {
                secret: secret_text,
                matched: &bytes[whole.range()],
                line: &bytes[line],
                path,
            };
            if allowed(&GLOBAL, &index.global, &sides)
                || rule
                    .allowlists
                    .iter()
                    .zip(index.compiled[i].allowlists(rule))
                    .any(|(list, regex)| allowed(list, regex, &sides))
            {
                continue;
            }
            found.push(Found {
                rule: rule.id,
                description: rule.description,
                secret: secret.range(),
                matched: whole.range(),
                generic: rule.id.contains("generic"),
            });
        }
    }
    let lower = bytes.to_ascii_lowercase();
    for (extra, secret, matched) in super::extra::find(bytes, &lower) {
        found.push(Found {
            rule: extra.id,
            description: extra.description,
            secret,
            matched,
            generic: extra.generic,
        });
    }
    // A generic rule's find that a specific rule found too, on the same line, is that one's.
    let specific: Vec<(Range<usize>, Range<usize>)> = found
        .iter()
        .filter(|f| !f.generic)
        .map(|f| (f.secret.clone(), line_around(bytes, f.matched.clone())))
        .collect();
    found.retain(|f| {
        !f.generic
            || !specific.iter().any(|(s, line)| {
                line.contains(&f.secret.start) && s.start <= f.secret.start && f.secret.end <= s.end
                    || f.secret.start <= s.start && s.end <= f.secret.end && line.contains(&s.start)
            })
    });
    found.sort_by_key(|f| (f.secret.start, f.secret.end));
    found
}

/// The three things an allowlist may look at.
struct Sides<'a> {
    secret: &'a [u8],
    matched: &'a [u8],
    line: &'a [u8],
    path: Option<&'a str>,
}

/// Whether `list` (its regexes compiled into `regex`) allows the find.
fn allowed(list: &Allowlist, regex: &Option<Regex>, sides: &Sides<'_>) -> bool {
    let target = match list.target {
        Target::Secret => sides.secret,
        Target::Match => sides.matched,
        Target::Line => sides.line,
    };
    let by_regex = regex.as_ref().map(|r| r.is_match(target));
    let by_stopword = (!list.stopwords.is_empty()).then(|| {
        let lower = sides.secret.to_ascii_lowercase();
        list.stopwords
            .iter()
            .any(|w| memchr_find(&lower, w.as_bytes()))
    });
    // Without a path (output), a path criterion never holds.
    let by_path = (!list.paths.is_empty()).then(|| {
        sides.path.is_some_and(|p| {
            list.paths
                .iter()
                .any(|r| compile(r).is_some_and(|r| r.is_match(p.as_bytes())))
        })
    });
    let criteria = [by_regex, by_stopword, by_path];
    if list.and {
        criteria.iter().flatten().count() > 0 && criteria.iter().flatten().all(|&c| c)
    } else {
        criteria.iter().flatten().any(|&c| c)
    }
}

fn memchr_find(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// Shannon entropy of `s`, in bits per byte (gitleaks' measure).
fn entropy(s: &[u8]) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in s {
        counts[usize::from(b)] += 1;
    }
    let len = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / len;
            -p * p.log2()
        })
        .sum()
}

/// The line `at` lies on (the first line of a match over several).
fn line_around(text: &[u8], at: Range<usize>) -> Range<usize> {
    let start = text[..at.start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = text[at.end.min(text.len())..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| at.end + i);
    start..end.max(at.end.min(text.len()))
}

/// A rule's expressions, compiled when a text first needs them.
struct Compiled {
    regex: OnceLock<Option<Regex>>,
    path: OnceLock<Option<Regex>>,
    allowlists: OnceLock<Vec<Option<Regex>>>,
}

impl Compiled {
    fn regex(&self, rule: &Rule) -> Option<&Regex> {
        self.regex
            .get_or_init(|| {
                (!rule.regex.is_empty())
                    .then(|| compile(rule.regex))
                    .flatten()
            })
            .as_ref()
    }

    fn path(&self, rule: &Rule) -> Option<&Regex> {
        self.path.get_or_init(|| compile(rule.path)).as_ref()
    }

    fn allowlists(&self, rule: &Rule) -> &[Option<Regex>] {
        self.allowlists
            .get_or_init(|| rule.allowlists.iter().map(joined).collect())
    }
}

/// Go's expressions read as Go reads them: ASCII classes (`\w`, `\s`, `\b`), bytes.
fn compile(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(32 << 20)
        .build()
        .ok()
}

/// An allowlist's expressions as one (`(?:a)|(?:b)`), as gitleaks joins them.
fn joined(list: &Allowlist) -> Option<Regex> {
    if list.regexes.is_empty() {
        return None;
    }
    let one: Vec<String> = list.regexes.iter().map(|r| format!("(?:{r})")).collect();
    compile(&one.join("|"))
}

struct Index {
    keywords: AhoCorasick,
    /// For each keyword, the rules that name it.
    by_keyword: Vec<Vec<usize>>,
    /// Rules without keywords: run on every text.
    always: Vec<usize>,
    compiled: Vec<Compiled>,
    global: Option<Regex>,
    /// The set's own path allowlist: files never searched (lock files, vendored code, images).
    global_paths: Option<Regex>,
}

static INDEX: LazyLock<Index> = LazyLock::new(|| {
    let mut words: Vec<&'static str> = Vec::new();
    let mut by_keyword: Vec<Vec<usize>> = Vec::new();
    let mut always = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        if rule.regex.is_empty() {
            continue;
        }
        if rule.keywords.is_empty() {
            always.push(i);
        }
        for &k in rule.keywords {
            match words.iter().position(|w| *w == k) {
                Some(at) => by_keyword[at].push(i),
                None => {
                    words.push(k);
                    by_keyword.push(vec![i]);
                }
            }
        }
    }
    let keywords = aho_corasick::AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .build(&words)
        .expect("the rule set's keywords build an automaton");
    Index {
        keywords,
        by_keyword,
        always,
        compiled: RULES
            .iter()
            .map(|_| Compiled {
                regex: OnceLock::new(),
                path: OnceLock::new(),
                allowlists: OnceLock::new(),
            })
            .collect(),
        global: joined(&GLOBAL),
        global_paths: (!GLOBAL.paths.is_empty())
            .then(|| {
                let one: Vec<String> = GLOBAL.paths.iter().map(|r| format!("(?:{r})")).collect();
                compile(&one.join("|"))
            })
            .flatten(),
    }
});

/// The expressions of the set that do not compile (none: a test holds it).
#[cfg(test)]
pub fn uncompiled() -> Vec<String> {
    let mut bad = Vec::new();
    for rule in RULES {
        if !rule.regex.is_empty() && compile(rule.regex).is_none() {
            bad.push(format!("{}: {}", rule.id, rule.regex));
        }
        for list in rule.allowlists {
            for r in list.regexes {
                if compile(r).is_none() {
                    bad.push(format!("{} allowlist: {r}", rule.id));
                }
            }
        }
    }
    for r in GLOBAL.regexes {
        if compile(r).is_none() {
            bad.push(format!("global allowlist: {r}"));
        }
    }
    bad
}

#[cfg(test)]
mod tests;
