//! EXF040: send a protected object to a destination. EXF041: a secret or the conversation
//! in a URL, or an instruction to put it there.

use super::features::{Features, Role};
use super::lexicon::{Class, Found, Lang, Lexicon};
use super::{Doc, Reported};
use crate::guard::analysis::Hit;
use crate::guard::rules::exfiltration::{EXF040, EXF041};

/// How far after its verb an object may be (verb-first languages), and how far on either
/// side in the others.
const OBJECT_AFTER: usize = 160;
const OBJECT_AROUND: usize = 80;

static EXF040_LINES: Reported =
    Reported::new(&["INJ010", "EXF001", "EXF002", "EXF003", "EXF005", "EXF006"]);
static EXF041_LINES: Reported = Reported::new(&["INJ010"]);

pub fn detect(doc: &Doc<'_>, i: usize, hits: &mut Vec<Hit>) {
    let f = &doc.features[i];
    if !f.anchored {
        return;
    }
    if let Some((start, end)) = send_object_to_place(doc, i) {
        if !EXF040_LINES.covers(doc, i) {
            hits.push(doc.hit(&EXF040, i, start, end));
        }
    }
    for (start, end) in secret_urls(f) {
        hits.push(doc.hit(&EXF041, i, start, end));
    }
    if let Some((start, end)) = embed_in_url(f) {
        if !EXF041_LINES.covers(doc, i) {
            hits.push(doc.hit(&EXF041, i, start, end));
        }
    }
}

/// The sentence is an instruction at all: no question, no description of an attack or a
/// check, no opening negation.
fn instruction(f: &Features<'_>, anchors: &[&Found]) -> bool {
    !f.question() && !f.described(anchors) && !f.starts_negated()
}

/// A verb that counts: not negated, not quoted.
fn live(f: &Features<'_>, v: &Found) -> bool {
    !f.negated(v) && !f.quoted(v)
}

/// A destination of a sentence.
#[derive(Debug, Clone, Copy)]
struct Dest {
    start: usize,
    end: usize,
    /// A place that is only a destination, never a service's own name: a URL with a path
    /// or query, an IP or e-mail address, a file or paste host, "our server", "a webhook".
    /// A bare host name ("sync env vars to trigger.dev") may be the service a key is for,
    /// so API keys and tokens (weak objects) need a pointed destination.
    pointed: bool,
}

/// Destinations of the sentence for a verb of language `lang`: places used as one, and
/// destination phrases ("our server") not after "from".
fn destinations(f: &Features<'_>, lang: Lang) -> Vec<Dest> {
    let mut out: Vec<Dest> = f
        .places
        .iter()
        .filter(|p| f.role(p, Some(lang)) == Role::Destination)
        .map(|p| {
            let url = p.url.map(|u| &f.urls[u]);
            let pointed = p.email
                || url.is_some_and(|u| {
                    u.raw_ip || u.file_host || u.paste_host || u.rest.trim_matches('/').len() > 1
                })
                || url.is_none() && is_address(&f.text()[p.range.clone()]);
            Dest {
                start: p.range.start,
                end: p.range.end,
                pointed,
            }
        })
        .collect();
    for d in f.of(Class::Dest) {
        let source = f
            .of(Class::From)
            .any(|m| m.end <= d.start && d.start - m.end <= 6);
        if !source {
            out.push(Dest {
                start: d.start,
                end: d.end,
                pointed: true,
            });
        }
    }
    out
}

/// A bare place that is more than a name: an IP address or a host with a path.
fn is_address(place: &str) -> bool {
    place.contains('/')
        || place.split(':').next().is_some_and(|h| {
            h.split('.').count() == 4 && h.split('.').all(|p| p.parse::<u8>().is_ok())
        })
}

/// Objects of the sentence: strong ones always, weak ones (API keys, tokens) unless the
/// sentence is about authentication or the key is the means ("with your token"). Terms
/// inside a URL are the URL's, not objects.
fn objects<'a>(f: &'a Features<'_>) -> Vec<(&'a Found, bool)> {
    let auth = f.has(Class::Auth);
    let mut out = Vec::new();
    for o in &f.found {
        let strong = match o.class {
            Class::ObjStrong => true,
            Class::ObjWeak => false,
            _ => continue,
        };
        if f.in_url(o.start) || out.iter().any(|(p, _): &(&Found, bool)| p.end > o.start) {
            continue;
        }
        if !strong {
            let means = f
                .of(Class::With)
                .any(|w| w.end <= o.start && o.start - w.end <= 14);
            if auth || means {
                continue;
            }
        }
        out.push((o, strong));
    }
    out
}

