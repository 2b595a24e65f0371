"""What the eval test modules share: small task files, right and wrong bodies, and a scripted
OpenAI-compatible endpoint on loopback."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RIGHT = {
    "mini/double": "    return 2 * x\n",
    "mini/negate": "    return -x\n",
    "mini/square": "    return x * x\n",
}
WRONG = "    return 0\n"


def task_files(name: str, body: str, checks: list[tuple[str, str]]) -> dict[str, str]:
    hidden = f"from solution import {name}\n\n" + "".join(
        f"def test_{i}():\n    assert {name}({arg}) == {want}\n\n" for i, (arg, want) in enumerate(checks)
    )
    return {
        "task.yaml": f"entry_point: {name}\n",
        "prompt.md": f"Write {name}(x).",
        "starter.py": f"def {name}(x):\n",
        "reference.py": f"def {name}(x):\n{body}",
        "test_hidden.py": hidden,
        "test_visible.py": f"from solution import {name}\n\ndef test_v():\n    assert {name}({checks[0][0]}) == {checks[0][1]}\n",
    }


class ScriptedAPI:
    """An OpenAI-compatible endpoint whose behaviour depends on a keyword in the prompt:
    `flaky429` fails twice with 429 (Retry-After: 0), `flaky503` once with 503, `slow` hangs past the
    client's timeout once, `dead` always answers 500, `bad400` answers 400, `auth` answers 401."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.attempts: Counter[str] = Counter()
        self.bodies: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.delay_s = 0.0

    def respond(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any], float]:
        key = body.get("prompt") or body["messages"][-1]["content"]
        with self.lock:
            attempt = self.attempts[key]
            self.attempts[key] += 1
        if "auth" in key:
            return 401, {}, {"error": {"message": "invalid api key"}}, 0
        if "dead" in key:
            return 500, {}, {"error": {"message": "internal error"}}, 0
        if "bad400" in key:
            return 400, {}, {"error": {"message": "prompt is too long"}}, 0
        if "flaky429" in key and attempt < 2:
            return 429, {"Retry-After": "0"}, {"error": {"message": "rate limited"}}, 0
        if "flaky503" in key and attempt < 1:
            return 503, {}, {"error": {"message": "overloaded"}}, 0
        if "slow" in key and attempt < 1:
            return 200, {}, {"choices": [{"text": "late", "finish_reason": "stop"}]}, 1.5
        text = f"answer to {key} (seed {body.get('seed')})\nif __name__ == '__main__':\n    main()"
        choice: dict[str, Any] = {"finish_reason": "stop", "index": 0}
        if path.endswith("/chat/completions"):
            choice["message"] = {"role": "assistant", "content": text}
        else:
            choice["text"] = text
        return 200, {}, {"id": "x", "object": "text_completion", "choices": [choice]}, self.delay_s


@contextlib.contextmanager
def serve_api(script: ScriptedAPI) -> Iterator[str]:
    """Serve `script` on a loopback port; yields the base URL (…/v1)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length))
            with script.lock:
                script.bodies.append((self.path, body, dict(self.headers)))
                script.in_flight += 1
                script.max_in_flight = max(script.max_in_flight, script.in_flight)
            finished = False
            try:
                status, headers, payload, delay = script.respond(self.path, body)
                time.sleep(delay)
                data = json.dumps(payload).encode()
                # done before the answer goes out: once the client has it, it may send its next
                # request, which this thread's `finally` could otherwise count as a fourth in flight
                with script.lock:
                    script.in_flight -= 1
                finished = True
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)
            finally:
                if not finished:
                    with script.lock:
                        script.in_flight -= 1

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
