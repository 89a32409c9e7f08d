//! The LLM layer against a real HTTP server on 127.0.0.1 speaking the OpenAI and Anthropic
//! protocols, and the command provider against real scripts: requests as sent, retries,
//! timeouts, malformed answers, structured JSON with repair, the batch runner, and
//! `git skill llm ping` through the binary. No key ever appears in an error.

use std::time::{Duration, Instant};

use git_skill::llm::retry::Retry;
use git_skill::llm::settings::Secret;
use git_skill::llm::{self, batch, json, LlmError, ProviderKind, Request, Settings};
use serde_json::json;

use super::common::Sandbox;
use super::llm_server::{Reply, Server};

const OPENAI_KEY: &str = concat!(
    "sk-proj-2FDEEtfjgVvVqE1SkHbn88Hx",
    "T3BlbkFJjSI6bWHtP3fS2qHx6kwXoIIX"
);
const PLAIN_KEY: &str = "local-server-key-1234";

fn settings(kind: ProviderKind, base_url: String, key: Option<&str>) -> Settings {
    Settings {
        kind,
        model: "test-model".into(),
        base_url,
        command: None,
        api_key: key.map(|k| Secret::new(k.to_owned())),
        timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(2),
        retry: Retry {
            retries: 2,
            base: Duration::from_millis(10),
            max_wait: Duration::from_secs(5),
        },
        parallel: 4,
        chosen_because: "test".into(),
    }
}

fn openai(server: &Server, key: Option<&str>) -> Box<dyn llm::Provider> {
    llm::provider(&settings(ProviderKind::OpenAi, server.url("/v1"), key))
}

fn anthropic(server: &Server) -> Box<dyn llm::Provider> {
    llm::provider(&settings(
        ProviderKind::Anthropic,
        server.url(""),
        Some(PLAIN_KEY),
    ))
}

fn schema_request() -> Request {
    let mut r = Request::new("Judge the cluster.").system("You are a gate.");
    r.schema = Some(llm::Schema {
        name: "verdict".into(),
        schema: json!({"type": "object", "properties": {"verdict": {"type": "string"}}, "required": ["verdict"]}),
    });
    r.temperature = Some(0.0);
    r.max_tokens = 64;
    r
}

fn assert_no_key(text: &str) {
    for key in [OPENAI_KEY, PLAIN_KEY] {
        assert!(!text.contains(key), "a key leaked: {text}");
    }
}

#[test]
fn openai_request_and_answer_follow_the_protocol() {
    let server = Server::start(vec![Reply::openai("{\"verdict\":\"NO\"}")]);
    let c = openai(&server, Some(OPENAI_KEY))
        .complete(&schema_request())
        .unwrap();
    assert_eq!(c.text, "{\"verdict\":\"NO\"}");
    assert_eq!(
        (c.usage.input_tokens, c.usage.output_tokens, c.attempts),
        (11, 2, 1)
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {OPENAI_KEY}").as_str())
    );
    let body = r.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["max_tokens"], 64);
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "You are a gate."})
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "Judge the cluster."})
    );
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["name"], "verdict");
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(
        body["response_format"]["json_schema"]["schema"],
        schema_request().schema.unwrap().schema
    );
    // Without a key (Ollama), no authorization header at all.
    let server = Server::start(vec![Reply::openai("pong")]);
    openai(&server, None)
        .complete(&Request::new("ping"))
        .unwrap();
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[test]
fn anthropic_request_and_answer_follow_the_protocol() {
    let server = Server::start(vec![Reply::anthropic("pong")]);
    let c = anthropic(&server).complete(&schema_request()).unwrap();
    assert_eq!(c.text, "pong");
    assert_eq!((c.usage.input_tokens, c.usage.output_tokens), (21, 3));
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some(PLAIN_KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    let body = r.json();
    assert_eq!(body["system"], "You are a gate.");
    assert_eq!(body["max_tokens"], 64);
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": "Judge the cluster."}])
    );
    assert!(body.get("response_format").is_none());
    // A base URL that already ends in /v1 is not doubled.
    let server = Server::start(vec![Reply::anthropic("pong")]);
    llm::provider(&settings(
        ProviderKind::Anthropic,
        server.url("/v1/"),
        Some(PLAIN_KEY),
    ))
    .complete(&Request::new("x"))
    .unwrap();
    assert_eq!(server.requests()[0].path, "/v1/messages");
}

