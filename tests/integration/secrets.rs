//! The secret sweep: one set of realistic fake secrets (private keys of each kind, cloud keys,
//! GitHub, Slack, OpenAI and Anthropic tokens, a JWT, a password in a URL) goes through every
//! writer git-skill has: `record` (arguments and JSON on stdin), `signals`, `optimize` (a model
//! that quotes them in its root causes, diagnosis, edit reasons and gate reasons; a dry run's
//! checkpoint; an answer kept raw), `review` (a transcript holding them, a model whose summary
//! quotes them), `proposals list/show/accept --commit`. Then everything written (every file of
//! the sandbox, every git object, the reflogs), printed (stdout and stderr of every command)
//! and sent (every request the model server received) is searched for any 12-character slice
//! of each secret.

use std::path::Path;

use serde_json::{json, Value};

use super::common::{Run, Sandbox};
use super::llm_server::{Reply, Server};
use super::optimize::{gate_cluster, optimize_env, prompt_of, repo_with_signals, signal_ids};
use super::review::{call, create_call, env, model, review, Wire};

/// Characters of a fake key body: deterministic (splitmix64), never a real key.
fn chars(seed: u64, len: usize, alphabet: &[u8]) -> String {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            alphabet[((z ^ (z >> 31)) % alphabet.len() as u64) as usize] as char
        })
        .collect()
}

const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const URLSAFE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn pem(label: &str, seed: u64) -> String {
    let body = chars(seed, 64 * 5 + 24, B64);
    let lines: Vec<&str> = (0..body.len())
        .step_by(64)
        .map(|i| &body[i..(i + 64).min(body.len())])
        .collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----",
        lines.join("\n")
    )
}

/// A fake secret: how it is written, and the part that must never be seen again (a label
/// such as `aws_secret_access_key =` is not secret).
struct Secret {
    name: &'static str,
    text: String,
    secret: String,
}

fn secrets() -> Vec<Secret> {
    let whole = |name, text: String| Secret {
        name,
        secret: text.clone(),
        text,
    };
    let aws_secret = chars(21, 40, B64);
    let password = format!("Tr0ub4dor-{}", chars(22, 14, ALNUM));
    vec![
        whole("rsa key", pem("RSA PRIVATE KEY", 1)),
        whole("openssh key", pem("OPENSSH PRIVATE KEY", 2)),
        whole("ec key", pem("EC PRIVATE KEY", 3)),
        whole("pkcs8 key", pem("PRIVATE KEY", 4)),
        whole("encrypted key", pem("ENCRYPTED PRIVATE KEY", 5)),
        whole("pgp key", pem("PGP PRIVATE KEY BLOCK", 6)),
        whole(
            "aws key id",
            format!("AKIA{}", chars(7, 16, b"ABCDEFGHIJKLMNOPQRSTUVWYZ234567")),
        ),
        Secret {
            name: "aws secret",
            text: format!("aws_secret_access_key = {aws_secret}"),
            secret: aws_secret,
        },
        whole("github token", format!("ghp_{}", chars(8, 36, ALNUM))),
        whole(
            "github pat",
            format!(
                "github_pat_{}_{}",
                chars(9, 22, ALNUM),
                chars(10, 59, ALNUM)
            ),
        ),
        whole(
            "slack token",
            format!("xoxb-1234567890123-9876543210987-{}", chars(11, 24, ALNUM)),
        ),
        whole(
            "openai key",
            format!(
                "sk-proj-{}T3BlbkFJ{}",
                chars(12, 40, URLSAFE),
                chars(13, 40, URLSAFE)
            ),
        ),
        whole(
            "anthropic key",
            format!("sk-ant-api03-{}AA", chars(14, 93, URLSAFE)),
        ),
        whole(
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{}.{}",
                chars(15, 40, URLSAFE),
                chars(16, 43, URLSAFE)
            ),
        ),
        Secret {
            name: "password in a url",
            text: format!("postgres://deploy:{password}@db.internal:5432/app"),
            secret: password,
        },
    ]
    .into_iter()
    .chain(shapes())
    .collect()
}

