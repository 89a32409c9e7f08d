//! Running the rule set over a text.

use std::ops::Range;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder};

use super::extra::EXTRAS;
use super::placeholder::placeholder;
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
    // Byte classes (`[^\s]`, `.`) can start or end a match inside a character: every range
    // is widened to whole characters, which is what is masked or quoted.
    for f in &mut found {
        f.secret = on_chars(text, f.secret.clone());
        f.matched = on_chars(text, f.matched.clone());
    }
    found.sort_by_key(|f| (f.secret.start, f.secret.end));
    found
}

/// `range` widened to the nearest character boundaries of `text`.
fn on_chars(text: &str, range: Range<usize>) -> Range<usize> {
    let mut start = range.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = range.end.min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
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
    // The set's rules, then the extra ones: where each may match. A rule's match holds one of
    // its keywords, so it is looked for only around them: from the line before a keyword to a
    // few lines after (a file of many lines and few keywords is not read by every rule).
    let bytes = text.as_bytes();
    let mut keywords = index.keywords.find_overlapping_iter(text).peekable();
    // Most texts (a line of output) hold no keyword at all.
    if keywords.peek().is_none() && index.always.is_empty() {
        return Vec::new();
    }
    let mut near: Vec<Vec<Range<usize>>> = vec![Vec::new(); RULES.len() + EXTRAS.len()];
    // Where each line ends, found once: a keyword's window is whole lines around it, found by
    // index instead of by walking the text again for every line that holds a keyword.
    let lines = Lines::new(bytes);
    // Keywords on one line share a window: it is worked out once per line.
    let mut line: Option<(usize, Range<usize>)> = None;
    for m in keywords {
        let w = match &line {
            Some((on, w)) if lines.of(m.start()) == *on => w.clone(),
            _ => {
                let on = lines.of(m.start());
                let w = lines.window(m.start());
                line = Some((on, w.clone()));
                w
            }
        };
        for &rule in &index.by_keyword[m.pattern().as_usize()] {
            let w = w.clone();
            match near[rule].last_mut() {
                Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
                _ => near[rule].push(w),
            }
        }
    }
    for &rule in &index.always {
        near[rule] = std::iter::once(0..bytes.len()).collect();
    }
    // Overlapping keywords are reported by where they end: windows sorted and merged again.
    for windows in near.iter_mut().filter(|w| w.len() > 1) {
        windows.sort_by_key(|w| w.start);
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(windows.len());
        for w in windows.drain(..) {
            match merged.last_mut() {
                Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
                _ => merged.push(w),
            }
        }
        *windows = merged;
    }
    // Keywords everywhere (`ey`, `sk`, `s.` are in many words): one search of the whole text
    // costs less than many small ones that cover most of it.
    for windows in near.iter_mut().filter(|w| w.len() > 8) {
        let covered: usize = windows.iter().map(|w| w.end - w.start).sum();
        if covered > bytes.len() / 2 {
            *windows = std::iter::once(0..bytes.len()).collect();
        }
    }
    let mut found = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        if near[i].is_empty() {
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
        let matches = near[i].iter().flat_map(|w| {
            let at = w.start;
            regex
                .captures_iter(&bytes[w.clone()])
                .map(move |caps| (at, caps))
        });
        let lead = lead(rule.regex);
        let mut last_end = 0;
        for (at, caps) in matches {
            let shift = |m: regex::bytes::Match<'_>| m.start() + at..m.end() + at;
            let mut whole = shift(caps.get(0).expect("group 0 is the match"));
            if let Some(lead) = lead {
                whole.start = lead_back(bytes, whole.start, lead, last_end.max(at));
            }
            last_end = whole.end;
            let secret = match usize::try_from(rule.secret_group) {
                Ok(n) if n > 0 => caps.get(n),
                _ => (1..caps.len()).find_map(|g| caps.get(g).filter(|m| !m.is_empty())),
            }
            .map_or(whole.clone(), shift);
            let secret_text = &bytes[secret.clone()];
            if rule.entropy > 0.0 && entropy(secret_text) <= rule.entropy {
                continue;
            }
            if placeholder(secret_text) {
                continue;
            }
            let line = lines.around(whole.clone());
            let sides = Sides {
                secret: secret_text,
                matched: &bytes[whole.clone()],
                line: &bytes[line],
                path,
            };
            if allowed(
                &GLOBAL,
                (&index.global, index.global_stopwords.as_ref()),
                &sides,
            ) || rule
                .allowlists
                .iter()
                .zip(index.compiled[i].allowlists(rule))
                .any(|(list, (regex, words))| allowed(list, (regex, words.as_ref()), &sides))
            {
                continue;
            }
            found.push(Found {
                rule: rule.id,
                description: rule.description,
                secret,
                matched: whole,
                generic: rule.id.contains("generic"),
            });
        }
    }
    for (j, extra) in EXTRAS.iter().enumerate() {
        for w in &near[RULES.len() + j] {
            for (secret, matched) in super::extra::find(j, &bytes[w.clone()]) {
                let (secret, matched) = (
                    secret.start + w.start..secret.end + w.start,
                    matched.start + w.start..matched.end + w.start,
                );
                found.push(Found {
                    rule: extra.id,
                    description: extra.description,
                    secret,
                    matched,
                    generic: extra.generic,
                });
            }
        }
    }
    // A generic rule's find that a specific rule found too, on the same line, is that one's.
    let specific: Vec<(Range<usize>, Range<usize>)> = found
        .iter()
        .filter(|f| !f.generic)
        .map(|f| (f.secret.clone(), lines.around(f.matched.clone())))
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
fn allowed(
    list: &Allowlist,
    (regex, stopwords): (&Option<Regex>, Option<&AhoCorasick>),
    sides: &Sides<'_>,
) -> bool {
    let target = match list.target {
        Target::Secret => sides.secret,
        Target::Match => sides.matched,
        Target::Line => sides.line,
    };
    let by_regex = regex.as_ref().map(|r| r.is_match(target));
    let by_stopword = stopwords.map(|words| words.is_match(sides.secret));
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

/// Keywords in most texts, many times over (counted on six public skill collections: 76% of
/// all keyword hits were `:`, then `s.`, `sk`, `ey`): not looked for; their rules, whose
/// literal each is, search the whole text, which their literal prefilter does faster than a
/// window around each hit. (`q~`, as short, is rare: it stays a keyword.)
const BUSY: &[&str] = &[":", "ey", "sk", "s."];

/// Lines that may lie before a keyword in a rule's match, and after it.
const LINES_BEFORE: usize = 1;
const LINES_AFTER: usize = 6;
/// Past this many bytes after a keyword the window ends at the next line end.
const BYTES_AFTER: usize = 8 << 10;

/// The lines of a text, by where each ends.
struct Lines<'a> {
    text: &'a [u8],
    /// The offset of every `\n`.
    ends: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a [u8]) -> Lines<'a> {
        Lines {
            text,
            ends: memchr::memchr_iter(b'\n', text).collect(),
        }
    }

    /// The index of the line `at` lies on.
    fn of(&self, at: usize) -> usize {
        self.ends.partition_point(|&n| n < at)
    }

    /// Where line `i` starts.
    fn start(&self, i: usize) -> usize {
        match i {
            0 => 0,
            _ => self.ends.get(i - 1).map_or(self.text.len(), |&n| n + 1),
        }
    }

    /// Where line `i` ends, its `\n` included.
    fn end(&self, i: usize) -> usize {
        self.ends.get(i).map_or(self.text.len(), |&n| n + 1)
    }

    /// The line `at` starts on, to the end of the line it ends on (the `\n` left out): where
    /// an allowlist looks, found by index (a text of one long line with many matches would
    /// otherwise be walked once per match).
    fn around(&self, at: Range<usize>) -> Range<usize> {
        let start = self.start_of(at.start);
        let last = self.of(at.end.min(self.text.len()));
        let end = self.ends.get(last).copied().unwrap_or(self.text.len());
        start..end.max(at.end.min(self.text.len()))
    }

    /// The start of the line `at` lies on.
    fn start_of(&self, at: usize) -> usize {
        self.start(self.of(at))
    }

    /// The end of the line `at` lies on.
    fn end_of(&self, at: usize) -> usize {
        self.end(self.of(at.min(self.text.len())))
    }

    /// Where a rule whose keyword is at `at` may match: whole lines around it, from the line
    /// before to six after, and not more than 8 KiB after it (to the end of that line).
    fn window(&self, at: usize) -> Range<usize> {
        let i = self.of(at);
        let start = self.start(i.saturating_sub(LINES_BEFORE));
        let end = self
            .end(i + LINES_AFTER)
            .min(self.end_of(at + BYTES_AFTER))
            .max(self.end(i));
        start..end
    }
}

