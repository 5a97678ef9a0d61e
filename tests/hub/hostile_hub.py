#!/usr/bin/python3
"""hostile_hub: --fetch under hostile conditions (shared/hostile/turn3: fetch-tmp-symlink-clobber,
token-fifo-hang, fetch-unbounded-requests) against the fake Hub of fake_hub.py (TAP).

usage: hostile_hub.py SWEEPLINT

- The cache is shared with someone hostile: links planted at the old predictable temporary names
  (PATH.sweeplint-<PID>.tmp, staged by `sh -c 'ln -s ... $$; exec sweeplint'`, which keeps the pid), a
  models--ORG--NAME, snapshots or refs folder that is a link out of the cache, refs/main as a link or a
  FIFO: nothing outside the cache is written, every refusal says why, nothing blocks.
- The token: a FIFO as HF_TOKEN_PATH is never opened (a writer on it stays blocked), with or without
  --fetch; a token file past 4 KiB is not used; the request goes without a token and says why.
- The budget: n ids against a stalling endpoint take one timeout whatever n (one request); a slow
  endpoint that answers is cut at the run's HF_HUB_DOWNLOAD_TIMEOUT; at most 32 requests per run.
- The language server asks for a failed id once, not on every change.
"""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lsp"))
import fake_hub  # noqa: E402
import lspclient  # noqa: E402

SHA = fake_hub.SHA
SWEEP = ("method: grid\nparameters:\n  model_name_or_path:\n    values: [%s]\n"
         "  per_device_train_batch_size:\n    values: [8, 16]\n")


class Hub(fake_hub.Hub):
    def do_GET(self):
        parts = self.path.split("/")
        if parts[2:3] == ["stall"]:  # accepts, never answers in time
            fake_hub.Hub.seen.append(self.path)
            time.sleep(30)
            return self.send(200, fake_hub.QWEN3, [("X-Repo-Commit", SHA)])
        if parts[2:3] == ["slow"]:  # answers, each after 0.7 s
            fake_hub.Hub.seen.append(self.path)
            time.sleep(0.7)
            return self.send(200, fake_hub.QWEN3, [("X-Repo-Commit", SHA)])
        if parts[1:2] == ["many"]:  # a quick 404 for each
            fake_hub.Hub.seen.append(self.path)
            return self.send(404, b"", [("X-Error-Code", "RepoNotFound")])
        return super().do_GET()


class FifoWriter:
    """A writer blocked on a FIFO until a reader opens it: opened() says whether sweeplint opened it."""

    def __init__(self, path):
        self.path = path
        self.done = threading.Event()
        os.mkfifo(path)
        threading.Thread(target=self._write, daemon=True).start()

    def _write(self):
        try:
            fd = os.open(self.path, os.O_WRONLY)  # blocks until a reader opens
            self.done.set()
            try:
                os.write(fd, b"hf_one_shot_secret\n")
            except OSError:
                pass
            os.close(fd)
        except OSError:
            self.done.set()

    def opened(self):
        return self.done.wait(0.2)

    def release(self):
        if not self.done.is_set():  # open the read end ourselves so the thread ends
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            self.done.wait(2)
            os.close(fd)