/// The shapes issue 48 found in git-skill's own commits and requests: a secret in the syntax
/// around it (a connection string, a config file, an assignment, a command line), written in
/// hex, or cut in pieces.
fn shapes() -> Vec<Secret> {
    let with = |name, text: String, secret: String| Secret { name, text, secret };
    let account_key = format!("{}==", chars(31, 86, B64));
    let human = |seed| format!("Tr0ub4dor&{}", chars(seed, 8, ALNUM));
    let hook = chars(33, 68, URLSAFE);
    let token = format!("ghp_{}", chars(34, 36, ALNUM));
    let hex: String = token.bytes().map(|b| format!("{b:02x}")).collect();
    let wrapped = format!("ghp_{}", chars(35, 36, ALNUM));
    let split = format!("ghp_{}", chars(36, 36, ALNUM));
    let sas = format!("{}%3D", chars(37, 43, ALNUM));
    let docker = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(format!("deploy:{}", human(38)))
    };
    let (netrc, assigned, pg, json_pw, curl, pgpass) = (
        human(39),
        human(40),
        human(41),
        human(42),
        human(43),
        human(44),
    );
    vec![
        with(
            "azure connection string",
            format!("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={account_key};EndpointSuffix=core.windows.net"),
            account_key,
        ),
        with("netrc password", format!("machine api.example.com login bob password {netrc}"), netrc),
        with(
            "discord webhook",
            format!("https://discord.com/api/webhooks/556677889900112233/{hook}"),
            hook,
        ),
        with("github token in hex", format!("the token, hex: {hex}"), hex),
        with(
            "token wrapped over indented lines",
            format!("token:\n      {}\n      {}", &wrapped[..20], &wrapped[20..]),
            wrapped,
        ),
        with(
            "token split across two json fields",
            format!("{{\"head\": \"{}\", \"tail\": \"{}\"}}", &split[..16], &split[16..]),
            split,
        ),
        with("password assigned", format!("password = {assigned}"), assigned),
        with("PGPASSWORD", format!("PGPASSWORD={pg} psql -h db"), pg),
        with("json password", format!("{{\"password\": \"{json_pw}\"}}"), json_pw),
        with(
            "azure sas",
            format!("https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig={sas}"),
            sas,
        ),
        with("curl -u", format!("curl -u admin:{curl} https://api.example.com"), curl),
        with(
            "docker auth",
            format!("{{\"auths\": {{\"registry.example.com\": {{\"auth\": \"{docker}\"}}}}}}"),
            docker,
        ),
        with("pgpass line", format!("db.example.com:5432:app:bob:{pgpass}"), pgpass),
    ]
}

/// All of the secrets in one text, each on its own lines.
fn all_text(secrets: &[Secret]) -> String {
    secrets
        .iter()
        .map(|s| format!("{}:\n{}\n", s.name, s.text))
        .collect()
}

/// What was printed, written or sent, by where it was found.
#[derive(Default)]
struct Seen(Vec<(String, String)>);

impl Seen {
    fn run(&mut self, what: &str, run: &Run) {
        self.0.push((format!("{what}: stdout"), run.stdout.clone()));
        self.0.push((format!("{what}: stderr"), run.stderr.clone()));
    }

    fn requests(&mut self, what: &str, server: &Server) {
        for (i, r) in server.requests().iter().enumerate() {
            self.0
                .push((format!("{what}: request {i}"), r.body.clone()));
        }
    }

