//! A scripted HTTP/1.1 server on 127.0.0.1 that plays a model provider: each request gets the
//! next scripted reply (the last one repeats), and every request is recorded for assertions.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Wait this long before answering.
    pub delay: Duration,
    /// Announce more bytes than are sent, then close: a body cut off.
    pub truncate: bool,
}

impl Reply {
    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply::text(status, &body.to_string())
    }

    pub fn text(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: body.to_owned(),
            delay: Duration::ZERO,
            truncate: false,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn delay(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }

    pub fn truncated(mut self) -> Reply {
        self.truncate = true;
        self
    }

    /// An OpenAI chat completion answering `text`.
    pub fn openai(text: &str) -> Reply {
        Reply::json(
            200,
            serde_json::json!({
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13}
            }),
        )
    }

    /// An Anthropic message answering `text`.
    pub fn anthropic(text: &str) -> Reply {
        Reply::json(
            200,
            serde_json::json!({
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 21, "output_tokens": 3}
            }),
        )
    }
}

/// What the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lowercased names.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("the request body is JSON")
    }
}

/// Picks the reply for a request (and its number, from 0).
pub type Handler = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

pub struct Server {
    pub port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
}

impl Server {
    /// Starts answering with `script`, in order; the last reply repeats.
    pub fn start(script: Vec<Reply>) -> Server {
        assert!(!script.is_empty());
        Server::start_with(move |_, i| script[i.min(script.len() - 1)].clone())
    }

    /// Starts answering each request with what `handler` makes of it.
    pub fn start_with(
        handler: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let next = Arc::new(AtomicUsize::new(0));
        let script: Arc<Handler> = Arc::new(handler);
        {
            let (requests, stop) = (requests.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (requests, next, script) = (requests.clone(), next.clone(), script.clone());
                    std::thread::spawn(move || serve(stream, &requests, &next, script.as_ref()));
                }
            });
        }
        Server {
            port,
            requests,
            stop,
        }
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(stream: TcpStream, requests: &Mutex<Vec<Recorded>>, next: &AtomicUsize, script: &Handler) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        if let Some((name, value)) = h.trim_end().split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let recorded = Recorded {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    requests.lock().unwrap().push(recorded.clone());
    let i = next.fetch_add(1, Ordering::SeqCst);
    let reply = &script(&recorded, i);
    std::thread::sleep(reply.delay);
    let announced = reply.body.len() + if reply.truncate { 1000 } else { 0 };
    let mut head = format!(
        "HTTP/1.1 {} Scripted\r\ncontent-type: application/json\r\ncontent-length: {announced}\r\nconnection: close\r\n",
        reply.status
    );
    for (n, v) in &reply.headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = stream;
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(reply.body.as_bytes());
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
}