/// A rule's expressions, compiled when a text first needs them.
struct Compiled {
    regex: OnceLock<Option<Regex>>,
    path: OnceLock<Option<Regex>>,
    /// Each allowlist's expressions joined, and its stopwords as one automaton.
    allowlists: OnceLock<Vec<(Option<Regex>, Option<AhoCorasick>)>>,
}

impl Compiled {
    fn regex(&self, rule: &Rule) -> Option<&Regex> {
        self.regex
            .get_or_init(|| {
                (!rule.regex.is_empty())
                    .then(|| compile(&searched(rule.regex).0))
                    .flatten()
            })
            .as_ref()
    }

    fn path(&self, rule: &Rule) -> Option<&Regex> {
        self.path.get_or_init(|| compile(rule.path)).as_ref()
    }

    fn allowlists(&self, rule: &Rule) -> &[(Option<Regex>, Option<AhoCorasick>)] {
        self.allowlists.get_or_init(|| {
            rule.allowlists
                .iter()
                .map(|l| (joined(l), stopword_automaton(l.stopwords)))
                .collect()
        })
    }
}

/// Half of gitleaks' rules start `(?i)[\w.-]{0,50}?(?:name)`: up to 50 word characters before
/// the service's name, only so that the match shows the whole setting (`my_name_key`). They
/// cost the automaton 50 states a class and find nothing the rest does not: the expression
/// searched leaves them out (returned with their length), and the match is widened back as
/// the lazy, leftmost-first original would have started it ([`lead_back`]).
const LEAD: &str = r"(?i)[\w.-]{0,50}?(?:";

