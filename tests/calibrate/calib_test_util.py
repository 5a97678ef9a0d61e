"""Shared paths and helpers for the calibration harness tests (standard library only)."""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(REPO, "tools", "calibrate")
FIXTURES = os.path.join(HERE, "fixtures")
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared"))
FAKE_SWEEPLINT = os.path.join(FIXTURES, "fake_sweeplint.py")
FAKE_PYTHON = os.path.join(FIXTURES, "fake_python.py")
CALIBRATE = os.path.join(TOOLS, "calibrate.py")
COMPARE = os.path.join(TOOLS, "compare.py")
PYTHON = sys.executable

if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

MIB = 1 << 20


def write_spec(directory, spec):
    """Write a fake-sweeplint spec; returns the environment that points the fake at it."""
    path = os.path.join(directory, "spec.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    env = dict(os.environ)
    env["FAKE_SWEEPLINT_SPEC"] = path
    env["FAKE_SWEEPLINT_LOG"] = os.path.join(directory, "sweeplint.log")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def read_log(directory):
    path = os.path.join(directory, "sweeplint.log")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class TempDir:
    def __enter__(self):
        self.t = tempfile.TemporaryDirectory(prefix="calib-test-")
        return self.t.name

    def __exit__(self, *exc):
        self.t.cleanup()