    /// Every file below `dir`, links as their target text.
    fn files(&mut self, dir: &Path) {
        let mut stack = vec![dir.to_owned()];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let Ok(meta) = std::fs::symlink_metadata(&p) else {
                    continue;
                };
                let text = if meta.is_dir() {
                    stack.push(p.clone());
                    continue;
                } else if meta.file_type().is_symlink() {
                    std::fs::read_link(&p)
                        .map(|t| t.display().to_string())
                        .unwrap_or_default()
                } else if meta.is_file() {
                    String::from_utf8_lossy(&std::fs::read(&p).unwrap_or_default()).into_owned()
                } else {
                    continue;
                };
                self.0.push((p.display().to_string(), text));
            }
        }
    }

    /// Every object of the repository, decompressed.
    fn objects(&mut self, sb: &Sandbox) {
        let out = sb
            .cmd("git")
            .dir(sb.repo())
            .args(&["cat-file", "--batch-all-objects", "--batch"])
            .run();
        out.assert_ok();
        self.0.push(("git objects".into(), out.stdout.clone()));
    }

    /// Panics naming the first place that holds a 12-character slice of a secret.
    fn assert_clean(&self, secrets: &[Secret]) {
        for s in secrets {
            let chars: Vec<char> = s.secret.chars().collect();
            for window in chars.windows(12) {
                let slice: String = window.iter().collect();
                if slice.contains('\n') {
                    continue;
                }
                for (place, text) in &self.0 {
                    assert!(
                        !text.contains(&slice),
                        "the {} ({slice}…) is in {place}:\n{}",
                        s.name,
                        excerpt(text, &slice)
                    );
                }
            }
        }
    }
}

fn excerpt(text: &str, slice: &str) -> String {
    let at = text.find(slice).unwrap_or(0);
    let mut start = at.saturating_sub(200);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + 200).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    text[start..end].to_owned()
}

/// The optimize model: every answer quotes the secrets where a model could (root causes,
/// diagnosis, edit reasons, gate reasons).
fn optimize_model(leak: &'static str, token: &'static str) -> Server {
    Server::start_with(move |r, _| {
        let prompt = prompt_of(r);
        match r.header("x-git-skill-purpose") {
            Some("triage") => {
                let ids = signal_ids(&prompt);
                let clusters: Vec<Value> = ids
                    .iter()
                    .enumerate()
                    .map(|(i, id)| json!({"cluster_id": format!("c_{:03}", i + 1), "root_cause": format!("{token} leaked in step {}", i + 1), "signal_ids": [id], "type": "corrected", "count": 1}))
                    .collect();
                Reply::openai(
                    &json!({"clusters": clusters, "conflicts": [], "stale_signals": [], "priority_order": ids})
                        .to_string(),
                )
            }
            Some("reflect") => Reply::openai(
                &json!({
                    "diagnosis": format!("{token} was pasted by the user. {leak}"),
                    "edits": [{
                        "type": "replace",
                        "target": "2. Fill each field by its printed label, the text next to the box.",
                        "new": "2. Fill each field by its form field name (list them with pypdf's `get_fields`), never by the printed label.",
                        "reason": format!("the user said so, quoting {leak}"),
                        "source_cluster_id": "c_001"
                    }]
                })
                .to_string(),
            ),
            _ => {
                let cluster = gate_cluster(&prompt);
                Reply::openai(
                    &json!({"cluster_id": cluster, "verdict": "NO", "reason": format!("fixed; {leak}")})
                        .to_string(),
                )
            }
        }
    })
}