fn searched(regex: &str) -> (std::borrow::Cow<'_, str>, Option<usize>) {
    match regex.strip_prefix(LEAD) {
        // `(?i)` stays: the rest of the expression is case-blind too.
        Some(rest) => (format!("(?i)(?:{rest}").into(), lead(regex)),
        None => (regex.into(), None),
    }
}

/// How many bytes of lead the searched expression of `regex` leaves out (asked for every
/// text, without building the expression).
fn lead(regex: &str) -> Option<usize> {
    regex.starts_with(LEAD).then_some(50)
}

/// Where a match of a rule whose lead was left out starts: back over up to `lead` of `[\w.-]`
/// before `start`, never before `floor` (the previous match's end, or the window's start).
fn lead_back(bytes: &[u8], start: usize, lead: usize, floor: usize) -> usize {
    let mut at = start;
    while at > floor
        && start - at < lead
        && matches!(bytes[at - 1], b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-')
    {
        at -= 1;
    }
    at
}

/// Go's expressions read as Go reads them: ASCII classes (`\w`, `\s`, `\b`), bytes.
fn compile(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(32 << 20)
        .build()
        .ok()
}

/// Stopwords as one case-blind automaton (`None` for none).
fn stopword_automaton(stopwords: &[&str]) -> Option<AhoCorasick> {
    (!stopwords.is_empty()).then(|| {
        aho_corasick::AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .build(stopwords)
            .expect("stopwords build an automaton")
    })
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
    global_stopwords: Option<AhoCorasick>,
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
        if rule.keywords.is_empty() || rule.keywords.iter().any(|k| BUSY.contains(k)) {
            always.push(i);
            continue;
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
    for (j, extra) in EXTRAS.iter().enumerate() {
        if extra.keywords.iter().any(|k| BUSY.contains(k)) {
            always.push(RULES.len() + j);
            continue;
        }
        for &k in extra.keywords {
            match words.iter().position(|w| *w == k) {
                Some(at) => by_keyword[at].push(RULES.len() + j),
                None => {
                    words.push(k);
                    by_keyword.push(vec![RULES.len() + j]);
                }
            }
        }
    }
    // A DFA: built once (a few hundred keywords), it finds every overlapping keyword in one
    // pass at a fraction of the other kinds' cost per byte.
    let keywords = aho_corasick::AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
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
        global_stopwords: stopword_automaton(GLOBAL.stopwords),
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
