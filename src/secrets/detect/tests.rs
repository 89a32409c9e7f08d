use super::*;
use regex_syntax::hir::{Class, Hir, HirKind};

/// A small deterministic generator (xorshift), so that a failure is the same every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Go's expressions as the detector reads them: bytes, ASCII classes.
fn parser() -> regex_syntax::Parser {
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
}

/// A text the expression matches, drawn at random (printable ASCII where a class allows it).
fn sample(hir: &Hir, rng: &mut Rng, out: &mut Vec<u8>) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.extend_from_slice(&lit.0),
        HirKind::Class(Class::Bytes(c)) => {
            let ranges: Vec<(u8, u8)> = c
                .ranges()
                .iter()
                .map(|r| (r.start(), r.end()))
                .filter(|(a, b)| *b >= 0x21 && *a <= 0x7e)
                .map(|(a, b)| (a.max(0x21), b.min(0x7e)))
                .collect();
            let (a, b) = if ranges.is_empty() {
                let r = c.ranges()[0];
                (r.start(), r.end())
            } else {
                ranges[rng.below(ranges.len())]
            };
            out.push(a + rng.below(usize::from(b - a) + 1) as u8);
        }
        HirKind::Class(Class::Unicode(c)) => {
            let r = c.ranges()[rng.below(c.ranges().len())];
            let (a, b) = (
                u32::from(r.start()),
                u32::from(r.end()).min(0x7e).max(u32::from(r.start())),
            );
            let ch = char::from_u32(a + rng.below((b - a + 1) as usize) as u32).unwrap_or('a');
            let mut buf = [0; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        }
        HirKind::Repetition(rep) => {
            let max = rep.max.unwrap_or(rep.min + 24).min(rep.min + 24);
            let n = rep.min + rng.below((max - rep.min + 1) as usize) as u32;
            for _ in 0..n {
                sample(&rep.sub, rng, out);
            }
        }
        HirKind::Capture(cap) => sample(&cap.sub, rng, out),
        HirKind::Concat(parts) => parts.iter().for_each(|p| sample(p, rng, out)),
        HirKind::Alternation(alts) => sample(&alts[rng.below(alts.len())], rng, out),
    }
}

#[test]
fn every_expression_of_the_set_compiles() {
    assert_eq!(uncompiled(), Vec::<String>::new());
    assert!(RULES.len() > 200, "{} rules", RULES.len());
    assert!(super::super::rules::VERSION.starts_with('v'));
}

/// One generated case per rule: a text drawn from the rule's own expression, with its keyword,
/// is found, and by that rule (a more specific rule of the set may find it first).
#[test]
fn a_case_generated_from_each_rule_is_found() {
    let mut missed = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        if rule.regex.is_empty() {
            continue;
        }
        let hir = parser().parse(rule.regex).expect("parses");
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (i as u64 + 1));
        let hit = (0..400).any(|_| {
            let mut bytes = Vec::new();
            sample(&hir, &mut rng, &mut bytes);
            let Ok(text) = String::from_utf8(bytes) else {
                return false;
            };
            let text = format!("x {text} \n");
            find(&text).iter().any(|f| f.rule == rule.id)
        });
        if !hit {
            missed.push(rule.id);
        }
    }
    // Rules whose every draw is taken by an allowlist or stays under the entropy threshold
    // with this generator (their own examples in gitleaks' sources pass).
    eprintln!(
        "{} of {} rules never found: {missed:?}",
        missed.len(),
        RULES.len()
    );
    assert!(
        missed.len() <= 3,
        "{} rules never found: {missed:?}",
        missed.len()
    );
}

#[test]
fn placeholders_and_plain_words_are_not_secrets() {
    for text in [
        "api_key = \"YOUR_API_KEY\"",
        "token: ${GITHUB_TOKEN}",
        "password = \"password\"",
        "max_tokens = 4096",
        "the secret of good docs is examples",
        "AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX",
        // Benign lines of published skills the first version flagged.
        "curl https://x.example/api \\\n  -u \"your_api_key:\"",
        "curl https://x.example/api -H \"Authorization: Bearer access_token_here\"",
        "password = hashlib.sha256(\"your_password\".encode()).hexdigest()",
        "hashed_password = argon2.hash(password)",
        "Firebase Console → Authentication → Sign-in method → Email/Password: Enabled",
        "'password': config['user_external_password']",
        "user_password = input(\"  External Applications Password: \").strip()",
        "login_params = {'login_or_email': user_email, 'password': auth_token}",
    ] {
        assert_eq!(find_in(text, Some("notes.md")), Vec::new(), "{text}");
    }
}

