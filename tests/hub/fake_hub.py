#!/usr/bin/python3
"""fake_hub: --fetch against a local HTTP server that plays the Hugging Face Hub (TAP).

usage: fake_hub.py SWEEPLINT

The server listens on 127.0.0.1 (an ephemeral port) and answers GET /ORG/NAME/resolve/main/config.json
as the Hub does: X-Repo-Commit on success, X-Error-Code (GatedRepo, RepoNotFound) on failure. Each case
runs sweeplint with HF_ENDPOINT pointing at it and a fresh HF_HUB_CACHE, and checks the exit status, the
message, the cache layout (models--ORG--NAME/refs/main + snapshots/<sha>/config.json) and which requests
the server saw. Every run has a wall-clock limit: a hang is a failure, never a stuck test. Cases:
success, a redirect (relative, the commit on the redirect), a redirect loop, 401 gated (no token, and a
token without access), a token that works, 404, a slow server against HF_HUB_DOWNLOAD_TIMEOUT, 10 MB
bodies with and without Content-Length, bad JSON, a missing commit header, an unsupported model_type,
HF_HUB_OFFLINE, no --fetch (no request at all), the cache serving a second run without a request, and
`fetch: true` in .sweeplint.yaml for `check` (a resolved model; an unknown-model finding that says why).
"""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.getcwd()
QWEN3 = open(os.path.join(ROOT, "fixtures/configs/qwen3/config.json"), "rb").read()
XLSTM = json.dumps({"model_type": "xlstm", "hidden_size": 768, "vocab_size": 50280}).encode()
SHA = "0123456789abcdef0123456789abcdef01234567"
SHA2 = "fedcba9876543210fedcba9876543210fedcba98"
TOKEN = "hf_fake_token_for_tests"


class Hub(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen = []  # request paths, in order (one server per test run)

    def log_message(self, *args):
        pass

    def send(self, code, body=b"", headers=()):
        try:
            self.send_response(code)
            for k, v in headers:
                self.send_header(k, v)
            if not any(k == "Content-Length" for k, _ in headers):
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        Hub.seen.append(self.path)
        parts = self.path.split("/")
        repo = "/".join(parts[1:3]) if len(parts) > 3 else ""
        auth = self.headers.get("Authorization", "")
        if self.path.startswith("/api/resolve-cache/"):
            return self.send(200, QWEN3)  # the redirect target: no commit header here
        if repo == "org/ok" or repo == "org/ok2":
            return self.send(200, QWEN3, [("X-Repo-Commit", SHA), ("Content-Type", "application/json")])
        if repo == "org/redir":
            return self.send(307, b"", [("Location", "/api/resolve-cache/models/org/redir/" + SHA2 + "/config.json"),
                                        ("X-Repo-Commit", SHA2)])
        if repo == "org/loop":
            return self.send(302, b"", [("Location", self.path)])
        if repo == "org/gated":
            if auth == "Bearer " + TOKEN:
                return self.send(200, QWEN3, [("X-Repo-Commit", SHA)])
            code = 403 if auth else 401
            return self.send(code, b'{"error":"Access to model org/gated is restricted."}',
                             [("X-Error-Code", "GatedRepo")])
        if repo == "org/missing":
            return self.send(404, b'{"error":"Repository Not Found"}', [("X-Error-Code", "RepoNotFound")])
        if repo == "org/slow":
            time.sleep(5)
            return self.send(200, QWEN3, [("X-Repo-Commit", SHA)])
        if repo == "org/big":
            return self.send(200, b"{" + b" " * (10 << 20) + b"}", [("X-Repo-Commit", SHA)])
        if repo == "org/bigstream":  # no Content-Length: the body ends when the connection closes
            try:
                self.send_response(200)
                self.send_header("X-Repo-Commit", SHA)
                self.send_header("Connection", "close")
                self.end_headers()
                chunk = b" " * (1 << 16)
                for _ in range(160):  # 10 MiB
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        if repo == "org/badjson":
            return self.send(200, b'{"model_type": "llama", "hidden_size": ', [("X-Repo-Commit", SHA)])
        if repo == "org/nocommit":
            return self.send(200, QWEN3)
        if repo == "org/xlstm":
            return self.send(200, XLSTM, [("X-Repo-Commit", SHA)])
        return self.send(404, b"", [("X-Error-Code", "RepoNotFound")])


def serve():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, detail=""):
        self.n += 1
        if not cond:
            self.failed += 1
        print(("ok" if cond else "not ok") + " %d - %s" % (self.n, name))
        if not cond and detail:
            for line in detail.splitlines()[-15:]:
                print("#   " + line)


