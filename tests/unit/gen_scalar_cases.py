#!/usr/bin/python3
"""Generate tests/unit/scalar_cases.h: what PyYAML's safe_load makes of each literal.

    gen_scalar_cases.py                write tests/unit/scalar_cases.h
    gen_scalar_cases.py --check FILE   regenerate and compare with FILE (exit 1 when stale,
                                       77 when PyYAML is not installed)

The expected type and value of every literal comes from yaml.safe_load (PyYAML,
YAML 1.1, what W&B uses), its text/style/tag from yaml.parse. The "looks
numeric" expectation is a human reading (float() of the text), and the
suggested spelling of such a string is checked here to load, with PyYAML, as
the number the person meant.
"""
import math
import os
import re
import sys

try:
    import yaml
except ImportError:  # the check is skipped, not failed
    if "--check" in sys.argv:
        sys.exit(77)
    raise

# Each entry is a whole YAML document holding one scalar.
LITERALS = [
    # ints
    "0", "00", "010", "007", "0_7", "08", "0o10", "0o17", "0x1F", "0x1f", "0X1F", "0x", "0x_", "+0x_1F",
    "0b101", "-0b101", "0b", "0b_", "0b2", "1_000", "1__0", "1_000_000", "-1_0", "+12", "+0", "-0",
    "100_", "_100", "1 000",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808", "12345678901234567890",
    "0x7FFFFFFFFFFFFFFF", "0xFFFFFFFFFFFFFFFFFFFF", "0b" + "1" * 70, "1" + "0" * 400,
    # sexagesimal
    "1:30", "1:59", "1:60", "-1:30", "12:30:00", "1:2:3", "190:20:30.15", "1:30.5", "1:60.5", "0:30",
    # floats
    "1.0", "0.", "1.", "-0.0", "09.5", ".5", "+.5", "-.5", "1_0.5_5", "0.0001", "6.02e+23",
    "1.0e-5", "1.e5", "1.e+5", "-1.5e+3", "1.5E3", "1.5e3", "1.5e-3.2", "1.5.5",
    "1e-5", "1e5", "3e6", "5E-3", "+1e-3", "-2E+10", "2e-5", "1e", "e5", ".5e3", ".5e-3",
    ".inf", "-.Inf", "+.INF", ".NaN", ".nan", "-.nan", ".Nan", "inf", "nan",
    "1,000", "1,000.5", "8,11,13", "1,0",
    # bools
    "yes", "Yes", "YES", "yEs", "no", "No", "NO", "true", "True", "TRUE", "tRUE", "false", "False",
    "on", "On", "ON", "off", "Off", "OFF", "y", "n", "Y", "N",
    # nulls
    "~", "null", "Null", "NULL", "nULL", "---\n", "''",
    # timestamps
    "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "2002-12-14T21:59:43Z",
    "2024-02-29", "2023-02-29", "2001-13-14", "0000-01-01", "2001-12-14 25:00:00",
    "2001-12-14 21:59:43 +24", "2001-12-14 21:59:43 +23:59",
    # merge, value, strings
    "<<", "=", "abc", "\ud55c\uad6d\uc5b4", "a b", "0.5 # comment",
    # quoted
    "'1e-5'", "\"123\"", "'yes'", "\"1.0\"", "'~'", "\"\"",
    # explicit tags
    "!!float 1e-5", "!!float 1", "!!float inf", "!!float abc", "!!float .INF", "!!float 1:30",
    "!!float ''", "!!float --1", "!!float ' 2.5 '", "!!float 0x10",
    "!!int abc", "!!int 0o17", "!!int \"12\"", "!!int 1.5", "!!int 0X1F", "!!int ' 12 '", "!!int ''",
    "!!int 0b0b1", "!!int 1_0",
    "!!bool y", "!!bool yes", "!!bool TRUE", "!!bool 1",
    "!!null abc", "!!str 123", "!!str yes", "! 12", "! \"12\"", "! 'yes'",
    "!!timestamp 2001-1-1", "!!timestamp junk",
    "!!binary aGVsbG8=", "!!binary aGVsbG8", "!!binary aGVsbA",
    "!foo bar", "!!set x", "!!seq x", "!!merge x",
]


def c_string(b: bytes) -> str:
    out = []
    for c in b:
        if c in (0x22, 0x5C):
            out.append("\\" + chr(c))
        elif 0x20 <= c < 0x7F and c != 0x3F:  # no '?' (trigraphs)
            out.append(chr(c))
        else:
            out.append("\\%03o" % c)
    return '"' + "".join(out) + '"'


def c_double(x: float) -> str:
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    return x.hex()