#[test]
fn rate_limits_are_retried_no_sooner_than_the_server_asks() {
    let server = Server::start(vec![
        Reply::json(429, json!({"error": {"message": "slow down"}}))
            .header("retry-after-ms", "300"),
        Reply::openai("ok"),
    ]);
    let start = Instant::now();
    let c = openai(&server, None).complete(&Request::new("x")).unwrap();
    assert_eq!(c.attempts, 2);
    assert!(
        start.elapsed() >= Duration::from_millis(300),
        "{:?}",
        start.elapsed()
    );
    let server = Server::start(vec![
        Reply::json(
            529,
            json!({"type": "error", "error": {"type": "overloaded_error"}}),
        )
        .header("retry-after", "1"),
        Reply::anthropic("ok"),
    ]);
    let start = Instant::now();
    let c = anthropic(&server).complete(&Request::new("x")).unwrap();
    assert_eq!(c.attempts, 2);
    assert!(start.elapsed() >= Duration::from_secs(1));
    // A wait longer than git-skill's limit is reported, not slept through.
    let server = Server::start(vec![
        Reply::json(429, json!({})).header("retry-after", "3600")
    ]);
    let e = openai(&server, None)
        .complete(&Request::new("x"))
        .unwrap_err();
    assert!(matches!(e, LlmError::WaitTooLong { .. }), "{e}");
    crate::snapshot::assert_message(
        "llm-rate-limits-are-retried-no-sooner-than-the-server-asks-301",
        &e.to_string(),
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn server_errors_are_retried_then_reported() {
    let server = Server::start(vec![Reply::text(500, "boom"), Reply::openai("ok")]);
    let c = openai(&server, None).complete(&Request::new("x")).unwrap();
    assert_eq!((c.text.as_str(), c.attempts), ("ok", 2));
    for status in [408, 409, 502, 503] {
        let server = Server::start(vec![Reply::text(status, "busy")]);
        let e = openai(&server, None)
            .complete(&Request::new("x"))
            .unwrap_err();
        assert_eq!(server.requests().len(), 3, "{status}: 1 + 2 retries");
        let text = e.to_string();
        assert!(
            text.contains(&format!("HTTP {status} after 3 attempts: busy")),
            "{text}"
        );
        assert!(text.contains(&server.url("/v1/chat/completions")), "{text}");
    }
}

#[test]
fn client_errors_and_exhausted_quotas_are_not_retried() {
    for status in [400, 401, 403, 404, 422] {
        let server = Server::start(vec![Reply::json(
            status,
            json!({"error": {"message": format!("Incorrect API key provided: {OPENAI_KEY}")}}),
        )]);
        let e = openai(&server, Some(OPENAI_KEY))
            .complete(&Request::new("x"))
            .unwrap_err();
        assert_eq!(server.requests().len(), 1, "{status}");
        let text = e.to_string();
        assert!(
            text.contains(&format!("HTTP {status} after 1 attempt")),
            "{text}"
        );
        assert_no_key(&text);
    }
    let e = {
        let server = Server::start(vec![Reply::json(401, json!({"error": "bad key"}))]);
        openai(&server, Some(OPENAI_KEY))
            .complete(&Request::new("x"))
            .unwrap_err()
    };
    assert!(e.hint().unwrap().contains("OPENAI_API_KEY"));
    // An ordinary rate limit links to the billing page too, and is retried.
    let server = Server::start(vec![
        Reply::json(429, json!({"error": {"message": "Rate limit reached for requests per min. You can increase your rate limit by adding a payment method at https://platform.openai.com/account/billing.", "code": "rate_limit_exceeded"}})).header("retry-after-ms", "10"),
        Reply::openai("ok"),
    ]);
    assert_eq!(
        openai(&server, None)
            .complete(&Request::new("x"))
            .unwrap()
            .attempts,
        2
    );
    let server = Server::start(vec![Reply::json(
        429,
        json!({"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}}),
    )]);
    let e = openai(&server, None)
        .complete(&Request::new("x"))
        .unwrap_err();
    assert_eq!(server.requests().len(), 1);
    crate::snapshot::assert_message(
        "llm-client-errors-and-exhausted-quotas-are-not-retried-301",
        &e.to_string(),
    );
    // A key of no known shape, echoed by a server, is scrubbed all the same.
    let server = Server::start(vec![Reply::text(401, &format!("key {PLAIN_KEY} is wrong"))]);
    let e = llm::provider(&settings(
        ProviderKind::Anthropic,
        server.url(""),
        Some(PLAIN_KEY),
    ))
    .complete(&Request::new("x"))
    .unwrap_err();
    assert_no_key(&e.to_string());
    crate::snapshot::assert_message(
        "llm-client-errors-and-exhausted-quotas-are-not-retried-302",
        &e.to_string(),
    );
}

/// A server that takes longer than the timeout once it has the request is still generating
/// the answer: asking again would queue behind the abandoned work (a local model serves one
/// request at a time), so the timeout is reported at once, with what to raise.
#[test]
fn a_slow_server_times_out_and_is_not_asked_again() {
    let server = Server::start(vec![Reply::openai("late").delay(Duration::from_secs(3))]);
    let mut s = settings(ProviderKind::OpenAi, server.url("/v1"), None);
    s.timeout = Duration::from_millis(300);
    s.retry.retries = 3;
    let e = llm::provider(&s).complete(&Request::new("x")).unwrap_err();
    assert!(matches!(e, LlmError::Timeout { attempts: 1, .. }), "{e}");
    crate::snapshot::assert_message(
        "llm-a-slow-server-times-out-and-is-not-asked-again-301",
        &e.to_string(),
    );
    assert!(e.hint().unwrap().contains("skill.timeout"));
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn malformed_non_json_and_cut_off_answers_are_reported() {
    let cases = [
        (Reply::text(200, "{\"choices\": ["), "not JSON", 1),
        (Reply::text(200, "<html>Bad gateway</html>"), "not JSON", 1),
        (
            Reply::json(200, json!({"choices": []})),
            "no choices[0].message.content",
            1,
        ),
        (
            Reply::json(
                200,
                json!({"choices": [{"message": {"content": null, "refusal": "I can't"}}]}),
            ),
            "the model refused: I can't",
            1,
        ),
        (Reply::openai("ok").truncated(), "cut off", 3),
    ];
    for (reply, expected, requests) in cases {
        let server = Server::start(vec![reply]);
        let e = openai(&server, None)
            .complete(&Request::new("x"))
            .unwrap_err();
        assert!(e.to_string().contains(expected), "{expected}: {e}");
        assert_eq!(server.requests().len(), requests, "{expected}");
    }
    let server = Server::start(vec![Reply::json(200, json!({"type": "message"}))]);
    let e = anthropic(&server).complete(&Request::new("x")).unwrap_err();
    crate::snapshot::assert_message(
        "llm-malformed-non-json-and-cut-off-answers-are-reported-301",
        &e.to_string(),
    );
    // Answers cut at the token limit are not taken for complete ones.
    let server = Server::start(vec![Reply::json(
        200,
        json!({"choices": [{"message": {"content": "{\"a\":"}, "finish_reason": "length"}]}),
    )]);
    let e = openai(&server, None)
        .complete(&Request::new("x"))
        .unwrap_err();
    crate::snapshot::assert_message(
        "llm-malformed-non-json-and-cut-off-answers-are-reported-302",
        &e.to_string(),
    );
    let server = Server::start(vec![Reply::json(
        200,
        json!({"content": [{"type": "text", "text": "{\"a\":"}], "stop_reason": "max_tokens"}),
    )]);
    let e = anthropic(&server).complete(&Request::new("x")).unwrap_err();
    crate::snapshot::assert_message(
        "llm-malformed-non-json-and-cut-off-answers-are-reported-303",
        &e.to_string(),
    );
    // A 200 that is not JSON and echoes the key: the key is scrubbed from the error.
    let server = Server::start(vec![Reply::text(
        200,
        &format!("proxy says: your header was Bearer {PLAIN_KEY}"),
    )]);
    let e = openai(&server, Some(PLAIN_KEY))
        .complete(&Request::new("x"))
        .unwrap_err();
    assert_no_key(&e.to_string());
}

#[test]
fn a_server_refusing_json_schema_gets_the_request_again_without_it() {
    let server = Server::start(vec![
        Reply::json(
            400,
            json!({"error": {"message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."}}),
        ),
        Reply::openai("{\"verdict\":\"YES\"}"),
    ]);
    let provider = openai(&server, None);
    let c = provider.complete(&schema_request()).unwrap();
    assert_eq!(c.attempts, 2);
    provider.complete(&schema_request()).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert!(reqs[0].json().get("response_format").is_some());
    assert!(reqs[1].json().get("response_format").is_none());
    assert!(
        reqs[2].json().get("response_format").is_none(),
        "not sent again once refused"
    );
    // Reasoning models want max_completion_tokens: asked once, remembered.
    let server = Server::start(vec![
        Reply::json(
            400,
            json!({"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}}),
        ),
        Reply::openai("ok"),
    ]);
    let provider = openai(&server, None);
    assert_eq!(provider.complete(&schema_request()).unwrap().attempts, 2);
    provider.complete(&schema_request()).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs[0].json()["max_tokens"], 64);
    assert_eq!(reqs[1].json()["max_completion_tokens"], 64);
    assert!(reqs[1].json().get("max_tokens").is_none());
    assert_eq!(reqs[2].json()["max_completion_tokens"], 64);
    // Reasoning models take no temperature: dropped once, remembered.
    let server = Server::start(vec![
        Reply::json(
            400,
            json!({"error": {"message": "Unsupported value: 'temperature' does not support 0.0 with this model. Only the default (1) value is supported."}}),
        ),
        Reply::openai("ok"),
    ]);
    let provider = openai(&server, None);
    provider.complete(&schema_request()).unwrap();
    provider.complete(&schema_request()).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs[0].json()["temperature"], 0.0);
    assert!(reqs[1].json().get("temperature").is_none());
    assert!(reqs[2].json().get("temperature").is_none());
    // Any other 400 is final.
    let server = Server::start(vec![Reply::json(
        400,
        json!({"error": {"message": "bad messages"}}),
    )]);
    assert!(openai(&server, None).complete(&schema_request()).is_err());
    assert_eq!(server.requests().len(), 1);
}

#[derive(Debug, serde::Deserialize)]
struct Verdict {
    cluster_id: String,
    verdict: String,
}

fn check(v: &Verdict) -> Result<(), String> {
    match v.verdict.as_str() {
        "YES" | "NO" => Ok(()),
        other => Err(format!("verdict must be YES or NO, not {other:?}")),
    }
}

#[test]
fn structured_answers_are_extracted_repaired_or_kept_for_inspection() {
    let server = Server::start(vec![Reply::openai(
        "Here is my judgement:\n```json\n{\"cluster_id\": \"c_001\", \"verdict\": \"NO\"}\n```",
    )]);
    let s = json::complete_json::<Verdict>(
        openai(&server, None).as_ref(),
        &schema_request(),
        &check,
        None,
    )
    .unwrap();
    assert_eq!(
        (
            s.value.cluster_id.as_str(),
            s.value.verdict.as_str(),
            s.repaired
        ),
        ("c_001", "NO", false)
    );

    let server = Server::start(vec![
        Reply::openai("{\"cluster_id\": \"c_001\", \"verdict\": \"PROBABLY\"}"),
        Reply::openai("{\"cluster_id\": \"c_001\", \"verdict\": \"YES\"}"),
    ]);
    let s = json::complete_json::<Verdict>(
        openai(&server, None).as_ref(),
        &schema_request(),
        &check,
        None,
    )
    .unwrap();
    assert!(s.repaired);
    assert_eq!(s.value.verdict, "YES");
    assert_eq!(s.usage.input_tokens, 22);
    let repair = server.requests()[1].json();
    let messages = repair["messages"].as_array().unwrap();
    assert_eq!(messages[2]["role"], "assistant");
    assert!(messages[3]["content"]
        .as_str()
        .unwrap()
        .contains("verdict must be YES or NO, not \"PROBABLY\""));

    let dir = tempfile::tempdir().unwrap();
    let raw_dir = dir.path().join(".skillopt/work");
    let server = Server::start(vec![
        Reply::openai("I cannot decide."),
        Reply::openai("{\"verdict\": 3}"),
    ]);
    let e = json::complete_json::<Verdict>(
        openai(&server, None).as_ref(),
        &schema_request(),
        &check,
        Some(&raw_dir),
    )
    .unwrap_err();
    let LlmError::Json { raw, .. } = &e else {
        panic!("{e}")
    };
    assert!(raw.starts_with(&raw_dir), "{}", raw.display());
    // The reason, and where the answers are kept.
    crate::snapshot::assert_message(
        "llm-structured-answers-are-extracted-repaired-or-kept-for-inspection-301",
        &e.to_string().replace(&raw.display().to_string(), "[RAW]"),
    );
    let kept = std::fs::read_to_string(raw).unwrap();
    assert!(
        kept.contains("I cannot decide.") && kept.contains("{\"verdict\": 3}"),
        "{kept}"
    );
}

/// A tool-use answer of Anthropic's API, the tool's input being `input`.
fn anthropic_tool(name: &str, input: serde_json::Value) -> Reply {
    Reply::json(
        200,
        json!({
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Calling the tool."},
                {"type": "tool_use", "id": "toolu_1", "name": name, "input": input}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 30, "output_tokens": 9}
        }),
    )
}

#[test]
fn anthropic_structured_answers_come_through_a_forced_tool() {
    let server = Server::start(vec![anthropic_tool(
        "verdict",
        json!({"cluster_id": "c_001", "verdict": "NO"}),
    )]);
    let s = json::complete_json::<Verdict>(
        anthropic(&server).as_ref(),
        &schema_request(),
        &check,
        None,
    )
    .unwrap();
    assert_eq!(
        (s.value.cluster_id.as_str(), s.value.verdict.as_str()),
        ("c_001", "NO")
    );
    let body = server.requests()[0].json();
    assert_eq!(body["tools"][0]["name"], "verdict");
    assert_eq!(
        body["tools"][0]["input_schema"],
        schema_request().schema.unwrap().schema
    );
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "verdict"})
    );

    // A server that does not take tools: asked again without, and not sent them again.
    let server = Server::start(vec![
        Reply::json(
            400,
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "tools: Extra inputs are not permitted"}}),
        ),
        Reply::anthropic("{\"cluster_id\": \"c_001\", \"verdict\": \"YES\"}"),
    ]);
    let provider = anthropic(&server);
    let c = provider.complete(&schema_request()).unwrap();
    assert_eq!(c.attempts, 2);
    provider.complete(&schema_request()).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert!(reqs[0].json().get("tools").is_some());
    assert!(reqs[1].json().get("tools").is_none());
    assert!(reqs[1].json().get("tool_choice").is_none());
    assert!(reqs[2].json().get("tools").is_none(), "not sent again");
    // No schema, no tool.
    let server = Server::start(vec![Reply::anthropic("pong")]);
    anthropic(&server).complete(&Request::new("ping")).unwrap();
    assert!(server.requests()[0].json().get("tools").is_none());
}

