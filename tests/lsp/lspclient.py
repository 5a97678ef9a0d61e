"""A small scripted LSP client for the tests: spawns `sweeplint lsp`, frames JSON-RPC
messages with Content-Length, reads the server's messages with a timeout."""
import json
import os
import select
import subprocess
import time


class Client:
    def __init__(self, exe, args=(), cwd=None, env=None):
        self.p = subprocess.Popen([exe, "lsp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.buf = b""
        self.next_id = 1
        self.notes = []          # notifications received, in order
        self.eof = False

    # --- writing ---
    def raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    @staticmethod
    def frame(msg):
        body = json.dumps(msg, ensure_ascii=False).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    def send(self, msg):
        self.raw(self.frame(msg))

    def notify(self, method, params=None, send=True):
        m = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            m["params"] = params
        if send:
            self.send(m)
        return m

    def request(self, method, params=None, timeout=60):
        rid = self.next_id
        self.next_id += 1
        m = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)
        return self.wait_response(rid, timeout)

    # --- reading ---
    def _fill(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no message from the server in time")
        r, _, _ = select.select([self.p.stdout], [], [], left)
        if not r:
            raise TimeoutError("no message from the server in time")
        chunk = os.read(self.p.stdout.fileno(), 1 << 20)
        if not chunk:
            self.eof = True
            raise EOFError("the server closed its output")
        self.buf += chunk

    def read(self, timeout=60):
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.buf:
            self._fill(deadline)
        head, rest = self.buf.split(b"\r\n\r\n", 1)
        length = None
        for line in head.split(b"\r\n"):
            k, v = line.split(b":", 1)
            if k.strip().lower() == b"content-length":
                length = int(v)
        assert length is not None, head
        while len(rest) < length:
            self.buf = head + b"\r\n\r\n" + rest
            self._fill(deadline)
            head, rest = self.buf.split(b"\r\n\r\n", 1)
        self.buf = rest[length:]
        return json.loads(rest[:length])

    def wait_response(self, rid, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            m = self.read(max(0.01, deadline - time.monotonic()))
            if "method" not in m and m.get("id") == rid:
                return m
            if "method" in m:
                self.notes.append(m)
            else:
                raise AssertionError("unexpected response %r while waiting for id %r" % (m, rid))

    def wait_note(self, method, pred=lambda m: True, timeout=60):
        """The first (already received or next) notification `method` satisfying pred; consumed."""
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.notes):
                if m["method"] == method and pred(m):
                    del self.notes[i]
                    return m
            m = self.read(max(0.01, deadline - time.monotonic()))
            self.notes.append(m)

    def diagnostics(self, uri, version=None, timeout=60):
        def ok(m):
            p = m["params"]
            return p["uri"] == uri and (version is None or p.get("version") == version)
        return self.wait_note("textDocument/publishDiagnostics", ok, timeout)["params"]["diagnostics"]

    # --- lifecycle ---
    def initialize(self, encodings=None, root=None):
        caps = {}
        if encodings is not None:
            caps["general"] = {"positionEncodings": encodings}
        r = self.request("initialize", {"processId": os.getpid(), "rootUri": root, "capabilities": caps})
        self.notify("initialized", {})
        return r

    def close(self, timeout=30):
        """shutdown + exit; returns (shutdown response, exit status, stderr)."""
        r = self.request("shutdown")
        self.notify("exit")
        return r, self.finish(timeout)

    def finish(self, timeout=30):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        rc = self.p.wait(timeout)
        self.stderr = self.p.stderr.read().decode(errors="replace")
        return rc


def file_uri(path):
    from urllib.parse import quote
    return "file://" + quote(os.path.abspath(path))


def lsp_position(text, line1, col1, encoding="utf-16"):
    """The LSP position of sweeplint's 1-based line and character column (computed here, independently)."""
    lines = text.splitlines(keepends=False) if text else [""]
    # sweeplint's lines are LF/CRLF; a column past the text is the end of its line
    s = lines[line1 - 1] if line1 - 1 < len(lines) else ""
    prefix = s[:col1 - 1]
    if encoding == "utf-8":
        n = len(prefix.encode())
    elif encoding == "utf-32":
        n = len(prefix)
    else:
        n = len(prefix.encode("utf-16-le")) // 2
    return {"line": line1 - 1, "character": n}
