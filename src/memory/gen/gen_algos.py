#!/usr/bin/env python3
"""gen_algos: rules/algorithms.yaml -> a static table of training algorithms (algo_table.h).

  gen_algos.py OUT.c rules/algorithms.yaml

A row that does not check (a missing or unknown field, a value outside its choices, a spelling or
name given twice, a first row that is not sft) fails the build as
rules/algorithms.yaml:LINE: error: message, exit 1.
"""

import re
import sys

import yaml

FIELDS = ("name", "spellings", "source", "sequences", "reference", "kl_batch", "loss", "generates",
          "generations", "completion", "beta", "logits_kept", "reward_model", "value_model", "rollout_logits",
          "rollout_chunk", "replaces")
CHOICES = {
    "reference": {"none": "SL_AREF_NONE", "step": "SL_AREF_STEP", "rollout": "SL_AREF_ROLLOUT"},
    "loss": {"ce": "SL_ALOSS_CE", "logprobs": "SL_ALOSS_LOGPROBS", "nll": "SL_ALOSS_NLL", "score": "SL_ALOSS_SCORE",
             "response": "SL_ALOSS_RESPONSE"},
    "logits_kept": {"all": "false", "completion": "true"},
}
BOOLS = ("kl_batch", "generates", "reward_model", "value_model", "rollout_logits")
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
SPELLING = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")


class Bad(Exception):
    pass


class LineLoader(yaml.SafeLoader):
    pass


def construct_mapping(loader, node, deep=False):
    m = yaml.SafeLoader.construct_mapping(loader, node, deep=deep)
    m["__line__"] = node.start_mark.line + 1
    return m


LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def check_row(row, seen, names):
    for k in row:
        if k != "__line__" and k not in FIELDS:
            raise Bad("unknown field '%s'" % k)
    for k in FIELDS:
        if k not in row:
            raise Bad("missing field '%s'" % k)
    name = row["name"]
    if not isinstance(name, str) or not NAME.match(name):
        raise Bad("name '%s' is not a lower-case identifier" % name)
    sp = row["spellings"] if row["spellings"] is not None else []
    if not isinstance(sp, list) or not all(isinstance(s, str) and SPELLING.match(s) for s in sp):
        raise Bad("spellings is a list of names")
    for s in [name] + sp:
        if s.lower() in seen:
            raise Bad("'%s' is named twice" % s)
        seen.add(s.lower())
    if not isinstance(row["source"], str) or not row["source"].strip():
        raise Bad("source is the files the row is read from")
    if row["sequences"] not in (1, 2):
        raise Bad("sequences is 1 or 2")
    for k, choices in CHOICES.items():
        if row[k] not in choices:
            raise Bad("%s '%s' is not one of %s" % (k, row[k], ", ".join(sorted(choices))))
    for k in BOOLS:
        if not isinstance(row[k], bool):
            raise Bad("%s is true or false" % k)
    for k in ("generations", "completion", "rollout_chunk"):
        if not isinstance(row[k], int) or isinstance(row[k], bool) or row[k] < 0:
            raise Bad("%s is a whole number" % k)
    if row["generates"] and (row["generations"] < 1 or row["completion"] < 1):
        raise Bad("a generating algorithm needs generations and completion")
    if not isinstance(row["beta"], (int, float)) or isinstance(row["beta"], bool) or row["beta"] < 0:
        raise Bad("beta is a number >= 0")
    if row["value_model"] and not row["generates"]:
        raise Bad("a value model needs generation")
    rep = row["replaces"]
    if rep is not None and (not isinstance(rep, str) or rep.lower() not in names):
        raise Bad("replaces names an earlier row")
    names.add(name.lower())
    return sp


def main(argv):
    if len(argv) != 3:
        print("usage: gen_algos.py OUT.c rules/algorithms.yaml", file=sys.stderr)
        return 2
    out, path = argv[1], argv[2]
    with open(path, encoding="utf-8") as f:
        try:
            doc = yaml.load(f, Loader=LineLoader)
        except yaml.YAMLError as e:
            print("%s: error: %s" % (path, e), file=sys.stderr)
            return 1
    rows = doc.get("algorithms") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not rows:
        print("%s:1: error: no 'algorithms' list" % path, file=sys.stderr)
        return 1
    seen = set()
    names = set()
    body = []
    for i, row in enumerate(rows):
        line = row.get("__line__", 1) if isinstance(row, dict) else 1
        try:
            if not isinstance(row, dict):
                raise Bad("a row is a mapping")
            sp = check_row(row, seen, names)
            if i == 0 and row["name"] != "sft":
                raise Bad("the first row is sft (the algorithm of a run that states none)")
        except Bad as e:
            print("%s:%d: error: %s" % (path, line, e), file=sys.stderr)
            return 1
        sp_name = "sp_%d" % i
        body.append("static const char *const %s[] = {%s};" % (sp_name, ", ".join([c_str(s) for s in sp] + ["NULL"])))
        row["__sp__"] = sp_name
    lines = ["/* generated by src/memory/gen/gen_algos.py from rules/algorithms.yaml: do not edit */",
             '#include "algo_table.h"', "", *body, "", "const struct sl_algo_def sl_algo_table[] = {"]
    for row in rows:
        lines.append("\t{%s, %s, %s, %d, %s, %s, %s, %s, %d, %d, %r, %s, %s, %s, %s, %d, %s}," % (
            c_str(row["name"]), row["__sp__"], c_str(" ".join(row["source"].split())), row["sequences"],
            CHOICES["reference"][row["reference"]], "true" if row["kl_batch"] else "false",
            CHOICES["loss"][row["loss"]], "true" if row["generates"] else "false", row["generations"],
            row["completion"], float(row["beta"]), CHOICES["logits_kept"][row["logits_kept"]],
            "true" if row["reward_model"] else "false", "true" if row["value_model"] else "false",
            "true" if row["rollout_logits"] else "false", row["rollout_chunk"],
            c_str(row["replaces"]) if row["replaces"] else "NULL"))
    lines += ["};", "const unsigned sl_algo_table_n = %d;" % len(rows), ""]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