/// A server that ignores the schema cannot slip an answer past it: the answer is checked
/// locally, the repair request quotes what broke it, and a second bad answer is refused.
#[test]
fn answers_are_checked_against_the_schema_the_server_ignored() {
    let mut request = schema_request();
    request.schema = Some(git_skill::prompt::schemas::gate(
        git_skill::prompt::contracts::GateMode::TextEdit,
    ));
    let server = Server::start(vec![
        Reply::openai("{\"cluster_id\": \"c_001\", \"verdict\": \"MAYBE\", \"reason\": \"r\"}"),
        Reply::openai("{\"cluster_id\": \"c_001\", \"verdict\": \"NO\", \"reason\": null}"),
    ]);
    let s = json::complete_json::<Verdict>(openai(&server, None).as_ref(), &request, &check, None)
        .unwrap();
    assert!(s.repaired);
    assert_eq!(s.value.verdict, "NO");
    let repair = server.requests()[1].json();
    let last = repair["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        last.contains("does not follow the schema: `verdict` must be one of \"YES\", \"NO\""),
        "{last}"
    );

    // A field the contract does not have is left out, not a reason to ask again (free-text
    // models add a `diagnosis`; strict-schema servers never do).
    let server = Server::start(vec![Reply::openai(
        "{\"cluster_id\": \"c_001\", \"verdict\": \"NO\", \"extra\": 1, \"diagnosis\": \"why 漢字\"}",
    )]);
    let s = json::complete_json::<Verdict>(openai(&server, None).as_ref(), &request, &check, None)
        .unwrap();
    assert!(!s.repaired);
    assert_eq!(s.value.verdict, "NO");
    assert_eq!(server.requests().len(), 1);
    let mut ignored = s.ignored.clone();
    ignored.sort();
    assert_eq!(
        ignored,
        ["diagnosis", "extra"],
        "named for the caller to log"
    );

    // Two bad answers: the error names the first answer's problem, then the second's.
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(vec![
        Reply::openai("{\"cluster_id\": \"c_001\", \"verdict\": \"MAYBE\"}"),
        Reply::openai("not json at all"),
    ]);
    let e = json::complete_json::<Verdict>(
        openai(&server, None).as_ref(),
        &request,
        &check,
        Some(dir.path()),
    )
    .unwrap_err();
    let LlmError::Json { raw, .. } = &e else {
        panic!("{e}")
    };
    crate::snapshot::assert_message(
        "llm-answers-are-checked-against-the-schema-the-server-ignored-301",
        &e.to_string().replace(&raw.display().to_string(), "[RAW]"),
    );
    assert!(
        e.to_string().contains("`verdict` must be one of")
            && e.to_string().contains("asked again: no JSON object found"),
        "{e}"
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn the_command_provider_gets_the_schema_in_its_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("prompt.txt");
    let p = command(
        &format!(
            "cat > '{}'; echo '{{\"cluster_id\":\"c_001\",\"verdict\":\"NO\"}}'",
            seen.display()
        ),
        Duration::from_secs(10),
    );
    json::complete_json::<Verdict>(p.as_ref(), &schema_request(), &check, None).unwrap();
    let prompt = std::fs::read_to_string(&seen).unwrap();
    assert!(
        prompt.starts_with("You are a gate.\n\nJudge the cluster.\n\nAnswer with one JSON object that follows this JSON schema"),
        "{prompt}"
    );
    assert!(prompt.contains(&schema_request().schema.unwrap().schema.to_string()));
}