#[test]
fn no_secret_is_written_printed_or_sent_anywhere() {
    let secrets = secrets();
    let leak: &'static str = Box::leak(all_text(&secrets).into_boxed_str());
    let token: &'static str = Box::leak(
        secrets
            .iter()
            .find(|s| s.name == "github token")
            .unwrap()
            .text
            .clone()
            .into_boxed_str(),
    );
    let mut seen = Seen::default();
    let now = [("GIT_SKILL_NOW", "2026-11-29T11:00:00Z")];

    // Signals: as arguments, and as JSON lines (escaped) on stdin.
    let sb = repo_with_signals();
    let run = sb.run_in(
        "",
        &[
            "record",
            "pdf-forms",
            "--type",
            "corrected",
            "--scenario",
            &format!("deploy with {token}"),
            "--correction",
            &format!("use this key: {leak}"),
        ],
        &now,
    );
    run.assert_ok();
    seen.run("record", &run);
    let line = json!({"type": "friction", "scenario": "a deploy", "friction_detail": leak});
    let run = sb.run_with_stdin(
        &["record", "pdf-forms", "--stdin"],
        &now,
        &format!("{line}\n"),
    );
    run.assert_ok();
    seen.run("record --stdin", &run);
    for args in [
        &["signals", "pdf-forms"][..],
        &["signals", "pdf-forms", "--format", "json"],
        &["signals", "--all-roots"],
    ] {
        let run = sb.run(args);
        run.assert_ok();
        seen.run(&args.join(" "), &run);
    }

    // A line written into the store by hand, never masked by `record`.
    let pending = sb
        .repo()
        .join(super::optimize::SKILL)
        .join(".skillopt/pending/signal.json");
    let by_hand = json!({
        "signal_id": "20261129T103000Z_pdf-forms_0badc0de",
        "skill": "pdf-forms",
        "type": "friction",
        "scenario": format!("a deploy with {token}"),
        "friction_detail": leak,
        "context": {},
        "skill_version_hash": "0".repeat(64),
        "timestamp": "2026-11-29T10:30:00Z"
    });
    let mut store = std::fs::read_to_string(&pending).unwrap();
    store.push_str(&format!("{by_hand}\n"));
    std::fs::write(&pending, &store).unwrap();

    // Optimize: a dry run keeps its checkpoint (looked at now, before the run that commits
    // removes it), then the run that commits.
    let server = optimize_model(leak, token);
    let run = optimize_env(&sb, &server, &["--dry-run"], &[]);
    seen.run("optimize --dry-run", &run);
    let work = sb
        .repo()
        .join(super::optimize::SKILL)
        .join(".skillopt/work");
    assert!(work.is_dir(), "the dry run keeps its checkpoint");
    seen.files(&work);
    let run = optimize_env(&sb, &server, &["--resume", "--yes"], &[]);
    run.assert_ok();
    seen.run("optimize --resume --yes", &run);
    seen.requests("optimize", &server);
    let log = sb.run(&["log", "pdf-forms"]);
    seen.run("log", &log);
    // The store's hand-written line was archived, masked: the person's copy is gone with it.
    assert!(!std::fs::read_to_string(&pending)
        .unwrap_or_default()
        .contains("0badc0de"));

    // Eval: the cases optimize committed from corrected signals, an agent and a judge that
    // quote every secret (the table, the kept answers and grades under .git/skill/evals).
    let quoting = Server::start_with(move |r, _| match r.header("x-git-skill-purpose") {
        Some("eval-grade") => Reply::openai(
            &json!({
                "assertions": [],
                "expected_output_met": true,
                "reason": format!("it quotes {token}: {leak}")
            })
            .to_string(),
        ),
        _ => Reply::openai(&format!("Done with {token}. {leak}")),
    });
    let base = quoting.url("/v1");
    for args in [
        &["eval", "pdf-forms"][..],
        &["eval", "pdf-forms", "--format", "json"],
    ] {
        let run = sb.run_in(
            "",
            args,
            &[
                ("GIT_SKILL_PROVIDER", "openai"),
                ("GIT_SKILL_BASE_URL", base.as_str()),
                ("GIT_SKILL_MODEL", "fake"),
                ("GIT_SKILL_RETRIES", "0"),
                ("GIT_SKILL_NOW", "2026-11-29T12:00:00Z"),
            ],
        );
        assert!(run.status <= 1, "{}", run.stderr);
        seen.run(&args.join(" "), &run);
    }
    assert!(
        !quoting.requests().is_empty(),
        "the committed cases were run"
    );
    seen.requests("eval", &quoting);

    // An answer that is not JSON, twice: kept raw for the person to read.
    sb.run_in(
        "",
        &[
            "record",
            "pdf-forms",
            "--type",
            "friction",
            "--scenario",
            "again",
            "--friction-detail",
            "slow",
        ],
        &now,
    )
    .assert_ok();
    let garbage = Server::start_with(move |_, _| Reply::openai(&format!("I cannot. {leak}")));
    let run = optimize_env(&sb, &garbage, &["--yes"], &[]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    seen.run("optimize with garbage answers", &run);
    seen.requests("optimize with garbage answers", &garbage);

    // The review: a transcript holding the secrets, a model whose summary quotes them.
    let (rsb, transcript) = super::review::repo();
    let original = std::fs::read_to_string(&transcript).unwrap();
    let asked =
        "Deploy the staging service using the deploy-notes skill, then tell me what you did.";
    let escaped = serde_json::to_string(&format!("{asked} Use these: {leak}")).unwrap();
    let with_secrets = original.replace(&serde_json::to_string(asked).unwrap(), &escaped);
    assert_ne!(with_secrets, original);
    std::fs::write(&transcript, with_secrets).unwrap();
    let final_text: &'static str = Box::leak(
        format!("Save the deploy habit {token}\n\nThe user pasted:\n{leak}").into_boxed_str(),
    );
    let server = model(
        Wire::OpenAi,
        vec![vec![call("skill_list", json!({}))], vec![create_call()]],
        final_text,
    );
    let run = review(&rsb, &env(Wire::OpenAi, &server), &transcript, &[]);
    run.assert_ok();
    seen.run("review", &run);
    seen.requests("review", &server);
    let list = rsb.run(&["proposals", "list", "--format", "json"]);
    list.assert_ok();
    seen.run("proposals list --format json", &list);
    let id = list.json()["proposals"][0]["id"]
        .as_str()
        .expect("a proposal")
        .to_owned();
    for args in [
        &["proposals", "list"][..],
        &["proposals", "show", &id],
        &["proposals", "accept", &id, "--commit"],
        &["sessions"],
    ] {
        let run = rsb.run(args);
        seen.run(&args.join(" "), &run);
    }
    let log = rsb.git(&["log", "--all", "--format=%B"]);
    crate::snapshot::assert_run(
        &sb,
        "secrets-no-secret-is-written-printed-or-sent-anywhere-301",
        &log,
    );

    // Everything either sandbox holds: work trees, .git (reflogs, run logs, raw answers,
    // proposals), the pinned HOME; and every object, decompressed.
    for sandbox in [&sb, &rsb] {
        seen.files(sandbox.tmp.path());
        seen.objects(sandbox);
    }
    // The transcript is the input, not something git-skill wrote.
    seen.0
        .retain(|(place, _)| !place.ends_with("session.jsonl"));
    seen.assert_clean(&secrets);
}