def looks_numeric(text: str) -> bool:
    """A person's reading: digits with a dot or an exponent, or thousands separators."""
    if re.fullmatch(r"[-+]?[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?", text):
        return True
    if not re.fullmatch(r"[-+0-9._eE]+", text) or not re.search(r"[0-9]", text):
        return False
    if not re.search(r"[.eE]", text):
        return False
    try:
        float(text.replace("_", ""))
    except ValueError:
        return False
    return True


def spelling(text: str):
    """The spelling PyYAML reads as the number a person means (checked below)."""
    if "," in text:
        return text.replace(",", "")
    m = re.fullmatch(r"([-+]?)([0-9_]*)(?:(\.)([0-9_]*))?(?:([eE])([-+]?)([0-9]+))?", text)
    sign, ip, _dot, fp, e, es, ed = m.groups()
    s = sign + (ip or "0") + "." + (fp or "0")
    if e:
        s += e + (es or "+") + ed
    return s


def scalar_event(doc: str):
    for ev in yaml.parse(doc, Loader=yaml.SafeLoader):
        if isinstance(ev, yaml.ScalarEvent):
            return ev
    raise SystemExit("no scalar in %r" % doc)


def case(doc: str) -> str:
    ev = scalar_event(doc)
    text = ev.value.encode("utf-8")
    # PyYAML resolves implicitly when there is no tag or the non-specific "!" (even when quoted)
    plain = bool(ev.implicit[0]) and ev.tag in (None, "!")
    tag = None if ev.tag == "!" else ev.tag
    if tag is not None and tag.startswith("!!"):
        tag = "tag:yaml.org,2002:" + tag[2:]
    fields = {
        "doc": c_string(doc.encode("utf-8")),
        "text": c_string(text),
        "len": str(len(text)),
        "plain": "true" if plain else "false",
        "tag": c_string(tag.encode()) if tag else "NULL",
    }
    try:
        v = yaml.safe_load(doc)
        err = False
    except Exception:  # ConstructorError, ValueError, KeyError...: the load fails
        v, err = None, True
    import datetime

    if err:
        fields.update(error="true", type="SL_V_STR")
    elif v is None:
        fields.update(type="SL_V_NULL")
    elif isinstance(v, bool):
        fields.update(type="SL_V_BOOL", b="true" if v else "false")
    elif isinstance(v, int):
        big = not (-(2**63) <= v < 2**63)
        try:
            f = float(v)
        except OverflowError:
            f = math.inf if v > 0 else -math.inf
        fields.update(type="SL_V_INT", f=c_double(f), big="true" if big else "false")
        if not big:
            fields["i"] = "INT64_C(%d)" % v if v != -(2**63) else "INT64_MIN"
    elif isinstance(v, float):
        fields.update(type="SL_V_FLOAT", f=c_double(v))
    elif isinstance(v, str):
        fields.update(type="SL_V_STR")
        if looks_numeric(v):
            fields["looks_numeric"] = "true"
            meant = float(v.replace(",", "").replace("_", ""))
            sp = spelling(v)
            loaded = yaml.safe_load(sp)
            if isinstance(loaded, bool) or not isinstance(loaded, (int, float)) or loaded != meant:
                raise SystemExit("spelling %r of %r loads as %r, not %r" % (sp, v, loaded, meant))
            fields["spelling"] = c_string(sp.encode())
            fields["meant"] = c_double(meant)
    elif isinstance(v, (datetime.date, datetime.datetime)):
        fields.update(type="SL_V_TIMESTAMP")
    elif isinstance(v, bytes):
        fields.update(type="SL_V_BINARY")
    else:
        raise SystemExit("unexpected %r for %r" % (v, doc))
    return "\t{" + ", ".join(".%s = %s" % kv for kv in fields.items()) + "},"


def generate() -> str:
    lines = [
        "/* Generated by tests/unit/gen_scalar_cases.py from PyYAML %s (yaml.safe_load). Do not edit. */"
        % yaml.__version__,
        "static const struct scalar_case scalar_cases[] = {",
    ]
    lines += [case(d) for d in LITERALS]
    lines.append("};")
    return "\n".join(lines) + "\n"


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    out = generate()
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        with open(sys.argv[2], encoding="utf-8") as f:
            have = f.read()
        # the PyYAML version in the header line may differ; compare the cases
        if have.split("\n", 1)[1] != out.split("\n", 1)[1]:
            import difflib

            sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), out.splitlines(True),
                                                       sys.argv[2], "regenerated"))
            return 1
        return 0
    with open(os.path.join(here, "scalar_cases.h"), "w", encoding="utf-8") as f:
        f.write(out)
    print("wrote %d cases" % len(LITERALS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
