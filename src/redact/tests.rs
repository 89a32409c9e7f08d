use std::io::Write;

use super::*;

/// Base64 that looks like a key body: deterministic, never a real key.
fn body(seed: u64, len: usize) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    // splitmix64
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            B64[((z ^ (z >> 31)) % 64) as usize] as char
        })
        .collect()
}

fn pem(kind: &str, seed: u64) -> String {
    let b = body(seed, 64 * 6 + 20);
    let lines: Vec<&str> = (0..b.len())
        .step_by(64)
        .map(|i| &b[i..(i + 64).min(b.len())])
        .collect();
    format!(
        "-----BEGIN {kind}PRIVATE KEY-----\n{}\n-----END {kind}PRIVATE KEY-----",
        lines.join("\n")
    )
}

/// The first 12-character slice of `secret` that `out` still holds.
fn leak<'a>(out: &str, secret: &'a str) -> Option<&'a str> {
    let chars: Vec<(usize, char)> = secret.char_indices().collect();
    (0..chars.len().saturating_sub(11)).find_map(|i| {
        let start = chars[i].0;
        let end = chars.get(i + 12).map_or(secret.len(), |c| c.0);
        let slice = &secret[start..end];
        // Line breaks are the text's, not the secret's.
        (!slice.contains('\n') && out.contains(slice)).then_some(slice)
    })
}

fn assert_masked(out: &str, secret: &str) {
    assert_eq!(leak(out, secret), None, "{out}");
}

#[test]
fn private_keys_are_masked_through_their_end_line() {
    for kind in ["OPENSSH ", "RSA ", "EC ", "DSA ", "", "ENCRYPTED "] {
        let key = pem(kind, 7);
        let text = format!("use this key:\n{key}\nthen run the deploy");
        let out = redact(&text);
        assert_masked(&out, &key);
        assert!(out.starts_with("use this key:\n----…[redacted]"), "{out}");
        assert!(out.ends_with("\nthen run the deploy"), "{out}");
    }
}

#[test]
fn a_key_without_its_end_line_is_masked_to_its_last_body_line() {
    let key = pem("OPENSSH ", 3);
    let cut = &key[..key.find("-----END").unwrap()];
    let text = format!("{cut}Thanks, that was all of it.");
    let out = redact(&text);
    assert_masked(&out, cut);
    assert!(out.ends_with("Thanks, that was all of it."), "{out}");
    // Headers of an encrypted key are part of it.
    let enc = format!(
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B2C3D\n\n{}\n",
        body(5, 64)
    );
    assert_masked(&redact(&enc), &body(5, 64));
}

#[test]
fn escaped_keys_are_masked_and_json_stays_json() {
    let key = pem("OPENSSH ", 11);
    let json =
        serde_json::json!({"correction": format!("use this key: {key}\n"), "n": 1}).to_string();
    assert!(json.contains("\\n"));
    let out = redact(&json);
    assert_masked(&out, &key.replace('\n', "\\n"));
    let back: Value = serde_json::from_str(&out).expect("still JSON");
    assert_eq!(back["correction"], "use this key: ----…[redacted]\n");
    // JSON quoted inside JSON: two layers of escapes.
    let twice = serde_json::to_string(&json).unwrap();
    assert_masked(&redact(&twice), &key.replace('\n', "\\\\n"));
    // URL-encoded.
    let url = key.replace(' ', "%20").replace('\n', "%0A");
    let out = redact(&format!("https://paste.example/new?text={url}&x=1"));
    assert_masked(&out, &url);
    assert!(out.ends_with("&x=1"), "{out}");
}

