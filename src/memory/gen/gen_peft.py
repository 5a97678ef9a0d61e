#!/usr/bin/env python3
"""gen_peft: rules/peft.yaml -> a static table of PEFT methods (peft_table.h).

  gen_peft.py OUT.c rules/peft.yaml

Each method's formulas are compiled into postfix programs over the variables and knobs
(src/memory/peft_table.h evaluates them). A row that does not check (an unknown field, variable,
target or function, a bad expression, a duplicated name) fails the build as
rules/peft.yaml:LINE: error: message, exit 1.
"""

import re
import sys

import yaml

FIELDS = ("name", "spellings", "source", "rank_key", "rank_default", "targets", "knobs", "params",
          "params_kind", "params_model", "keeps_token", "keeps_weight", "buffers", "buffers_kind",
          "state")
REQUIRED = ("name", "source", "rank_key", "rank_default", "targets", "knobs", "params")
EXPRS = ("params", "params_kind", "params_model", "keeps_token", "keeps_weight", "buffers", "buffers_kind")
VARS = ("in", "out", "r", "L", "wb")  # SL_PV_IN.. in peft_table.h; knobs follow
FUNCS = {"min": 2, "max": 2, "floor": 1, "ceil": 1, "def": 2, "lokr": 5}
TARGETS = {"q_proj": "SL_LORA_Q", "k_proj": "SL_LORA_K", "v_proj": "SL_LORA_V", "o_proj": "SL_LORA_O",
           "gate_proj": "SL_LORA_GATE", "up_proj": "SL_LORA_UP", "down_proj": "SL_LORA_DOWN"}
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")  # a PEFT config key (stride_A, num_B)
TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(.))")


class Bad(Exception):
    pass


def tokens(text):
    out = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        if m.group(1):
            out.append(("num", float(m.group(1))))
        elif m.group(2):
            out.append(("id", m.group(2)))
        elif m.group(3).strip():
            out.append(("op", m.group(3)))
    return out


def compile_expr(text, names):
    """Postfix ops for `text`: [("num", x) | ("var", i) | ("op", name)]; names: variable -> index."""
    toks = tokens(str(text))
    pos = [0]
    prog = []

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else (None, None)

    def take(kind=None, val=None):
        t = peek()
        if t[0] is None or (kind and t[0] != kind) or (val and t[1] != val):
            raise Bad("expression %r: expected %s at token %d" % (text, val or kind or "more", pos[0] + 1))
        pos[0] += 1
        return t

    def primary():
        t = peek()
        if t[0] == "num":
            take()
            prog.append(("num", t[1]))
        elif t[0] == "id":
            take()
            if peek() == ("op", "("):
                if t[1] not in FUNCS:
                    raise Bad("expression %r: unknown function %s" % (text, t[1]))
                take("op", "(")
                n = 0
                while True:
                    expr()
                    n += 1
                    if peek() == ("op", ","):
                        take()
                        continue
                    break
                take("op", ")")
                if n != FUNCS[t[1]]:
                    raise Bad("expression %r: %s takes %d arguments" % (text, t[1], FUNCS[t[1]]))
                prog.append(("op", t[1]))
            else:
                if t[1] not in names:
                    raise Bad("expression %r: unknown variable %s (not in, out, r, L, wb or a knob)" % (text, t[1]))
                prog.append(("var", names[t[1]]))
        elif t == ("op", "("):
            take()
            expr()
            take("op", ")")
        elif t == ("op", "-"):
            take()
            prog.append(("num", 0.0))
            primary()
            prog.append(("op", "-"))
        else:
            raise Bad("expression %r: unexpected %r" % (text, t[1]))

    def term():
        primary()
        while peek() in (("op", "*"), ("op", "/")):
            op = take()[1]
            primary()
            prog.append(("op", op))

    def expr():
        term()
        while peek() in (("op", "+"), ("op", "-")):
            op = take()[1]
            term()
            prog.append(("op", op))

    expr()
    if pos[0] != len(toks):
        raise Bad("expression %r: unexpected %r" % (text, toks[pos[0]][1]))
    return prog


OPS = {"+": "SL_POP_ADD", "-": "SL_POP_SUB", "*": "SL_POP_MUL", "/": "SL_POP_DIV", "min": "SL_POP_MIN",
       "max": "SL_POP_MAX", "floor": "SL_POP_FLOOR", "ceil": "SL_POP_CEIL", "def": "SL_POP_DEF",
       "lokr": "SL_POP_LOKR"}


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    root = yaml.compose(text)
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not isinstance(data.get("methods"), list):
        raise Bad("1: expected a mapping with a `methods` list")
    nodes = dict((k.value, v) for k, v in root.value)["methods"].value
    return data["methods"], nodes