#[test]
fn the_batch_runner_keeps_input_order_and_sums_usage() {
    let server = Server::start(vec![Reply::openai("same")]);
    let provider = openai(&server, None);
    let requests: Vec<Request> = (0..8)
        .map(|i| Request::new(format!("cluster {i}")))
        .collect();
    let batch = batch::complete_all(provider.as_ref(), &requests, 4);
    assert_eq!(batch.results.len(), 8);
    assert!(batch.results.iter().all(|r| r.is_ok()));
    assert_eq!(batch.usage().input_tokens, 88);
    // Order: later items finish first on 2 workers, and still come back in place.
    let delays: Vec<u64> = (0..6).rev().map(|i| i * 40).collect();
    let out = batch::run(&delays, 2, |&ms| {
        std::thread::sleep(Duration::from_millis(ms));
        Ok(ms)
    });
    let values: Vec<u64> = out.results.into_iter().map(Result::unwrap).collect();
    assert_eq!(values, delays);
    // complete_all too: each answer echoes its request, answered in reverse order of arrival.
    let script: Vec<Reply> = (0..6)
        .map(|i| Reply::openai("x").delay(Duration::from_millis(200 - i * 30)))
        .collect();
    let server = Server::start(script);
    let provider = openai(&server, None);
    let requests: Vec<Request> = (0..6)
        .map(|i| Request::new(format!("cluster {i}")))
        .collect();
    let batch = batch::complete_all(provider.as_ref(), &requests, 3);
    assert!(batch.results.iter().all(|r| r.is_ok()));
    assert_eq!(server.requests().len(), 6);
}