#[test]
fn tokens_are_masked_to_their_last_character() {
    let ant = format!("sk-ant-api03-{}", body(1, 95).replace(['+', '/'], "x"));
    let openai = format!(
        "sk-proj-{}T3BlbkFJ{}",
        body(2, 40).replace(['+', '/'], "y"),
        body(3, 40).replace(['+', '/'], "z")
    );
    let jwt = concat!(
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.",
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.",
        "c2lnbmF0dXJlLW5vdC1yZWFsLTEyMzQ1Njc4OTA"
    );
    let url = "postgres://admin:hunter@db.internal:5432/app";
    for secret in [ant.as_str(), openai.as_str(), jwt] {
        let out = redact(&format!("export TOKEN={secret} # mine"));
        assert_masked(&out, secret);
        assert!(out.ends_with(" # mine"), "{out}");
    }
    let out = redact(url);
    assert!(!out.contains("hunter"), "{out}");
    assert!(out.ends_with("db.internal:5432/app"), "{out}");
}

#[test]
fn putty_keys_are_masked_to_their_mac() {
    let key = format!(
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\nPublic-Lines: 2\n{}\n{}\nPrivate-Lines: 2\n{}\n{}\nPrivate-MAC: {}\n",
        body(1, 64), body(2, 20), body(3, 64), body(4, 24), "0123456789abcdef".repeat(4)
    );
    let out = redact(&key);
    assert_masked(&out, &body(3, 64));
    assert_masked(&out, &body(4, 24));
    assert!(!out.contains("0123456789abcdef"), "{out}");
}

#[test]
fn short_secrets_keep_nothing_and_redaction_is_idempotent() {
    assert_eq!(mask("hunter2!"), "…[redacted]");
    assert_eq!(mask(&format!("ghp_{}", "a".repeat(36))), "ghp_…[redacted]");
    let text = format!(
        "a {} b\n{}\n",
        pem("RSA ", 9),
        "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    );
    let once = redact(&text);
    assert_eq!(redact(&once), once);
    assert_eq!(
        redact("rm -rf / # no secret here, 100% sure"),
        "rm -rf / # no secret here, 100% sure"
    );
    // Multilingual text around a secret is kept whole.
    let out = redact("密钥：ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 🙂 مفتاح");
    assert_eq!(out, "密钥：ghp_…[redacted] 🙂 مفتاح");
}

#[test]
fn values_are_redacted_string_by_string() {
    let key = pem("EC ", 4);
    let mut v = serde_json::json!({"a": [key.clone(), 1], format!("k {key}"): {"b": "fine"}});
    assert_eq!(redact_value(&mut v), 2);
    let text = v.to_string();
    assert_masked(&text, &key.replace('\n', "\\n"));
    assert!(text.contains("\"fine\""));
}

#[test]
fn the_writer_sees_a_line_whole_and_a_key_block_whole() {
    let mut out = Vec::new();
    {
        let mut w = Writer::new(&mut out);
        // Written in pieces, as `writeln!` with arguments does.
        let (key, value) = ("password", "Hunter2xyz9Secret77");
        writeln!(w, "{key}={value}").unwrap();
        w.write_all(b"token").unwrap();
        w.write_all(b": ").unwrap();
        w.write_all(b"Qw9rTy1uiOp2asDfGh\n").unwrap();
        let key = pem("OPENSSH ", 8);
        for line in key.lines() {
            writeln!(w, "{line}").unwrap();
        }
        w.write_all(b"bytes \xff\xfe kept\n").unwrap();
        write!(w, "Continue? [y/n] ").unwrap();
        w.flush().unwrap();
    }
    let text = String::from_utf8_lossy(&out);
    assert!(!text.contains("Hunter2xyz9Secret77"), "{text}");
    assert!(!text.contains("Qw9rTy1uiOp2asDfGh"), "{text}");
    assert_masked(&text, &pem("OPENSSH ", 8));
    assert!(out.windows(11).any(|w| w == b"bytes \xff\xfe ke"), "{text}");
    assert!(text.ends_with("Continue? [y/n] "), "{text}");
}

#[test]
fn a_huge_text_is_redacted() {
    // A transcript of megabytes with a key at its end.
    let mut text = "a normal line of a session, with a path /tmp/x and 100% done\n".repeat(60_000);
    let key = pem("RSA ", 12);
    text.push_str(&key);
    let out = redact(&text);
    assert_masked(&out, &key);
    assert_eq!(out.len(), text.len() - key.len() + "----…[redacted]".len());
}

#[test]
fn what_the_first_review_found() {
    // A URL password ending in characters no token has is masked to its `@`.
    let out = redact("psql postgres://app:Pa$$w0rd!!@db:5432/x");
    assert!(!out.contains("!!") && !out.contains("w0rd"), "{out}");
    assert!(out.ends_with("@db:5432/x"), "{out}");
    // An END line without its closing dashes ends the block at its line end.
    let key = pem("RSA ", 21);
    let cut = key.trim_end_matches('-');
    let out = redact(&format!("{cut}\n{{\"after\": \"kept\"}}"));
    assert_masked(&out, cut);
    assert!(out.ends_with("{\"after\": \"kept\"}"), "{out}");
    // An encrypted key cut before its END, with the blank line after its headers.
    let enc = format!(
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B\n\n{}\n{}\n",
        body(31, 64),
        body(32, 40)
    );
    let out = redact(&enc);
    assert_masked(&out, &body(31, 64));
    assert_masked(&out, &body(32, 40));
    // Many long keys, one a line: each masked (and each widened once).
    let keys: Vec<String> = (0..2000)
        .map(|i| {
            format!(
                "sk-ant-api03-{}AA",
                body(100 + i, 93).replace(['+', '/'], "_")
            )
        })
        .collect();
    let out = redact(&keys.join("\n"));
    for k in keys.iter().step_by(97) {
        assert_masked(&out, k);
    }
}

#[test]
fn the_writer_does_not_hold_a_text_about_keys() {
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out);
    writeln!(w, "Detects `-----BEGIN ... PRIVATE KEY-----` headers.").unwrap();
    assert!(
        String::from_utf8_lossy(w.inner_ref()).contains("Detects"),
        "a line about keys goes out at once"
    );
}