def check(rows, nodes):
    """The rows as dicts with compiled programs; raises Bad with 'LINE: message'."""
    seen = set()
    out = []
    for row, node in zip(rows, nodes):
        line = node.start_mark.line + 1
        try:
            if not isinstance(row, dict):
                raise Bad("a method is a mapping")
            for k in row:
                if k not in FIELDS:
                    raise Bad("unknown field %r" % k)
            for k in REQUIRED:
                if k not in row:
                    raise Bad("missing field %r" % k)
            name = row["name"]
            if not isinstance(name, str) or not NAME.match(name):
                raise Bad("name %r: lower-case letters, digits and _" % name)
            spell = row.get("spellings") or []
            for s in [name] + list(spell):
                if s in seen:
                    raise Bad("%r is named twice" % s)
                seen.add(s)
            knobs = row["knobs"] or {}
            if not isinstance(knobs, dict):
                raise Bad("knobs: a mapping of config key to number")
            names = dict((v, i) for i, v in enumerate(VARS))
            for i, (k, v) in enumerate(knobs.items()):
                if not KEY.match(str(k)) or k in names:
                    raise Bad("knob %r: not a config key name" % k)
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise Bad("knob %s: %r is not a number" % (k, v))
                names[k] = len(VARS) + i
            targets = row["targets"]
            if not isinstance(targets, list) or not targets:
                raise Bad("targets: a list of module names")
            for t in targets:
                if t not in TARGETS:
                    raise Bad("target %r: not one of %s" % (t, ", ".join(TARGETS)))
            rank_key = row["rank_key"]
            if rank_key is not None and not (isinstance(rank_key, str) and KEY.match(rank_key)):
                raise Bad("rank_key %r: a config key or null" % rank_key)
            rd = row["rank_default"]
            if isinstance(rd, bool) or not isinstance(rd, (int, float)) or rd < 0:
                raise Bad("rank_default %r: a number >= 0" % rd)
            state = row.get("state", 0)
            if isinstance(state, bool) or not isinstance(state, (int, float)) or state < 0:
                raise Bad("state %r: bytes >= 0" % state)
            progs = {}
            for e in EXPRS:
                if e in row and row[e] is not None:
                    progs[e] = compile_expr(row[e], names)
            out.append({"name": name, "spellings": list(spell), "source": str(row["source"]),
                        "rank_key": rank_key, "rank_default": float(rd), "targets": targets,
                        "knobs": list(knobs.items()), "state": float(state), "progs": progs})
        except Bad as e:
            raise Bad("%d: %s" % (line, e))
    if len(out) > 64:
        raise Bad("1: more than 64 methods (SL_PEFT_TABLE_MAX)")
    return out


def emit(rows, f):
    f.write("/* generated by src/memory/gen/gen_peft.py from rules/peft.yaml: do not edit */\n")
    f.write('#include "peft_table.h"\n\n')
    for i, r in enumerate(rows):
        for e, prog in sorted(r["progs"].items()):
            f.write("static const struct sl_peft_op m%d_%s[] = {\n" % (i, e))
            for kind, v in prog:
                if kind == "num":
                    f.write("\t{SL_POP_NUM, 0, %r},\n" % v)
                elif kind == "var":
                    f.write("\t{SL_POP_VAR, %d, 0},\n" % v)
                else:
                    f.write("\t{%s, 0, 0},\n" % OPS[v])
            f.write("};\n")
        if r["knobs"]:
            f.write("static const char *const m%d_keys[] = {%s};\n" % (i, ", ".join(c_str(k) for k, _ in r["knobs"])))
            f.write("static const double m%d_vals[] = {%s};\n" % (i, ", ".join(repr(float(v)) for _, v in r["knobs"])))
        f.write("static const char *const m%d_spell[] = {%s};\n" % (i, ", ".join(
            [c_str(s) for s in r["spellings"]] + ["NULL"])))
    f.write("\nconst struct sl_peft_def sl_peft_table[] = {\n")
    for i, r in enumerate(rows):
        f.write("\t{\n\t\t.name = %s,\n\t\t.spellings = m%d_spell,\n\t\t.source = %s,\n" % (
            c_str(r["name"]), i, c_str(r["source"])))
        f.write("\t\t.rank_key = %s,\n\t\t.rank_default = %r,\n" % (
            c_str(r["rank_key"]) if r["rank_key"] else "NULL", r["rank_default"]))
        f.write("\t\t.targets = %s,\n" % " | ".join(TARGETS[t] for t in r["targets"]))
        if r["knobs"]:
            f.write("\t\t.nknobs = %d,\n\t\t.knob_keys = m%d_keys,\n\t\t.knob_values = m%d_vals,\n" % (
                len(r["knobs"]), i, i))
        for e, prog in sorted(r["progs"].items()):
            f.write("\t\t.%s = {m%d_%s, %d},\n" % (e, i, e, len(prog)))
        f.write("\t\t.state = %r,\n\t},\n" % r["state"])
    f.write("};\n\nconst unsigned sl_peft_table_n = %d;\n" % len(rows))


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: gen_peft.py OUT.c rules/peft.yaml\n")
        return 2
    out, path = argv[1], argv[2]
    try:
        rows, nodes = load(path)
        rows = check(rows, nodes)
    except Bad as e:
        sys.stderr.write("%s:%s\n" % (path, str(e).replace(": ", ": error: ", 1)))
        return 1
    except (OSError, yaml.YAMLError) as e:
        sys.stderr.write("%s: error: %s\n" % (path, e))
        return 1
    with open(out, "w", encoding="utf-8") as f:
        emit(rows, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