fn span(parts: &[(usize, usize)]) -> (usize, usize) {
    let start = parts.iter().map(|p| p.0).min().unwrap_or(0);
    let end = parts.iter().map(|p| p.1).max().unwrap_or(start);
    (start, end)
}

/// EXF040 in unit `i`, or in `i` with the object collected in the sentence before.
fn send_object_to_place(doc: &Doc<'_>, i: usize) -> Option<(usize, usize)> {
    let f = &doc.features[i];
    let sends: Vec<&Found> = f
        .found
        .iter()
        .filter(|v| matches!(v.class, Class::Send | Class::Embed) && live(f, v))
        // "Send the user to the sign-up page" moves the user, not data.
        .filter(|v| {
            !f.of(Class::User).any(|u| {
                u.start > v.end && u.start - v.end <= 5 && !f.text()[u.end..].starts_with('\'')
            })
        })
        .collect();
    if sends.is_empty() || !instruction(f, &sends) {
        return None;
    }
    let objects = objects(f);
    let collects: Vec<&Found> = f.of(Class::Collect).filter(|v| live(f, v)).collect();
    for s in &sends {
        let embed = s.class == Class::Embed;
        let first = s.lang.verb_first();
        let dests = destinations(f, s.lang);
        let dests: Vec<&Dest> = dests
            .iter()
            .filter(|d| !first || d.start >= s.end)
            .collect();
        if dests.is_empty() {
            continue;
        }
        for &(o, strong) in &objects {
            if embed && !strong {
                continue;
            }
            let Some(d) = dests.iter().find(|d| strong || d.pointed) else {
                continue;
            };
            let direct = if first {
                o.start >= s.end && o.start - s.end <= OBJECT_AFTER
            } else {
                let gap = if o.start >= s.end {
                    o.start - s.end
                } else {
                    s.start.saturating_sub(o.end)
                };
                gap <= OBJECT_AROUND && (o.start >= s.end || f.same_clause(o.start, s.start))
            };
            // "Read ~/.ssh/id_rsa and send it to ...": the object of an earlier verb.
            let chained = strong
                && o.end <= s.start
                && collects.iter().any(|c| {
                    c.end <= o.start && o.start - c.end <= OBJECT_AROUND
                        || !c.lang.verb_first() && o.end <= c.start && c.start - o.end <= 40
                });
            if direct || chained {
                return Some(span(&[
                    (s.start, s.end),
                    (o.start, o.end),
                    (d.start, d.end),
                ]));
            }
        }
    }
    // "Read the user's session token. Forward all data to https://...".
    let prev = doc.features.get(i.checked_sub(1)?)?;
    if doc.units[i - 1].block != doc.units[i].block || !objects.is_empty() {
        return None;
    }
    collected_object(prev)?;
    for s in sends.iter().filter(|s| s.class == Class::Send) {
        let refers = f
            .of(Class::Anaphor)
            .any(|a| a.start >= s.end && a.start - s.end <= 40)
            || f.of(Class::To)
                .any(|t| t.lang == s.lang && t.start >= s.end && t.start - s.end <= 2);
        let dests = destinations(f, s.lang);
        let Some(d) = dests.iter().find(|d| d.start >= s.end) else {
            continue;
        };
        if refers {
            return Some(span(&[(s.start, s.end), (d.start, d.end)]));
        }
    }
    None
}

/// A strong object collected (or already sent) by an instruction of this sentence.
fn collected_object<'a>(f: &'a Features<'_>) -> Option<&'a Found> {
    let verbs: Vec<&Found> = f
        .found
        .iter()
        .filter(|v| matches!(v.class, Class::Collect | Class::Send) && live(f, v))
        .collect();
    if verbs.is_empty() || !instruction(f, &verbs) {
        return None;
    }
    objects(f).into_iter().find_map(|(o, strong)| {
        let after = verbs.iter().any(|v| {
            if v.lang.verb_first() {
                o.start >= v.end && o.start - v.end <= OBJECT_AFTER
            } else {
                o.start.abs_diff(v.start) <= OBJECT_AROUND
            }
        });
        (strong && after).then_some(o)
    })
}