def main():
    exe = os.path.abspath(sys.argv[1])
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    endpoint = "http://127.0.0.1:%d" % srv.server_address[1]
    t = fake_hub.Tap()

    def run(args, cache, extra_env=None, limit=20, cwd=None, argv=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("HF_") and k != "HUGGING_FACE_HUB_TOKEN"}
        env.update({"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": cache, "HOME": cache, "NO_COLOR": "1"})
        env.update(extra_env or {})
        before = len(fake_hub.Hub.seen)
        start = time.monotonic()
        try:
            p = subprocess.run(argv or [exe] + args, env=env, capture_output=True, text=True, timeout=limit, cwd=cwd)
        except subprocess.TimeoutExpired:
            return None, "", "TIMEOUT after %d s" % limit, time.monotonic() - start, fake_hub.Hub.seen[before:]
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start, fake_hub.Hub.seen[before:]

    def hints(out):
        try:
            doc = json.loads(out)
        except ValueError:
            return {}
        return {d["message"].split('"')[1]: d.get("hint") or "" for d in doc["files"][0]["diagnostics"]
                if d.get("rule") == "unknown-model"}

    with tempfile.TemporaryDirectory() as tmp:
        def fresh(name):
            d = os.path.join(tmp, name)
            os.makedirs(d)
            return d

        def victim(name):
            v = os.path.join(tmp, name)
            with open(v, "w") as f:
                f.write("IMPORTANT VICTIM DATA\n")
            return v

        def intact(*paths):
            return all(open(p).read() == "IMPORTANT VICTIM DATA\n" for p in paths)

        # 1. links at the old predictable temporary names (pid kept by exec)
        c = fresh("clobber")
        v1, v2 = victim("victim1"), victim("victim2")
        d = os.path.join(c, "models--org--ok")
        snap = os.path.join(d, "snapshots", SHA)
        os.makedirs(snap)
        os.makedirs(os.path.join(d, "refs"))
        script = ('ln -s "$V1" "$SNAP/config.json.sweeplint-$$.tmp" && ln -s "$V2" "$REFS/main.sweeplint-$$.tmp" && '
                  'exec "$EXE" models --fetch org/ok')
        rc, out, err, _, seen = run(None, c, {"V1": v1, "V2": v2, "SNAP": snap, "REFS": os.path.join(d, "refs"),
                                              "EXE": exe}, argv=["sh", "-c", script])
        t.ok(rc == 0 and intact(v1, v2), "links planted at PATH.sweeplint-<PID>.tmp: the victims' files intact",
             "exit %r %s victim1 %r" % (rc, err, open(v1).read()))
        t.ok(fake_hub.Hub.seen and os.path.isfile(os.path.join(snap, "config.json")) and
             not os.path.islink(os.path.join(snap, "config.json")) and
             open(os.path.join(d, "refs", "main")).read() == SHA,
             "links planted: the config and refs/main written as regular files beside them")

        # 2. folders of the cache that are links out of it: refused, nothing written outside
        for sub, make in (("models--org--ok", lambda c, out: os.symlink(out, os.path.join(c, "models--org--ok"))),
                          ("snapshots", lambda c, out: (os.makedirs(os.path.join(c, "models--org--ok")),
                                                        os.symlink(out, os.path.join(c, "models--org--ok", "snapshots")))),
                          ("refs", lambda c, out: (os.makedirs(os.path.join(c, "models--org--ok")),
                                                   os.symlink(out, os.path.join(c, "models--org--ok", "refs"))))):
            c = fresh("linkdir-" + sub)
            outside = fresh("outside-" + sub)
            make(c, outside)
            rc, out, err, _, _ = run(["models", "--fetch", "org/ok"], c)
            t.ok(rc == 2 and "symbolic link" in err and os.listdir(outside) == [],
                 "%s a link out of the cache: refused, nothing written outside" % sub,
                 "exit %r %s %r" % (rc, err, os.listdir(outside)))
        c = fresh("refs-main-link")
        v3 = victim("victim3")
        os.makedirs(os.path.join(c, "models--org--ok", "refs"))
        os.symlink(v3, os.path.join(c, "models--org--ok", "refs", "main"))
        rc, out, err, _, _ = run(["models", "--fetch", "org/ok"], c)
        t.ok(rc == 2 and "symbolic link" in err and intact(v3) and
             os.path.islink(os.path.join(c, "models--org--ok", "refs", "main")),
             "refs/main a link to a victim: not written through", "exit %r %s" % (rc, err))
        c = fresh("config-link")
        v4 = victim("victim4")
        os.makedirs(os.path.join(c, "models--org--ok", "snapshots", SHA))
        os.symlink(v4, os.path.join(c, "models--org--ok", "snapshots", SHA, "config.json"))
        rc, out, err, _, _ = run(["models", "--fetch", "org/ok"], c)
        t.ok(intact(v4), "snapshots/<sha>/config.json a link to a victim: the victim never written", err)

        # 3. refs/main a FIFO: neither reading the cache nor fetching blocks
        c = fresh("refs-fifo")
        os.makedirs(os.path.join(c, "models--org--ok", "refs"))
        os.mkfifo(os.path.join(c, "models--org--ok", "refs", "main"))
        rc, out, err, el, _ = run(["models", "org/ok"], c, limit=10)
        t.ok(rc == 2 and el < 5, "refs/main a FIFO, no --fetch: the cache is read without blocking (%.1f s)" % el, err)
        rc, out, err, el, _ = run(["models", "--fetch", "org/ok"], c, limit=10)
        t.ok(rc == 2 and "not a regular file" in err and el < 5,
             "refs/main a FIFO, --fetch: refused as not a regular file (%.1f s)" % el, err)

        # 4. the token file: never opened without a request; a FIFO never opened at all
        c = fresh("token")
        sweep = os.path.join(c, "s.yaml")
        with open(sweep, "w") as f:
            f.write(SWEEP % "org/ok")
        for args in (["rules"], ["gpus"], ["check", sweep], ["models", "org/ok"], ["lsp"]):
            fifo = FifoWriter(os.path.join(c, "fifo-token"))
            rc, out, err, el, seen = run(args, fresh("token-" + args[0]), {"HF_TOKEN_PATH": fifo.path}, limit=10)
            opened = fifo.opened()
            fifo.release()
            os.unlink(fifo.path)
            t.ok(rc in (0, 1, 2) and not opened and seen == [],
                 "%s without --fetch: the token file (a FIFO) is never opened (%.1f s)" % (args[0], el),
                 "exit %r opened %r %s" % (rc, opened, err))
        fifo = FifoWriter(os.path.join(c, "fifo-token"))
        before = len(fake_hub.Hub.seen)
        rc, out, err, el, seen = run(["models", "--fetch", "org/ok"], fresh("token-fetch"),
                                     {"HF_TOKEN_PATH": fifo.path}, limit=10)
        opened = fifo.opened()
        fifo.release()
        t.ok(rc == 0 and not opened and len(seen) == 1,
             "--fetch with the token file a FIFO: fetched without a token, the FIFO never opened", err)
        rc, out, err, el, seen = run(["models", "--fetch", "org/gated"], fresh("token-gated"),
                                     {"HF_TOKEN_PATH": fifo.path}, limit=10)
        t.ok(rc == 2 and "token file" in err and "not a regular file" in err,
             "gated with the token file a FIFO: says the token file was not read", err)
        big = os.path.join(c, "big-token")
        with open(big, "w") as f:
            f.write(fake_hub.TOKEN + "\n" + "x" * 5000 + "\n")
        rc, out, err, el, seen = run(["models", "--fetch", "org/gated"], fresh("token-big"), {"HF_TOKEN_PATH": big})
        t.ok(rc == 2 and "larger than a token file is" in err, "a token file past 4 KiB: not used, says so", err)

        # 5. the budget
        for n in (5, 10):
            ids = ", ".join("o%d/stall" % i for i in range(n))
            proj = fresh("stall%d" % n)
            with open(os.path.join(proj, "sweep.yaml"), "w") as f:
                f.write(SWEEP % ids)
            rc, out, err, el, seen = run(["check", "--fetch", "-f", "json", "sweep.yaml"], fresh("stall-cache%d" % n),
                                         {"HF_HUB_DOWNLOAD_TIMEOUT": "1"}, cwd=proj)
            h = hints(out)
            t.ok(rc in (0, 1) and el < 2.5 and len(seen) == 1 and len(h) == n and
                 all("failed first" in v for k, v in h.items() if k != "o0/stall"),
                 "%d ids against a stalling endpoint: one request, one timeout (%.1f s)" % (n, el),
                 "exit %r seen %r %r" % (rc, seen, h))
        proj = fresh("slow")
        with open(os.path.join(proj, "sweep.yaml"), "w") as f:
            f.write(SWEEP % ", ".join("s%d/slow" % i for i in range(6)))
        rc, out, err, el, seen = run(["check", "--fetch", "-f", "json", "sweep.yaml"], fresh("slow-cache"),
                                     {"HF_HUB_DOWNLOAD_TIMEOUT": "2"}, cwd=proj)
        h = hints(out)
        # 0.7 s each: two answers, the third cut at the 0.6 s left, the other three not asked
        spent = [k for k, v in h.items() if "spent its 2 s of fetching" in v]
        cut = [k for k, v in h.items() if "left of this run's 2 s" in v]
        t.ok(el < 3 and len(seen) == 3 and len(h) == 4 and len(cut) == 1 and len(spent) == 3,
             "6 ids against an endpoint answering in 0.7 s: two fetched, the rest cut at the run's 2 s (%.1f s)" % el,
             "seen %r hints %r" % (seen, h))
        proj = fresh("many")
        with open(os.path.join(proj, "sweep.yaml"), "w") as f:
            f.write(SWEEP % ", ".join("many/m%d" % i for i in range(40)))
        rc, out, err, el, seen = run(["check", "--fetch", "-f", "json", "sweep.yaml"], fresh("many-cache"), cwd=proj)
        h = hints(out)
        capped = [k for k, v in h.items() if "made 32 requests already" in v]
        t.ok(len(seen) == 32 and len(capped) == 8, "40 ids: 32 requests, the 8 others say why",
             "seen %d capped %d" % (len(seen), len(capped)))

        # 6. the language server: a failed id is asked for once, not on every change
        proj = fresh("lsp")
        with open(os.path.join(proj, ".sweeplint.yaml"), "w") as f:
            f.write("fetch: true\n")
        path = os.path.join(proj, "sweep.yaml")
        with open(path, "w") as f:
            f.write(SWEEP % "org/missing")
        env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
        env.update({"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": fresh("lsp-cache"), "HOME": proj})
        before = len(fake_hub.Hub.seen)
        cl = lspclient.Client(exe, cwd=proj, env=env)
        cl.initialize()
        uri = lspclient.file_uri(path)
        text = SWEEP % "org/missing"
        cl.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                            "text": text}})
        cl.diagnostics(uri, 1)
        for v in range(2, 6):
            text += "# edit %d\n" % v
            cl.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                                 "contentChanges": [{"text": text}]})
            d = cl.diagnostics(uri, v)
        asked = [s for s in fake_hub.Hub.seen[before:] if "missing" in s]
        msgs = [x["message"] for x in d]
        t.ok(len(asked) == 1 and any("no model 'org/missing'" in m for m in msgs),
             "lsp: a failed download is asked for once over 5 lints (asked %d times)" % len(asked), repr(msgs))
        cl.close()
        # a stalling endpoint: the first lint waits one timeout for all four ids, later lints none
        with open(path, "w") as f:
            f.write(SWEEP % "l0/stall, l1/stall, l2/stall, l3/stall")
        env["HF_HUB_DOWNLOAD_TIMEOUT"] = "1"
        before = len(fake_hub.Hub.seen)
        cl = lspclient.Client(exe, cwd=proj, env=env)
        cl.initialize()
        text = SWEEP % "l0/stall, l1/stall, l2/stall, l3/stall"
        start = time.monotonic()
        cl.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                            "text": text}})
        cl.diagnostics(uri, 1)
        first = time.monotonic() - start
        start = time.monotonic()
        for v in range(2, 5):
            text += "# edit %d\n" % v
            cl.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                                 "contentChanges": [{"text": text}]})
            cl.diagnostics(uri, v)
        later = time.monotonic() - start
        asked = fake_hub.Hub.seen[before:]
        t.ok(first < 2.5 and later < 1.5 and len(asked) == 1,
             "lsp: 4 ids against a stalling endpoint: the first lint waits one timeout (%.1f s), 3 more lints none "
             "(%.1f s)" % (first, later), repr(asked))
        cl.close()

    srv.shutdown()
    print("1..%d" % t.n)
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