fn command(script: &str, timeout: Duration) -> Box<dyn llm::Provider> {
    let mut s = settings(ProviderKind::Command, String::new(), None);
    s.command = Some(script.to_owned());
    s.timeout = timeout;
    llm::provider(&s)
}

#[test]
fn the_command_provider_runs_scripts_with_the_prompt_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("prompt.txt");
    let p = command(
        &format!("cat > '{}'; echo '{{\"verdict\":\"NO\"}}'", seen.display()),
        Duration::from_secs(10),
    );
    let c = p
        .complete(&Request::new("the prompt").system("the system"))
        .unwrap();
    assert_eq!(c.text.trim(), "{\"verdict\":\"NO\"}");
    assert!(c.usage.estimated);
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        "the system\n\nthe prompt\n"
    );

    let e = command(
        "echo 'model not found' >&2; exit 7",
        Duration::from_secs(10),
    )
    .complete(&Request::new("x"))
    .unwrap_err();
    crate::snapshot::assert_message(
        "llm-the-command-provider-runs-scripts-with-the-prompt-on-stdin-301",
        &e.to_string(),
    );

    let e = command("true", Duration::from_secs(10))
        .complete(&Request::new("x"))
        .unwrap_err();
    crate::snapshot::assert_message(
        "llm-the-command-provider-runs-scripts-with-the-prompt-on-stdin-302",
        &e.to_string(),
    );

    let e = command("printf '\\377\\376'", Duration::from_secs(10))
        .complete(&Request::new("x"))
        .unwrap_err();
    crate::snapshot::assert_message(
        "llm-the-command-provider-runs-scripts-with-the-prompt-on-stdin-303",
        &e.to_string(),
    );

    let e = command("definitely-not-a-program-xyz", Duration::from_secs(10))
        .complete(&Request::new("x"))
        .unwrap_err();
    crate::snapshot::assert_message(
        "llm-the-command-provider-runs-scripts-with-the-prompt-on-stdin-304",
        &e.to_string(),
    );

    // Garbage where JSON is expected: the repair request gets garbage too.
    let raw = dir.path().join("raw");
    let e = json::complete_json::<Verdict>(
        command("cat >/dev/null; echo 'la la la'", Duration::from_secs(10)).as_ref(),
        &Request::new("x"),
        &check,
        Some(&raw),
    )
    .unwrap_err();
    assert!(matches!(e, LlmError::Json { .. }), "{e}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_hanging_command_is_killed_with_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    let script = format!("sleep 60 & echo $! > '{}'; wait", pid_file.display());
    let start = Instant::now();
    let e = command(&script, Duration::from_millis(500))
        .complete(&Request::new("x"))
        .unwrap_err();
    assert!(matches!(e, LlmError::CommandTimeout { .. }), "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "the timeout was not enforced"
    );
    assert_gone(std::fs::read_to_string(&pid_file).unwrap().trim());

    // A command that answers and exits but leaves a process holding its output open: the
    // deadline still holds, and the leftover is killed.
    let pid_file = dir.path().join("leftover.pid");
    let script = format!("echo pong; sleep 60 & echo $! > '{}'", pid_file.display());
    let start = Instant::now();
    let e = command(&script, Duration::from_millis(800))
        .complete(&Request::new("x"))
        .unwrap_err();
    assert!(matches!(e, LlmError::CommandTimeout { .. }), "{e}");
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_gone(std::fs::read_to_string(&pid_file).unwrap().trim());

    // Megabytes of stderr are not kept; the end is quoted.
    let e = command(
        "head -c 50000000 /dev/zero | tr '\\0' x >&2; echo LAST-LINE >&2; exit 1",
        Duration::from_secs(60),
    )
    .complete(&Request::new("x"))
    .unwrap_err();
    let text = e.to_string();
    assert!(
        text.ends_with("LAST-LINE"),
        "{}",
        &text[text.len().saturating_sub(100)..]
    );
    assert!(text.len() < 5000);
}