/// The shapes issue 48 found unmasked in git-skill's own commits and requests: none of the
/// secret survives, whatever the syntax around it.
#[test]
fn every_shape_a_model_may_quote_is_masked() {
    let pw = concat!("Tr0ub4", "dor&3horse");
    let key = concat!(
        "q8Zr2Lw5Xt9Vb3Nm7Kp1Hc4Jd6Fg0Sa2We8Ry5Ui3Op7L",
        "kq8Zr2Lw5Xt9Vb3Nm7Kp1Hc4Jd6Fg0Sa2We8Ry5U=="
    );
    let hook = concat!(
        "q8Zr2Lw5Xt9Vb3Nm7Kp1Hc4Jd6Fg0Sa2We8Ry5Ui3Op7L",
        "kq8Zr2Lw5Xt9Vb3Nm7Kp1Hc4Jd6"
    );
    let token = concat!("ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d");
    let hex: String = token.bytes().map(|b| format!("{b:02x}")).collect();
    let docker = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(format!("deploy:{pw}"))
    };
    let cases: Vec<(String, &str)> = vec![
        (format!("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={key};EndpointSuffix=core.windows.net"), key),
        (format!("machine api.example.com login bob password {pw}"), pw),
        (format!("https://discord.com/api/webhooks/123456789012345678/{hook}"), hook),
        (format!("password = {pw}"), pw),
        (format!("PGPASSWORD={pw} psql -h db"), pw),
        (format!("{{\"password\": \"{pw}\"}}"), pw),
        (format!("https://acct.blob.core.windows.net/c?sv=2022-11-02&sig={}", &key[..44]), &key[..44]),
        (format!("curl -u admin:{pw} https://api.example.com"), pw),
        (format!("db.example.com:5432:app:bob:{pw}"), pw),
        (format!("psql --password={pw}"), pw),
        (format!("Server=db;Database=app;User Id=sa;Password={pw};"), pw),
        (format!("https://example.webhook.office.com/webhookb2/0b3c1e9a-1111-2222-3333-444455556666@0b3c1e9a-1111-2222-3333-444455556666/IncomingWebhook/{}/0b3c1e9a-1111-2222-3333-444455556666", &hook[..32]), &hook[..32]),
        (format!("the token in hex: {hex}"), hex.as_str()),
        // Variants of the same shapes: another name, another language.
        (format!("DB_PASS={pw}"), pw),
        (format!("Passwort: {pw}"), pw),
        (format!("contraseña = {pw}"), pw),
        (format!("パスワード: {pw}"), pw),
        (format!("пароль={pw}"), pw),
        (format!("https://discordapp.com/api/webhooks/99999/{hook}"), hook),
        (format!("wget --user=bob --password={pw} https://x.example"), pw),
        // Cut in pieces: wrapped over indented lines, split across adjacent JSON strings.
        (format!("token:\n    {}\n    {}\n", &token[..20], &token[20..]), &token[4..]),
        (format!("{{\"head\": \"{}\", \"tail\": \"{}\"}}", &token[..16], &token[16..]), &token[4..]),
        (format!("const T = \"{}\" +\n  \"{}\";", &token[..12], &token[12..]), &token[4..]),
        // A docker config's `auth`: base64 of user:password.
        (format!("{{\"auths\": {{\"registry.example.com\": {{\"auth\": \"{}\"}}}}}}", docker), docker.as_str()),
    ];
    for (text, secret) in &cases {
        let masked = redact(text);
        let slice = &secret[..secret.len().min(12)];
        assert!(
            !masked.contains(&secret[secret.len().saturating_sub(8)..])
                && !masked.contains(&slice[4..]),
            "{text}\n  => {masked}"
        );
    }
    // A whole secret before glue is masked alone: the next key or field stays.
    let yaml = format!("env:\n  GITHUB_TOKEN: {token}\n  DEPLOY_ENV: production\n");
    let masked = redact(&yaml);
    assert!(
        masked.ends_with("[redacted]\n  DEPLOY_ENV: production\n") && !masked.contains(&token[4..]),
        "{masked}"
    );
    let json = format!("{{\"token\": \"{token}\", \"env\": \"production\"}}");
    let masked = redact(&json);
    assert!(
        masked.ends_with("[redacted]\", \"env\": \"production\"}") && !masked.contains(&token[4..]),
        "{masked}"
    );
    // Places name a secret whatever it looks like (only a mask is not one).
    for (text, secret) in [
        ("machine h login bob password $ecretPw9", "$ecretPw9"),
        ("db.example.com:5432:app:bob:my_s3cret_pw", "my_s3cret_pw"),
    ] {
        assert!(!redact(text).contains(secret), "{text}");
    }

    // Placeholders stay as they are.
    for text in [
        "password = ${DB_PASSWORD}",
        "password: <your password>",
        "PGPASSWORD=changeme",
        "password = os.environ[\"DB_PASSWORD\"]",
        "--password \"$PASS\"",
        "bypass = true",
        r#"{"t": "netrc password:\nmachine api.example.com"}"#,
        "compass: north",
    ] {
        assert_eq!(redact(text), text);
    }
}

/// Masking twice is masking once, for every rule: a mask is a placeholder to all of them.
#[test]
fn a_masked_text_has_nothing_left_to_mask() {
    let pw = concat!("Tr0ub4", "dor&abcdEFGH");
    let text = format!(
        "{{\"a\":\"netrc:\\nmachine api.example.com login bob password {pw}\\npgpass:\\ndb.example.com:5432:app:bob:{pw}\\n\"}}"
    );
    let once = redact(&text);
    assert!(!once.contains(&pw[4..]), "{once}");
    assert_eq!(redact(&once), once);
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    redact_value(&mut v);
    let line = v.to_string();
    assert_eq!(redact(&line), line);
}