#[test]
fn secrets_are_found_with_their_rule() {
    let token = concat!("ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d");
    let text = format!("export GITHUB_TOKEN={token}\n");
    let found = find(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(&text[found[0].secret.clone()], token);
    assert_eq!(found[0].rule, "github-pat");
}

#[test]
fn entropy_is_shannons() {
    assert_eq!(entropy(b"aaaa"), 0.0);
    assert!((entropy(b"ab") - 1.0).abs() < 1e-9);
    assert!((entropy(b"abcd") - 2.0).abs() < 1e-9);
}

#[test]
fn rules_and_allowlists_for_some_files_apply_to_those_files() {
    let text = "password = \"hunter2hunter2\"\n";
    assert!(find_in(text, Some("main.tf"))
        .iter()
        .any(|f| f.rule == "hashicorp-tf-password"));
    assert!(find_in(text, Some("notes.md"))
        .iter()
        .all(|f| f.rule != "hashicorp-tf-password"));
    let token = concat!("ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d");
    assert_eq!(find_in(token, Some("node_modules/x/index.js")), Vec::new());
}

/// Multilingual and hostile text: a match that a byte class could end inside a character is
/// widened to whole characters, and nothing panics (CJK, emoji, right-to-left, a lone
/// combining mark, many keywords, a huge line).
#[test]
fn multilingual_and_hostile_text_never_splits_a_character() {
    let mut rng = Rng(7);
    let pieces = [
        "machine h login u password ",
        "password = ",
        "パスワード: ",
        "密码=",
        "пароль: ",
        "日本語",
        "🔑🔐",
        "é",
        "\u{301}",
        "עברית",
        "\n",
        " ",
        "ey",
        "sk",
        "s.",
        "token=",
        "curl -u a:",
        "https://discord.com/api/webhooks/1234567/",
        "sig=",
        "Password=",
        ";",
    ];
    for _ in 0..3000 {
        let mut text = String::new();
        for _ in 0..rng.below(24) {
            text.push_str(pieces[rng.below(pieces.len())]);
        }
        for f in find(&text) {
            assert!(
                text.is_char_boundary(f.secret.start) && text.is_char_boundary(f.secret.end),
                "{text:?} {f:?}"
            );
            assert!(
                text.is_char_boundary(f.matched.start) && text.is_char_boundary(f.matched.end),
                "{text:?} {f:?}"
            );
        }
        let _ = crate::redact::redact(&text);
    }
    let long = format!("machine h login u password {}\n", "密".repeat(60));
    for f in find(&long) {
        assert!(long.is_char_boundary(f.secret.end), "{f:?}");
    }
    let huge = "api_key = value ".repeat(100_000);
    let _ = find(&huge);
}

/// A rule searched without its lead (`(?i)[\w.-]{0,50}?`) and widened back finds what the
/// rule as written finds: the same secret, the same match, on texts drawn from each such rule
/// with a setting's name before it.
#[test]
fn a_rule_searched_without_its_lead_matches_as_written() {
    let mut compared = 0;
    for (i, rule) in RULES.iter().enumerate() {
        let (pattern, Some(lead)) = searched(rule.regex) else {
            continue;
        };
        let (full, fast) = (compile(rule.regex).unwrap(), compile(&pattern).unwrap());
        let hir = parser().parse(&pattern).expect("parses");
        let mut rng = Rng(0x51_7cc1_b727_220a ^ (i as u64 + 1));
        for n in 0..20 {
            let mut bytes = b"see: my_prod.".to_vec();
            bytes.extend(std::iter::repeat_n(b'x', n * 3));
            sample(&hir, &mut rng, &mut bytes);
            bytes.extend_from_slice(b" and more\n");
            let want: Vec<_> = full
                .captures_iter(&bytes)
                .map(|c| (c.get(0).unwrap().range(), c.get(1).map(|m| m.range())))
                .collect();
            let mut last = 0;
            let got: Vec<_> = fast
                .captures_iter(&bytes)
                .map(|c| {
                    let whole = c.get(0).unwrap().range();
                    let start = lead_back(&bytes, whole.start, lead, last);
                    last = whole.end;
                    (start..whole.end, c.get(1).map(|m| m.range()))
                })
                .collect();
            assert_eq!(
                got,
                want,
                "{}: {}",
                rule.id,
                String::from_utf8_lossy(&bytes)
            );
            compared += 1;
        }
    }
    assert!(compared > 1000, "{compared} texts compared");
}

/// A keyword's window is the line before it to six after, cut 8 KiB after it at a line end.
#[test]
fn windows_are_whole_lines_around_a_keyword() {
    let text = b"a\nbb\nccc key\nd\ne\nf\ng\nh\ni\nj\nk";
    let lines = Lines::new(text);
    let at = 9; // `key`
    assert_eq!(lines.of(at), 2);
    let w = lines.window(at);
    assert_eq!(&text[w], b"bb\nccc key\nd\ne\nf\ng\nh\ni\n");
    assert_eq!(&text[lines.window(0)], b"a\nbb\nccc key\nd\ne\nf\ng\n");
    assert_eq!(lines.end_of(text.len()), text.len());
    assert_eq!(lines.start_of(text.len()), text.len() - 1);
    let long = [b"key ".as_slice(), &[b'z'; 20_000], b"\nnext\n"].concat();
    let lines = Lines::new(&long);
    assert_eq!(
        lines.window(0),
        0..20_005,
        "the keyword's own line, whatever its length"
    );
    assert_eq!(Lines::new(b"").window(0), 0..0);
    let lines = Lines::new(text);
    assert_eq!(&text[lines.around(9..12)], b"ccc key");
    assert_eq!(&text[lines.around(9..14)], b"ccc key\nd");
    assert_eq!(
        lines.around(text.len()..text.len()),
        text.len() - 1..text.len()
    );
}