/// A skill folder named like a token: every id, trailer and folder name derived from the name
/// carries it masked (the signal id, the `Optimization-Id` trailer, the eval store's folder).
#[test]
fn a_skill_named_like_a_token_is_masked_in_every_id() {
    let name = format!("ghp_{}", chars(51, 36, ALNUM)).to_lowercase();
    let sb = Sandbox::with_repo();
    let skill = std::fs::read_to_string(super::optimize::examples().join("sample_skill.md"))
        .unwrap()
        .replace("name: pdf-forms", &format!("name: {name}"));
    sb.write(&format!(".claude/skills/{name}/SKILL.md"), skill);
    sb.git(&["add", "-A"]).assert_ok();
    sb.git(&["commit", "-q", "-m", "a skill"]).assert_ok();
    let mut seen = Seen::default();
    let now = [("GIT_SKILL_NOW", "2026-11-29T11:00:00Z")];
    let run = sb.run_in(
        "",
        &[
            "record",
            &name,
            "--type",
            "corrected",
            "--scenario",
            "fill the tax form",
            "--correction",
            "use the form field names",
        ],
        &now,
    );
    run.assert_ok();
    seen.run("record", &run);
    let run = sb.run(&["signals", &name, "--format", "json"]);
    run.assert_ok();
    let id = run.json()["signals"][0]["signal_id"]
        .as_str()
        .expect("a signal id")
        .to_owned();
    assert!(id.contains("redacted"), "{id}");
    seen.run("signals", &run);

    let server = optimize_model("nothing secret", "a token");
    let base = server.url("/v1");
    let run = sb.run_in(
        "",
        &["optimize", &name, "--yes"],
        &[
            ("GIT_SKILL_NOW", "2026-11-30T12:00:00Z"),
            ("GIT_SKILL_PROVIDER", "openai"),
            ("GIT_SKILL_BASE_URL", base.as_str()),
            ("GIT_SKILL_MODEL", "fake"),
            ("GIT_SKILL_RETRIES", "0"),
        ],
    );
    run.assert_ok();
    seen.run("optimize", &run);
    let body = sb.git(&["log", "-1", "--format=%B"]).stdout;
    let trailer = body
        .lines()
        .find(|l| l.starts_with("Optimization-Id:"))
        .expect("a trailer");
    assert!(trailer.contains("redacted"), "{trailer}");
    seen.0.push(("optimize commit".into(), body));
    // The skill's own folder is the person's: only what git-skill derived from the name counts.
    seen.0.push((
        "git-skill's outputs".into(),
        seen.0
            .iter()
            .map(|(_, t)| t.replace(&format!(".claude/skills/{name}"), ".claude/skills/NAME"))
            .collect::<Vec<_>>()
            .join("\n"),
    ));
    seen.0.retain(|(place, _)| place == "git-skill's outputs");
    seen.assert_clean(&[Secret {
        name: "skill name",
        text: name.clone(),
        secret: name,
    }]);
}