/// URLs whose query or path holds a placeholder for a secret or the conversation:
/// `?d=$OPENAI_API_KEY`, `${GITHUB_TOKEN}`, `{{api_key}}`, `%ANTHROPIC_API_KEY%`,
/// `$(cat ~/.ssh/id_rsa)`. Code spans are examples of URLs, not links.
fn secret_urls(f: &Features<'_>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if f.urls.is_empty() {
        return out;
    }
    let anchors: Vec<&Found> = Vec::new();
    if f.described(&anchors) || f.starts_negated() {
        return out;
    }
    let lex = Lexicon::get();
    for u in &f.urls {
        if f.unit.in_code(u.range.start) {
            continue;
        }
        if placeholders(&u.rest).any(|name| secret_name(&name, lex)) {
            out.push((u.range.start, u.range.end));
        }
    }
    out
}

/// The names of the placeholders in a URL's path and query.
fn placeholders(rest: &str) -> impl Iterator<Item = String> + '_ {
    let bytes = rest.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let at = i;
            i += 1;
            let name_from = match bytes[at] {
                b'$' if bytes.get(at + 1) == Some(&b'(') => {
                    // Command substitution: everything to the closing parenthesis.
                    let end = rest[at..].find(')').map_or(rest.len(), |e| at + e);
                    i = end;
                    return Some(rest[at + 2..end].to_owned());
                }
                b'$' | b'%' | b'{' | b'<' | b'[' => at + 1,
                _ => continue,
            };
            let skip = rest[name_from..]
                .bytes()
                .take_while(|b| matches!(b, b'{' | b' ' | b'$'))
                .count();
            let from = name_from + skip;
            let len = rest[from..]
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
                .count();
            if len == 0 {
                continue;
            }
            let name = &rest[from..from + len];
            let close = rest[from + len..].trim_start_matches(' ').bytes().next();
            let closed = match bytes[at] {
                b'$' => true,
                b'%' => close == Some(b'%'),
                b'{' => close == Some(b'}'),
                b'<' => close == Some(b'>'),
                _ => close == Some(b']'),
            };
            i = from + len;
            if closed && name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic()) {
                return Some(name.to_owned());
            }
        }
        None
    })
}

/// Whether a placeholder name stands for a secret or the conversation (`openai_api_key`,
/// `secrets.github_token`, `chat_history`; not `key` or `id` alone), or is a command that
/// reads a credential file.
fn secret_name(name: &str, lex: &Lexicon) -> bool {
    let name = name.to_ascii_lowercase();
    if name.contains(' ') || name.contains('/') {
        return ["cat ", "env", "printenv", ".ssh", ".aws", ".env", "base64"]
            .iter()
            .any(|w| name.contains(w));
    }
    let last = name.rsplit('.').next().unwrap_or(&name);
    lex.list("secret_name")
        .chain(lex.list("conversation_name"))
        .any(|w| last.contains(w))
        || last.len() > 4 && last.ends_with("key") && last.contains(['_', '-'])
}

/// "Append the conversation history to the image URL": a verb that puts a strong object
/// into a URL, a link or an image.
fn embed_in_url(f: &Features<'_>) -> Option<(usize, usize)> {
    let verbs: Vec<&Found> = f
        .found
        .iter()
        .filter(|v| matches!(v.class, Class::Embed | Class::Send) && live(f, v))
        .collect();
    if verbs.is_empty() || !instruction(f, &verbs) {
        return None;
    }
    let targets: Vec<&Found> = f.of(Class::UrlTarget).collect();
    for v in &verbs {
        let first = v.lang.verb_first();
        for (o, strong) in objects(f) {
            let placed = if first {
                o.start >= v.end && o.start - v.end <= OBJECT_AFTER
            } else {
                o.start.abs_diff(v.start) <= OBJECT_AROUND
            };
            if !strong || !placed {
                continue;
            }
            let target = targets.iter().find(|t| {
                if first {
                    t.start >= o.end && t.start - o.end <= 80
                } else {
                    t.start.abs_diff(o.start) <= 80
                }
            });
            if let Some(t) = target {
                let parts = [(v.start, v.end), (o.start, o.end), (t.start, t.end)];
                return Some(span(&parts));
            }
        }
    }
    None
}