/// The process is gone, or a zombie waiting for a reaper (PID 1 of a container may never reap).
#[cfg(target_os = "linux")]
fn assert_gone(pid: &str) {
    std::thread::sleep(Duration::from_millis(200));
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .next()
        .unwrap_or("");
    assert!(
        stat.is_empty() || state == "Z",
        "process {pid} survived: {stat}"
    );
}

#[test]
fn ping_through_the_binary_with_each_provider() {
    let sb = Sandbox::with_repo();
    let server = Server::start(vec![Reply::openai("pong")]);
    let base = server.url("/v1");
    let run = sb.run_in(
        "",
        &["llm", "ping"],
        &[
            ("GIT_SKILL_PROVIDER", "openai"),
            ("GIT_SKILL_BASE_URL", &base),
            ("GIT_SKILL_MODEL", "qwen2.5"),
            ("OPENAI_API_KEY", OPENAI_KEY),
        ],
    );
    run.assert_ok();
    for expected in [
        "provider  openai (skill.provider = openai",
        "model     qwen2.5",
        &format!("base URL  {base}"),
        "tokens    11 in, 2 out",
        "answer    pong",
    ] {
        assert!(run.stdout.contains(expected), "{expected}:\n{}", run.stdout);
    }
    assert_no_key(&run.stdout);
    assert_no_key(&run.stderr);

    let server = Server::start(vec![Reply::anthropic("pong")]);
    sb.git(&["config", "skill.baseUrl", &server.url("")])
        .assert_ok();
    let run = sb.run_in(
        "",
        &["llm", "ping", "--format", "json"],
        &[("ANTHROPIC_API_KEY", PLAIN_KEY)],
    );
    run.assert_ok();
    let v = run.json();
    assert_eq!(v["provider"], "anthropic");
    assert_eq!(v["chosen_because"], "ANTHROPIC_API_KEY is set");
    assert_eq!(v["usage"]["input_tokens"], 21);
    assert_eq!(v["answer"], "pong");
    sb.git(&["config", "--unset", "skill.baseUrl"]).assert_ok();

    let run = sb.run_in(
        "",
        &["llm", "ping"],
        &[
            ("GIT_SKILL_PROVIDER", "command"),
            ("GIT_SKILL_COMMAND", "cat >/dev/null; echo pong"),
        ],
    );
    run.assert_ok();
    // The latency is the machine's.
    let shown = crate::snapshot::show(&sb, &run);
    let latency = regex::Regex::new(r"latency +\d+ ms").unwrap();
    crate::snapshot::assert_snapshot(
        "llm-ping-through-the-binary-with-each-provider-301",
        &latency.replace(&shown, "latency   [n] ms"),
    );
}