/// A hand-written store line whose token only shows whole (split across two adjacent fields,
/// each too short to be a token): optimize refuses to commit it, names the signal and why,
/// and leaves the branch and the store as they were.
#[test]
fn a_store_line_still_holding_a_secret_after_masking_is_not_committed() {
    let sb = repo_with_signals();
    let token = format!("ghp_{}", chars(61, 36, ALNUM));
    let pending = sb
        .repo()
        .join(super::optimize::SKILL)
        .join(".skillopt/pending/signal.json");
    let line = json!({
        "signal_id": "20261129T103000Z_pdf-forms_5p11t000",
        "skill": "pdf-forms",
        "type": "corrected",
        "scenario": format!("deploy {}", &token[..20]),
        "correction": &token[20..],
        "friction_detail": "",
        "context": {},
        "skill_version_hash": "0".repeat(64),
        "timestamp": "2026-11-29T10:30:00Z"
    });
    let mut store = std::fs::read_to_string(&pending).unwrap();
    store.push_str(&format!("{line}\n"));
    std::fs::write(&pending, &store).unwrap();
    let head = sb.git(&["rev-parse", "HEAD"]).stdout;

    let server = optimize_model("nothing secret", "a token");
    let run = optimize_env(&sb, &server, &["--yes"], &[]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("20261129T103000Z_pdf-forms_5p11t000")
            && run.stderr.contains("still holds a secret after masking"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains(&token[4..20]) && !run.stderr.contains(&token[20..]));
    assert!(
        server.requests().is_empty(),
        "refused before any model call: nothing of the line was sent"
    );
    assert!(
        !sb.repo()
            .join(super::optimize::SKILL)
            .join(".skillopt/work")
            .exists()
            || std::fs::read_dir(
                sb.repo()
                    .join(super::optimize::SKILL)
                    .join(".skillopt/work")
            )
            .unwrap()
            .flatten()
            .all(|e| !std::fs::read_to_string(e.path())
                .unwrap_or_default()
                .contains(&token[20..])),
        "no checkpoint holds it"
    );
    assert_eq!(
        sb.git(&["rev-parse", "HEAD"]).stdout,
        head,
        "nothing committed"
    );
    assert_eq!(std::fs::read_to_string(&pending).unwrap(), store);
    sb.git(&["fsck", "--no-dangling"]).assert_ok();
}
