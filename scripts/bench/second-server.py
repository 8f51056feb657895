"""
A second server of the interface for `npm run bench` (issue 31, point 6): the creates of the `create` job measured on
a server that shares no code with the sandbox and no runtime with n8n.

Python's standard library only: `ThreadingHTTPServer`, one thread per connection (n8n opens a new connection for
every request), the latency slept in that thread, JSON parsed and written by Python, everything under Python's global
lock, on the same cores as n8n. It answers what the create job sends, as the interface specifies it:

  POST /api/v1/Contact        X-Api-Key checked (401), a JSON object (400 otherwise), refused with 409 for an e-mail
                              address it holds unless X-Skip-Duplicate-Check: true; answers the record with its id
  GET  /api/v1/Contact/{id}   the record, or 404

and, for the bench (never with the API key): POST /__bench/reset {"latencyMs": n}, POST /__bench/mark,
GET /__bench/stats, GET /__bench/count. It prints {"port": n} on its first line of output once it listens, and exits
when its standard input closes (the process that started it is gone).

Run: python3 scripts/bench/second-server.py API_KEY
"""

import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API_KEY = sys.argv[1]
lock = threading.Lock()
state = {"latency": 0.0, "records": {}, "emails": set(), "requests": [], "in_flight": 0, "max_in_flight": 0}


def now_ms():
    return time.time() * 1000


class Handler(BaseHTTPRequestHandler):
    # HTTP/1.1: a client that keeps the connection alive may; n8n's "Connection: close" closes it
    protocol_version = "HTTP/1.1"
    # the headers and the body leave in two writes: without TCP_NODELAY, a kept-alive connection waits for the
    # client's delayed ACK (40 ms) between them, which no production server makes it do
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def reply(self, status, body=None, reason=None):
        data = b"" if body is None else json.dumps(body).encode("utf-8")
        self.send_response(status)
        if reason:
            self.send_header("X-Status-Reason", reason)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        return status

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def control(self, method):
        if method == "POST" and self.path == "/__bench/reset":
            options = json.loads(self.read_body() or b"{}")
            with lock:
                state.update(latency=options.get("latencyMs", 0) / 1000, records={}, emails=set(), requests=[], max_in_flight=0)
            return self.reply(200, True)
        if method == "POST" and self.path == "/__bench/mark":
            with lock:
                state.update(requests=[], max_in_flight=0)
            return self.reply(200, True)
        if method == "GET" and self.path == "/__bench/count":
            return self.reply(200, len(state["records"]))
        if method == "GET" and self.path == "/__bench/stats":
            with lock:
                return self.reply(200, {"requests": state["requests"], "maxInFlight": state["max_in_flight"]})
        return self.reply(404)

    def api(self, method):
        # read whole before any answer, so that a kept-alive connection's next request starts where it should
        body = self.read_body()
        if self.headers.get("X-Api-Key") != API_KEY:
            return self.reply(401)
        if state["latency"] > 0:
            time.sleep(state["latency"])
        if method == "POST" and self.path == "/api/v1/Contact":
            try:
                values = json.loads(body)
            except ValueError:
                return self.reply(400, reason="The body is not JSON")
            if not isinstance(values, dict):
                return self.reply(400, reason="The body is not an object")
            email = str(values.get("emailAddress") or "").strip().lower()
            skip = (self.headers.get("X-Skip-Duplicate-Check") or "").lower() == "true"
            at = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
            with lock:
                if email and email in state["emails"] and not skip:
                    return self.reply(409, reason="Duplicate")
                record = {**values, "id": uuid.uuid4().hex[:17], "createdAt": at, "modifiedAt": at}
                state["records"][record["id"]] = record
                if email:
                    state["emails"].add(email)
            return self.reply(200, record)
        if method == "GET" and self.path.startswith("/api/v1/Contact/"):
            record = state["records"].get(self.path[len("/api/v1/Contact/"):])
            return self.reply(200, record) if record else self.reply(404)
        return self.reply(404)

    def handle_method(self, method):
        if self.path.startswith("/__bench/"):
            self.control(method)
            return
        started = now_ms()
        with lock:
            state["in_flight"] += 1
            state["max_in_flight"] = max(state["max_in_flight"], state["in_flight"])
        status = 500
        try:
            status = self.api(method)
        finally:
            with lock:
                state["in_flight"] -= 1
                state["requests"].append(
                    {"status": status, "startedAt": started, "endedAt": now_ms(), "connection": self.headers.get("Connection")}
                )

    def do_GET(self):
        self.handle_method("GET")

    def do_POST(self):
        self.handle_method("POST")


class Server(ThreadingHTTPServer):
    # socketserver listens with a backlog of 5: 1,000 connections opened at once (the HTTP Request node's) would
    # wait for SYN resends, which no production server makes them do
    request_queue_size = 128
    daemon_threads = True


def exit_with_parent():
    # the bench's servers process holds our stdin: when it is gone, however it ended, so is this server
    sys.stdin.read()
    os._exit(0)


threading.Thread(target=exit_with_parent, daemon=True).start()
server = Server(("127.0.0.1", 0), Handler)
print(json.dumps({"port": server.server_address[1]}), flush=True)
server.serve_forever()
