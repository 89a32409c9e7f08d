#!/usr/bin/env python3
"""A scripted language-model server for git-skill's end-to-end tests (stdlib only).

Usage:
    model.py [PORT] --script FILE --log FILE [--var NAME=VALUE ...]

Listens on 127.0.0.1:PORT (0 or absent: a free port) and prints `PORT <n>` on stdout once it
accepts connections. Speaks the four wire protocols the agent CLIs and git-skill use:

  Anthropic Messages     POST /v1/messages[?...]                 (SSE when "stream": true)
                         POST /v1/messages/count_tokens
  OpenAI chat            POST /v1/chat/completions               (SSE when "stream": true)
  OpenAI Responses       POST /v1/responses                      (SSE when "stream": true)
  Gemini                 POST /v1beta/models/<m>:generateContent
                         POST /v1beta/models/<m>:streamGenerateContent?alt=sse
                         POST /v1beta/models/<m>:countTokens
  and, for start-up probes, GET .../models (a list), GET .../models/<m> (one model), any other
  request a 404 in the protocol's error shape.

It is stateless: each request's conversation is read for the tool results it already holds
(Anthropic `tool_result` blocks, chat `role: "tool"` messages, Responses `*_call_output`
items, Gemini `functionResponse` parts); that count N picks the scripted call N, while the
request offers tools; once the calls are used up the answer is the final text. A request
without tools (a title, a summary, a "who speaks next" check) gets a short side answer.

Script (JSON):
    {"calls": [{"name": "Bash", "args": {"command": "ls"}}, ...],
     "final": "text",
     "side": "text for requests without tools (optional)",
     "per_protocol": {"anthropic"|"chat"|"responses"|"gemini": {"calls": [...], "final": ...}}}
     "answers": [{"match": "text in the request", "text": "the answer"}, ...],
`answers` come first: a request whose raw body holds an entry's `match` (tried in order; not
a "who speaks next" check) gets its `text`, tools offered or not: what a CLI run as a plain
model (tools off) is answered by purpose.
`per_protocol` entries replace the top-level keys they name for that protocol. `${NAME}` in any
string of the script is replaced by the value given with `--var NAME=VALUE` (unknown names are
left as they are).

Every request is appended to --log as one JSON line: time, method, path, headers (names
lowercased), body (parsed JSON, or text), and what was answered.
"""

import argparse
import gzip
import json
import re
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOLS = ("anthropic", "chat", "responses", "gemini")
MODELS = ("scripted", "claude-sonnet-4-5", "gpt-5-codex", "gpt-4.1", "gemini-2.5-flash", "qwen3-coder-plus")


class State:
    script = {"calls": [], "final": "Done."}
    log_path = None
    lock = threading.Lock()
    counter = 0


def next_id(prefix):
    with State.lock:
        State.counter += 1
        return f"{prefix}_{State.counter:05d}"


def write_log(entry):
    if not State.log_path:
        return
    line = json.dumps(entry, ensure_ascii=False) + "\n"
    with State.lock:
        with open(State.log_path, "a", encoding="utf-8") as f:
            f.write(line)


def substitute(value, variables):
    if isinstance(value, str):
        return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}",
                      lambda m: variables.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    return value


def plan(protocol):
    """The script as one protocol sees it."""
    script = dict(State.script)
    script.update((script.get("per_protocol") or {}).get(protocol) or {})
    return script


def decide(protocol, done, offered, body_text=""):
    """What to answer: ("call", {"name", "args"}) or ("text", str)."""
    script = plan(protocol)
    calls = script.get("calls") or []
    if not offered:
        # Side requests. Gemini CLI and Qwen Code ask who speaks next, in JSON.
        if "next_speaker" in body_text:
            return "text", json.dumps({"reasoning": "The task is done.", "next_speaker": "user"})
        return "text", script.get("side", "Scripted session")
    if done < len(calls):
        call = calls[done]
        if call["name"] not in offered:
            # Still a call: the CLI reports an unknown tool, which the log and the hooks show.
            sys.stderr.write(f"model.py: scripted tool {call['name']!r} not among {sorted(offered)}\n")
        return "call", {"name": call["name"], "args": call.get("args") or {}}
    return "text", script.get("final", "Done.")


def scripted_answer(raw_text):
    """The `answers` entry whose `match` occurs in the request's raw body (JSON text, so the
    match must need no escaping), tried in order; never for "who speaks next" checks."""
    if "next_speaker" in raw_text:
        return None
    for answer in State.script.get("answers") or []:
        if answer.get("match") and answer["match"] in raw_text:
            return answer.get("text", "")
    return None


# ------------------------------------------------------------------ reading requests