#[test]
fn ping_failures_exit_2_and_say_what_to_set() {
    let sb = Sandbox::with_repo();
    let server = Server::start(vec![Reply::json(
        401,
        json!({"error": {"message": format!("Incorrect API key provided: {OPENAI_KEY}")}}),
    )]);
    let run = sb.run_in(
        "",
        &["llm", "ping"],
        &[
            ("GIT_SKILL_PROVIDER", "openai"),
            ("GIT_SKILL_BASE_URL", &server.url("/v1")),
            ("OPENAI_API_KEY", OPENAI_KEY),
        ],
    );
    run.assert_status(2);
    crate::snapshot::assert_run(
        &sb,
        "llm-ping-failures-exit-2-and-say-what-to-set-301",
        &run,
    );
    crate::snapshot::assert_snapshot(
        "llm-ping-failures-exit-2-and-say-what-to-set-1",
        &crate::snapshot::show(&sb, &run),
    );
    assert_no_key(&run.stderr);
    assert_no_key(&run.stdout);

    // Nothing listens: the error names what to set.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let run = sb.run_in(
        "",
        &["llm", "ping"],
        &[
            ("GIT_SKILL_BASE_URL", &format!("http://127.0.0.1:{port}/v1")),
            ("GIT_SKILL_RETRIES", "0"),
        ],
    );
    run.assert_status(2);
    crate::snapshot::assert_run(
        &sb,
        "llm-ping-failures-exit-2-and-say-what-to-set-302",
        &run,
    );
    crate::snapshot::assert_snapshot(
        "llm-ping-failures-exit-2-and-say-what-to-set-2",
        &crate::snapshot::show(&sb, &run),
    );

    let run = sb.run_in("", &["llm", "ping"], &[("GIT_SKILL_PROVIDER", "anthropic")]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "llm-ping-failures-exit-2-and-say-what-to-set-3",
        &crate::snapshot::show(&sb, &run),
    );
    let run = sb.run_in("", &["llm", "ping"], &[("GIT_SKILL_PROVIDER", "command")]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "llm-ping-failures-exit-2-and-say-what-to-set-4",
        &crate::snapshot::show(&sb, &run),
    );
    let run = sb.run_in("", &["llm", "ping"], &[("GIT_SKILL_TIMEOUT", "soon")]);
    run.assert_status(2);
    crate::snapshot::assert_run(
        &sb,
        "llm-ping-failures-exit-2-and-say-what-to-set-303",
        &run,
    );
}