def main():
    exe = os.path.abspath(sys.argv[1])
    srv = serve()
    endpoint = "http://127.0.0.1:%d" % srv.server_address[1]
    t = Tap()

    def run(args, cache, extra_env=None, limit=20, cwd=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("HF_") and k != "HUGGING_FACE_HUB_TOKEN"}
        env.update({"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": cache, "HOME": cache, "NO_COLOR": "1"})
        env.update(extra_env or {})
        before = len(Hub.seen)
        start = time.monotonic()
        try:
            p = subprocess.run([exe] + args, env=env, capture_output=True, text=True, timeout=limit, cwd=cwd)
        except subprocess.TimeoutExpired:
            return None, "", "TIMEOUT after %d s" % limit, time.monotonic() - start, Hub.seen[before:]
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start, Hub.seen[before:]

    def cache_has(cache, repo, sha):
        d = os.path.join(cache, "models--" + repo.replace("/", "--"))
        try:
            ref = open(os.path.join(d, "refs", "main")).read()
            body = open(os.path.join(d, "snapshots", sha, "config.json"), "rb").read()
        except OSError:
            return False
        return ref == sha and json.loads(body)["model_type"] == "qwen3"

    def nothing_cached(cache, repo):
        d = os.path.join(cache, "models--" + repo.replace("/", "--"), "snapshots")
        return not os.path.exists(d) or not any(os.scandir(d))

    with tempfile.TemporaryDirectory() as tmp:
        def fresh(name):
            d = os.path.join(tmp, name)
            os.makedirs(d)
            return d

        # success: the model resolves, the cache has the standard layout
        c = fresh("ok")
        rc, out, err, _, seen = run(["models", "--fetch", "org/ok"], c)
        t.ok(rc == 0 and "qwen3" in out, "fetch: resolves org/ok", out + err)
        t.ok(seen == ["/org/ok/resolve/main/config.json"], "fetch: one request to resolve/main/config.json",
             repr(seen))
        t.ok(cache_has(c, "org/ok", SHA), "fetch: refs/main + snapshots/<sha>/config.json written")
        t.ok(not [f for f in os.listdir(os.path.join(c, "models--org--ok", "snapshots", SHA)) if "tmp" in f],
             "fetch: no temporary file left")
        rc, out, err, _, seen = run(["models", "-f", "json", "org/ok"], c)
        t.ok(rc == 0 and seen == [] and '"hf-cache"' in out, "cache: a second run reads the cache, no request",
             out + err + repr(seen))

        # redirects: a relative 307 whose target has no commit header
        c = fresh("redir")
        rc, out, err, _, seen = run(["models", "--fetch", "org/redir"], c)
        t.ok(rc == 0 and len(seen) == 2, "redirect: followed", out + err + repr(seen))
        d = os.path.join(c, "models--org--redir")
        t.ok(os.path.isfile(os.path.join(d, "snapshots", SHA2, "config.json")),
             "redirect: the commit named on the redirect is the snapshot")
        rc, out, err, el, seen = run(["models", "--fetch", "org/loop"], fresh("loop"))
        t.ok(rc == 2 and "redirected more than" in err and len(seen) <= 6, "redirect loop: bounded, clear message",
             err + repr(seen))

        # gated
        c = fresh("gated")
        rc, out, err, _, _ = run(["models", "--fetch", "org/gated"], c)
        t.ok(rc == 2 and "gated or private" in err and "set HF_TOKEN" in err, "401 gated: asks for HF_TOKEN", err)
        t.ok(nothing_cached(c, "org/gated"), "401 gated: nothing written")
        rc, out, err, _, _ = run(["models", "--fetch", "org/gated"], c, {"HF_TOKEN": "hf_wrong"})
        t.ok(rc == 2 and "has no access" in err, "403 with a token: says the token has no access", err)
        rc, out, err, _, _ = run(["models", "--fetch", "org/gated"], c, {"HF_TOKEN": TOKEN})
        t.ok(rc == 0 and "qwen3" in out and cache_has(c, "org/gated", SHA), "gated with HF_TOKEN: fetched", out + err)
        c = fresh("tokenfile")
        with open(os.path.join(c, "token"), "w") as f:
            f.write(TOKEN + "\n")
        rc, out, err, _, _ = run(["models", "--fetch", "org/gated"], c, {"HF_HOME": c})
        t.ok(rc == 0 and "qwen3" in out, "gated with the token file $HF_HOME/token: fetched", out + err)

        # not found
        rc, out, err, _, _ = run(["models", "--fetch", "org/missing"], fresh("missing"))
        t.ok(rc == 2 and "no model 'org/missing'" in err and "404" in err, "404: no such model", err)

        # slow: HF_HUB_DOWNLOAD_TIMEOUT bounds the request
        rc, out, err, el, _ = run(["models", "--fetch", "org/slow"], fresh("slow"), {"HF_HUB_DOWNLOAD_TIMEOUT": "1"})
        t.ok(rc == 2 and "within 1 s" in err and el < 4.5, "slow: times out after 1 s (%.1f s)" % el, err)

        # 10 MB bodies: refused, nothing written
        for repo in ("org/big", "org/bigstream"):
            c = fresh(repo.split("/")[1])
            rc, out, err, el, _ = run(["models", "--fetch", repo], c)
            t.ok(rc == 2 and "larger than 1048576 bytes" in err and nothing_cached(c, repo),
                 "10 MB body (%s): refused, nothing cached" % repo, err)

        # bad JSON, no commit, an unsupported model_type
        c = fresh("badjson")
        rc, out, err, _, _ = run(["models", "--fetch", "org/badjson"], c)
        t.ok(rc == 2 and "is not JSON" in err and nothing_cached(c, "org/badjson"), "bad JSON: refused", err)
        rc, out, err, _, _ = run(["models", "--fetch", "org/nocommit"], fresh("nocommit"))
        t.ok(rc == 2 and "X-Repo-Commit" in err, "no commit header: refused", err)
        rc, out, err, _, _ = run(["models", "--fetch", "org/xlstm"], fresh("xlstm"))
        t.ok(rc == 2 and "unsupported model_type 'xlstm'" in err, "unsupported model_type: says so", err)

        # offline, and no --fetch: no request at all
        rc, out, err, _, seen = run(["models", "--fetch", "org/ok"], fresh("offline"), {"HF_HUB_OFFLINE": "1"})
        t.ok(rc == 2 and "HF_HUB_OFFLINE" in err and seen == [], "HF_HUB_OFFLINE: no request", err + repr(seen))
        rc, out, err, _, seen = run(["models", "org/ok"], fresh("default"))
        t.ok(rc == 2 and seen == [], "default (no --fetch): no request", err + repr(seen))
        rc, out, err, _, seen = run(["estimate", "model=org/ok", "batch_size=1", "seq_len=128"], fresh("default2"))
        t.ok(rc == 2 and seen == [], "estimate without --fetch: no request", err + repr(seen))
        rc, out, err, _, seen = run(["estimate", "--fetch", "model=org/ok2", "batch_size=1", "seq_len=128"],
                                    fresh("estimate"))
        t.ok(rc == 0 and "params 596049920" in out and len(seen) == 1, "estimate --fetch: fetched and estimated", out + err)

        # fetch: true in .sweeplint.yaml, for check
        proj = fresh("project")
        with open(os.path.join(proj, ".sweeplint.yaml"), "w") as f:
            f.write("fetch: true\n")
        with open(os.path.join(proj, "sweep.yaml"), "w") as f:
            f.write("program: train.py\nmethod: grid\nparameters:\n"
                    "  model_name_or_path:\n    values: [org/ok2, org/missing, org/missing]\n"
                    "  per_device_train_batch_size:\n    values: [1, 2]\n"
                    "  max_seq_length:\n    value: 128\n")
        cache = fresh("project-cache")
        rc, out, err, _, seen = run(["check", "-f", "json", "sweep.yaml"], cache, cwd=proj)
        try:
            doc = json.loads(out)
        except ValueError:
            doc = {}
        text = json.dumps(doc)
        t.ok(sorted(seen) == ["/org/missing/resolve/main/config.json", "/org/ok2/resolve/main/config.json"],
             "fetch: true: one request per id", repr(seen) + err)
        diags = (doc.get("files") or [{}])[0].get("diagnostics", [])
        unknown = {d.get("message", "").split('"')[1]: d.get("hint") or "" for d in diags
                   if d.get("rule") == "unknown-model" and '"' in d.get("message", "")}
        t.ok("org/ok2" not in unknown and '"fetch"' in text, "fetch: true: org/ok2 resolved by fetch", text[-3000:] + err)
        t.ok(unknown.get("org/missing", "").startswith("--fetch: no model 'org/missing'"),
             "fetch: true: the unknown-model finding for org/missing says why", repr(unknown))
        os.remove(os.path.join(proj, ".sweeplint.yaml"))
        rc, out, err, _, seen = run(["check", "-f", "json", "sweep.yaml"], fresh("project-cache2"), cwd=proj)
        t.ok(seen == [], "check without fetch: no request", repr(seen))

    srv.shutdown()
    print("1..%d" % t.n)
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
