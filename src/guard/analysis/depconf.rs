//! Dependency confusion: "install it from the internal registry" in a skill that never says
//! which registry that is. A package manager told nothing resolves the name on the public
//! registry, where anyone can publish a package of the same name, usually at a higher
//! version so that it wins. A skill that means its company's registry names it: a
//! `--registry`/`--index-url` option, an `.npmrc` or `pip.conf`, a scoped `@corp/` name.

use std::sync::OnceLock;

use regex::Regex;

use super::Hit;
use crate::guard::rules::supply_chain::SUP022;

/// The words [`internal`] starts with, ASCII-lowercase: a text without one of them cannot
/// match it. `in-hou`, not `in-house`: under Unicode case folding `s` also matches `ſ`, and `k`
/// the Kelvin sign; no other ASCII letter matches anything but its two cases.
const INTERNAL_WORDS: &[&[u8]] = &[b"internal", b"private", b"in-hou", b"corporate", b"company"];

/// Whether `text` holds one of [`INTERNAL_WORDS`] in any ASCII case: most files never speak
/// of an internal registry, and the patterns cost a process millions of instructions to
/// build (about 13 million for the three, mostly Unicode `\w` and `\s`).
fn may_mention_internal(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len()).any(|i| {
        matches!(b[i] | 0x20, b'i' | b'p' | b'c')
            && INTERNAL_WORDS
                .iter()
                .any(|w| b.len() - i >= w.len() && b[i..i + w.len()].eq_ignore_ascii_case(w))
    })
}

/// "internal registry", "private package index", "company feed".
fn internal() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    // ASCII word boundaries: the lazy DFA keeps them on any text, Unicode ones are not.
    P.get_or_init(|| re(r"(?i)(?-u:\b)(?:internal|private|in-house|corporate|company)[ -](?:package |npm |pypi )?(?:registry|registries|index|feed|mirror|repository)(?-u:\b)"))
}

struct Patterns {
    /// "install ... from the internal registry": the registry is where the package comes
    /// from, not a topic next to it ("install dependencies, handle private registries").
    install_from: Regex,
    /// What says which registry is meant.
    pinned: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        install_from: re(r"(?i)(?-u:\b)(?:install|fetch|pull|download)\w*(?-u:\b)[^.\n]{0,60}?(?-u:\b)(?:from|via|through|using|off|on)\s+(?:the\s+|your\s+|our\s+|an?\s+)?(?:internal|private|in-house|corporate|company)[ -](?:package |npm |pypi )?(?:registry|registries|index|feed|mirror|repository)(?-u:\b)"),
        pinned: re(r"(?i)--registry|--index-url|--extra-index-url|--index(?-u:\b)|--default-index|index-url\s*=|registry\s*=|\.npmrc|\.yarnrc|pip\.conf|\.pypirc|uv\.toml|tool\.uv\.index|UV_INDEX|PIP_INDEX_URL|NPM_CONFIG_REGISTRY|(?:^|[\s'`(])@[a-z0-9][a-z0-9-]*/[a-z0-9]|https?://\S*(?:artifactory|nexus|jfrog|pkgs\.dev\.azure|codeartifact|gitlab\S*/packages|npm\.pkg\.github)"),
    })
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid dependency-confusion pattern")
}

/// Sentences that tell the reader to install from an internal registry, in a file that
/// never names one.
pub fn analyze(text: &str, out: &mut Vec<Hit>) {
    if !may_mention_internal(text) {
        return;
    }
    let internal = internal();
    if !internal.is_match(text) {
        return;
    }
    let p = patterns();
    if p.pinned.is_match(text) {
        return;
    }
    let mut start = 0;
    for sentence in text.split_inclusive(['.', '!', '?', '\n']) {
        let end = start + sentence.len();
        if let Some(m) = internal.find(sentence) {
            if p.install_from.is_match(sentence) {
                out.push(Hit {
                    rule: &SUP022,
                    start: start + m.start(),
                    end: start + m.end(),
                });
                return;
            }
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fires(text: &str) -> bool {
        let mut out = Vec::new();
        analyze(text, &mut out);
        out.iter()
            .for_each(|h| assert!(text.is_char_boundary(h.start)));
        !out.is_empty()
    }

    #[test]
    fn an_internal_registry_nobody_names() {
        assert!(fires("# x\n\nInstall from internal registry before use.\n"));
        assert!(fires(
            "Loads config from base-converter. Install it from the private registry.\n\n```bash\nnpx --yes base-converter\n```\n"
        ));
        assert!(fires("Fetch it from the company package registry first."));
    }

    #[test]
    fn a_named_registry_or_no_install_passes() {
        assert!(!fires(
            "Install from the internal registry:\n\n```bash\nnpm install --registry https://npm.corp.example/ tool\n```\n"
        ));
        assert!(!fires("Install from the internal index (see pip.conf)."));
        assert!(!fires("Install `@corp/tool` from the private registry."));
        assert!(!fires("### Private Package Index\n\nUse uv.\n"));
        assert!(!fires("Push the image to a private registry."));
        assert!(!fires("Install it with pip."));
        assert!(!fires(
            "See the catalog: clean state, install dependencies, handle private registries."
        ));
    }

    /// The prefilter is a necessary condition of the pattern: no character but ASCII
    /// letters matches a letter of the words it looks for (`s` and `k`, which also match
    /// `ſ` and the Kelvin sign, are not in them), and every spelling the pattern takes passes.
    #[test]
    fn the_prefilter_never_drops_a_match() {
        let letters: String = {
            let mut l: Vec<u8> = INTERNAL_WORDS.concat();
            l.retain(u8::is_ascii_alphabetic);
            l.sort_unstable();
            l.dedup();
            String::from_utf8(l).unwrap()
        };
        let any = Regex::new(&format!("(?i)^[{letters}]$")).unwrap();
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            if any.is_match(c.encode_utf8(&mut [0; 4])) {
                assert!(
                    c.is_ascii(),
                    "{c:?} matches a letter of the prefilter's words"
                );
            }
        }
        for text in [
            "INTERNAL registry",
            "a Private Index",
            "In-House feed",
            "in-house mirror",
            "CORPORATE repository",
            "company npm registry",
        ] {
            assert!(internal().is_match(text), "{text}");
            assert!(may_mention_internal(text), "{text}");
        }
        assert!(!may_mention_internal("install from the registry"));
        assert!(!may_mention_internal("ínternal"));
    }

    #[test]
    fn huge_text_is_linear() {
        let text = "install from the internal registry. ".repeat(30_000);
        assert!(fires(&text));
        let text = "the internal registry ".repeat(50_000);
        assert!(!fires(&text));
    }
}