/// llama-cpp-python's server answers a `json_schema` it does not take with a 500 (and may name
/// the field past the first 500 characters): asked again at once without the schema, not
/// retried, and the answer is still checked against it here.
#[test]
fn a_500_that_refuses_the_schema_is_asked_again_without_it() {
    let long = format!(
        "{}: 'response_format' type json_schema is not supported, use json_object",
        "Traceback (most recent call last) ".repeat(40)
    );
    let server = Server::start(vec![
        Reply::json(500, json!({"error": {"message": long}})),
        Reply::openai("{\"cluster_id\": \"c_001\", \"verdict\": \"NO\", \"reason\": \"r\"}"),
    ]);
    let c = openai(&server, None).complete(&schema_request()).unwrap();
    assert_eq!(c.dropped, Some("response_format"));
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "no retry of the refusal");
    assert!(requests[0].json().get("response_format").is_some());
    assert!(requests[1].json().get("response_format").is_none());
    // An ordinary 500 is still retried.
    let server = Server::start(vec![
        Reply::json(500, json!({"error": {"message": "model overloaded"}})),
        Reply::openai("ok"),
    ]);
    let c = openai(&server, None).complete(&Request::new("x")).unwrap();
    assert_eq!((c.attempts, c.dropped), (2, None));
    // When the request sent again fails too, the refusal is not lost: both are said.
    let server = Server::start(vec![
        Reply::json(500, json!({"error": {"message": long}})),
        Reply::json(
            400,
            json!({"error": {"message": "context length exceeded"}}),
        ),
    ]);
    let e = openai(&server, None)
        .complete(&schema_request())
        .unwrap_err();
    let said = e.to_string();
    assert!(
        said.contains("context length exceeded")
            && said.contains("sent again without `response_format`, which the server refused"),
        "{said}"
    );
}

/// A stand-in for an agent CLI (`skill.command` replaces the program): what git-skill gives it
/// (its options, the prompt on stdin, an empty working directory outside the project, the
/// purpose) and how it reads the CLI's JSON, its reported error and a missing program.
#[cfg(unix)]
#[test]
fn an_agent_cli_provider_runs_headless_outside_the_project_and_reads_its_json() {
    let sb = Sandbox::with_repo();
    let seen = sb.tmp.path().join("seen");
    std::fs::create_dir_all(&seen).unwrap();
    let fake = sb.tmp.path().join("fake-claude");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{seen}/args'\npwd > '{seen}/cwd'\nls -A > '{seen}/ls'\n\
             printf '%s' \"$GIT_SKILL_PURPOSE\" > '{seen}/purpose'\ncat > '{seen}/stdin'\n\
             if [ -n \"$FAIL\" ]; then printf '%s' '{{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"result\":\"Invalid API key · Please run /login\"}}'; exit 1; fi\n\
             printf '%s' '{{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"pong 日本\",\"usage\":{{\"input_tokens\":12,\"output_tokens\":3}}}}'\n",
            seen = seen.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let envs = [
        ("GIT_SKILL_PROVIDER", "claude-code"),
        ("GIT_SKILL_COMMAND", fake.to_str().unwrap()),
    ];
    let run = sb.run_in("", &["llm", "ping", "--format", "json"], &envs);
    run.assert_ok();
    let v = run.json();
    assert_eq!(v["provider"], "claude-code", "{v}");
    assert_eq!(v["answer"], "pong 日本");
    assert_eq!(v["usage"]["input_tokens"], 12, "the CLI's own count");
    let read = |name: &str| std::fs::read_to_string(seen.join(name)).unwrap();
    assert_eq!(
        read("args").lines().collect::<Vec<_>>(),
        [
            "-p",
            "--output-format",
            "json",
            "--tools",
            "",
            "--no-session-persistence"
        ]
    );
    assert_eq!(read("purpose"), "ping");
    assert!(!read("stdin").is_empty(), "the prompt comes on stdin");
    let cwd = read("cwd");
    assert!(
        !cwd.trim().starts_with(sb.repo().to_str().unwrap()),
        "not in the project: {cwd}"
    );
    assert_eq!(read("ls"), "", "an empty directory");
    assert!(
        !std::path::Path::new(cwd.trim()).exists(),
        "and removed after the run: {cwd}"
    );

    let mut failing = envs.to_vec();
    failing.push(("FAIL", "1"));
    let run = sb.run_in("", &["llm", "ping"], &failing);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("claude-code provider")
            && run.stderr.contains("Invalid API key · Please run /login")
            && run
                .stderr
                .contains("-p --output-format json --tools '' --no-session-persistence"),
        "the CLI's own reason: {}",
        run.stderr
    );

    let run = sb.run_in(
        "",
        &["llm", "ping"],
        &[("GIT_SKILL_PROVIDER", "codex"), ("PATH", "/usr/bin:/bin")],
    );
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("codex provider") && run.stderr.contains("is the agent CLI installed"),
        "{}",
        run.stderr
    );
}