def anthropic_done(body):
    return sum(1 for m in body.get("messages") or [] if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")


def anthropic_tools(body):
    return {t.get("name") for t in body.get("tools") or [] if t.get("name")}


def chat_done(body):
    return sum(1 for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "tool")


def chat_tools(body):
    return {(t.get("function") or {}).get("name") or t.get("name") for t in body.get("tools") or []} - {None}


def responses_done(body):
    items = body.get("input")
    if not isinstance(items, list):
        return 0
    return sum(1 for i in items if isinstance(i, dict) and str(i.get("type", "")).endswith("_call_output"))


def responses_tools(body):
    return {t.get("name") or t.get("type") for t in body.get("tools") or []} - {None}


def gemini_done(body):
    return sum(1 for c in body.get("contents") or [] for p in c.get("parts") or []
               if isinstance(p, dict) and "functionResponse" in p)


def gemini_tools(body):
    return {d.get("name") for t in body.get("tools") or []
            for d in (t.get("functionDeclarations") or []) if d.get("name")}


# ------------------------------------------------------------------ the server

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "scripted-model/1"

    def log_message(self, fmt, *args):  # the JSON log is enough
        pass

    # ---------------------------------------------------------- plumbing
    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            raw = b"".join(chunks)
        else:
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        try:
            if encoding == "gzip":
                raw = gzip.decompress(raw)
            elif encoding == "deflate":
                raw = zlib.decompress(raw)
        except Exception as e:  # noqa: BLE001
            sys.stderr.write(f"model.py: cannot decode {encoding} body: {e}\n")
        return raw

    def entry(self, body):
        return {"t": round(time.time(), 3), "method": self.command, "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}

    def send_json(self, code, obj, entry):
        entry["status"] = code
        write_log(entry)
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", next_id("req"))
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self, entry):
        entry["status"] = 200
        entry["stream"] = True
        write_log(entry)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.send_header("request-id", next_id("req"))
        self.end_headers()
        self.close_connection = True

    def event(self, name, data):
        text = f"event: {name}\n" if name else ""
        text += "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n"
        self.wfile.write(text.encode())
        self.wfile.flush()

    # ---------------------------------------------------------- routing
    def do_GET(self):
        entry = self.entry(None)
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/models"):
            models = [{"id": m, "object": "model", "type": "model", "display_name": m, "created": 0,
                       "owned_by": "scripted", "name": f"models/{m}",
                       "supportedGenerationMethods": ["generateContent", "countTokens"]} for m in MODELS]
            return self.send_json(200, {"object": "list", "data": models, "models": models,
                                        "has_more": False, "first_id": MODELS[0], "last_id": MODELS[-1]},
                                  entry)
        m = re.search(r"/models/([^/:]+)$", path)
        if m:
            name = m.group(1)
            return self.send_json(200, {"id": name, "object": "model", "type": "model", "display_name": name,
                                        "created": 0, "owned_by": "scripted", "name": f"models/{name}"}, entry)
        self.not_found(entry)

    def do_HEAD(self):
        # Claude Code probes its base URL with HEAD / at start: any answer will do.
        entry = self.entry(None)
        entry["status"] = 200
        write_log(entry)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self):
        self.not_found(self.entry(None))

    def decide(self, *args):
        """A scripted answer whose `match` is in the request, else the script's plan."""
        found = scripted_answer(getattr(self, "raw_text", ""))
        return ("text", found) if found is not None else decide(*args)

    def do_POST(self):
        raw = self.read_body()
        # A slow model, when the script asks for one (what a hook must never wait for).
        delay = (State.script or {}).get("delay_ms") or 0
        if delay:
            time.sleep(delay / 1000)
        self.raw_text = raw.decode("utf-8", "replace")
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = raw[:100000].decode("utf-8", "replace")
        entry = self.entry(body)
        if not isinstance(body, dict):
            return self.send_json(400, {"error": {"type": "invalid_request_error",
                                                  "message": "scripted model: the body is not a JSON object"}},
                                  entry)
        path = self.path.split("?")[0]
        try:
            if path.endswith("/messages/count_tokens"):
                return self.send_json(200, {"input_tokens": 100}, entry)
            if path.endswith("/messages"):
                return self.anthropic(body, entry)
            if path.endswith("/chat/completions"):
                return self.chat(body, entry)
            if path.endswith("/responses"):
                return self.responses_api(body, entry)
            m = re.search(r"/models/([^/:]+):(\w+)$", path)
            if m:
                return self.gemini(m.group(1), m.group(2), body, entry)
            self.not_found(entry)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def not_found(self, entry):
        self.send_json(404, {"error": {"type": "not_found_error", "code": 404, "status": "NOT_FOUND",
                                       "message": f"scripted model: no {self.command} {self.path}"}}, entry)

    # ---------------------------------------------------------- Anthropic
    def anthropic(self, body, entry):
        kind, value = self.decide("anthropic", anthropic_done(body), anthropic_tools(body))
        entry["answer"] = {kind: value}
        model = body.get("model") or "scripted"
        if kind == "call":
            block = {"type": "tool_use", "id": next_id("toolu"), "name": value["name"], "input": value["args"]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": value}
            stop = "end_turn"
        usage = {"input_tokens": 100, "output_tokens": 20,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        message = {"id": next_id("msg"), "type": "message", "role": "assistant", "model": model,
                   "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            return self.send_json(200, message, entry)
        self.start_sse(entry)
        self.event("message_start", {"type": "message_start", "message": {
            **message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}})
        if kind == "call":
            self.event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}})
            self.event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
        else:
            self.event("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "text", "text": ""}})
            self.event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "text_delta", "text": value}})
        self.event("content_block_stop", {"type": "content_block_stop", "index": 0})
        self.event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 20}})
        self.event("message_stop", {"type": "message_stop"})

    # ---------------------------------------------------------- OpenAI chat completions
    def chat(self, body, entry):
        text = json.dumps(body.get("messages") or [])[-4000:] if not body.get("tools") else ""
        kind, value = self.decide("chat", chat_done(body), chat_tools(body), text)
        entry["answer"] = {kind: value}
        model = body.get("model") or "scripted"
        base = {"id": next_id("chatcmpl"), "created": int(time.time()), "model": model,
                "system_fingerprint": "scripted"}
        usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        if kind == "call":
            # Arguments are a JSON string by the protocol.
            call = {"id": next_id("call"), "type": "function",
                    "function": {"name": value["name"], "arguments": json.dumps(value["args"])}}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": value}
            finish = "stop"
        if not body.get("stream"):
            return self.send_json(200, {**base, "object": "chat.completion", "usage": usage, "choices": [
                {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}]}, entry)
        self.start_sse(entry)
        chunk = {**base, "object": "chat.completion.chunk"}
        if kind == "call":
            delta = {"role": "assistant", "content": None, "tool_calls": [{"index": 0, **message["tool_calls"][0]}]}
        else:
            delta = {"role": "assistant", "content": value}
        self.event(None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        self.event(None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            self.event(None, {**chunk, "choices": [], "usage": usage})
        self.event(None, "[DONE]")

    # ---------------------------------------------------------- OpenAI Responses
    def responses_api(self, body, entry):
        kind, value = self.decide("responses", responses_done(body), responses_tools(body))
        entry["answer"] = {kind: value}
        model = body.get("model") or "scripted"
        if kind == "call":
            item = {"type": "function_call", "id": next_id("fc"), "call_id": next_id("call"),
                    "name": value["name"], "arguments": json.dumps(value["args"]), "status": "completed"}
        else:
            item = {"type": "message", "id": next_id("msg"), "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": value, "annotations": []}]}
        usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120}
        response = {"id": next_id("resp"), "object": "response", "created_at": int(time.time()),
                    "status": "completed", "model": model, "output": [item], "usage": usage}
        if not body.get("stream"):
            return self.send_json(200, response, entry)
        self.start_sse(entry)
        seq = iter(range(100))
        self.event("response.created", {"type": "response.created", "sequence_number": next(seq),
                                        "response": {**response, "status": "in_progress", "output": [],
                                                     "usage": None}})
        self.event("response.output_item.added", {"type": "response.output_item.added",
                                                  "sequence_number": next(seq), "output_index": 0,
                                                  "item": {**item, "status": "in_progress"}})
        if kind == "text":
            self.event("response.output_text.delta", {"type": "response.output_text.delta",
                                                      "sequence_number": next(seq), "item_id": item["id"],
                                                      "output_index": 0, "content_index": 0, "delta": value})
        self.event("response.output_item.done", {"type": "response.output_item.done",
                                                 "sequence_number": next(seq), "output_index": 0, "item": item})
        self.event("response.completed", {"type": "response.completed", "sequence_number": next(seq),
                                          "response": response})

    # ---------------------------------------------------------- Gemini
    def gemini(self, model, method, body, entry):
        if method == "countTokens":
            return self.send_json(200, {"totalTokens": 100}, entry)
        if method not in ("generateContent", "streamGenerateContent"):
            return self.not_found(entry)
        offered = gemini_tools(body)
        text = json.dumps(body.get("contents") or [])[-4000:] if not offered else ""
        kind, value = self.decide("gemini", gemini_done(body), offered, text)
        entry["answer"] = {kind: value}
        part = {"functionCall": {"name": value["name"], "args": value["args"]}} if kind == "call" else {"text": value}
        response = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                                    "index": 0}],
                    "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
                    "modelVersion": model, "responseId": next_id("gem")}
        if method == "generateContent":
            return self.send_json(200, response, entry)
        self.start_sse(entry)
        self.event(None, response)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("port", nargs="?", type=int, default=0)
    ap.add_argument("--script", required=True, help="the JSON script")
    ap.add_argument("--log", help="append every request here as a JSON line")
    ap.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                    help="replace ${NAME} in the script's strings")
    args = ap.parse_args()
    variables = dict(v.split("=", 1) for v in args.var if "=" in v)
    with open(args.script, encoding="utf-8") as f:
        script = json.load(f)
    for p in (script.get("per_protocol") or {}):
        if p not in PROTOCOLS:
            sys.exit(f"model.py: unknown protocol {p!r} in per_protocol (one of {', '.join(PROTOCOLS)})")
    State.script = substitute(script, variables)
    State.log_path = args.log
    server = Server(("127.0.0.1", args.port), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
