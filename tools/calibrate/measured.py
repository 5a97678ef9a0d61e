"""The measured-memory TSV: the column layout of calibration/measured.tsv.

One row per (case, metric). Lines starting with '#' are comments (the harness
writes its environment there, above the header). Settings that have no
column (lora_targets, texts_per_example, quant, ...) travel in `notes` as
`key=value` tokens; everything else in notes is free text.

Standard library only: this module is imported by `calibrate.py --list`,
compare.py and the tests on machines without torch.
"""

import csv
import io
import re

# The header of calibration/measured.tsv, in order (tests compare it with the file).
COLUMNS = (
    "id", "source", "model", "task", "batch", "grad_accum", "seq_len", "target_len",
    "dtype", "amp", "gc", "optimizer", "method", "lora_r", "attn", "gpu", "metric",
    "value_mib", "notes",
)

# What each metric means (docs/calibration.md). `oom` is 1 when the case raised
# torch.cuda.OutOfMemoryError and 0 when it completed its steps.
METRICS = {
    "nvml_used": "device memory used at the peak (NVML / nvidia-smi), incl. the CUDA context",
    "torch_allocated": "torch.cuda.max_memory_allocated()",
    "torch_reserved": "torch.cuda.max_memory_reserved()",
    "reserved_minus_init": "torch.cuda.max_memory_reserved() minus memory_reserved() right after model load",
    "torch_peak": "a torch.cuda peak statistic the source does not name (published rows only)",
    "oom": "1: torch.cuda.OutOfMemoryError was raised; 0: the steps completed",
}

# Roles that have no column of their own and are written in notes.
NOTE_ROLES = ("lora_targets", "texts_per_example", "quant", "mini_batch_size", "eval_batch_size",
              "mode", "num_beams", "max_new_tokens", "modules_to_save", "fsdp", "torch_compile",
              "liger",
              # issue 33's cases: what the program does with the model (issue 28), FSDP's load and
              # save phases (issue 29), preference and RL fine-tuning (issue 31's roles)
              "frozen", "head_params", "part", "query_len", "separate_encoders", "padding",
              "fsdp_init", "fsdp_state_dict", "algorithm", "ref_model", "beta", "num_generations",
              "prompt_len", "completion_len")

_NOTE_TOKEN = re.compile(r"^([a-z_][a-z0-9_]*)=(\S+?)[;,]?$")

MIB = 1 << 20


class TsvError(Exception):
    """A measured TSV that does not have the expected layout."""


def clean_field(value):
    """A value as one TSV field: no tabs or line breaks."""
    text = "" if value is None else str(value)
    return re.sub(r"[\t\r\n]+", " ", text).strip()


def to_mib(nbytes):
    """Bytes to whole MiB, rounded to nearest."""
    return int((int(nbytes) + MIB // 2) // MIB)


def format_rows(rows, comments=()):
    """The TSV text: '# ' comment lines, the header, then one line per row (dicts keyed by COLUMNS)."""
    out = io.StringIO()
    for line in comments:
        out.write("# " + clean_field(line) + "\n")
    out.write("\t".join(COLUMNS) + "\n")
    for row in rows:
        out.write(format_row(row))
    return out.getvalue()


def format_row(row):
    """One TSV line (with its newline) for a dict keyed by COLUMNS."""
    missing = [c for c in COLUMNS if c not in row]
    if missing:
        raise TsvError("row %r lacks %s" % (row.get("id"), ", ".join(missing)))
    return "\t".join(clean_field(row[c]) for c in COLUMNS) + "\n"


def parse(text, name="<tsv>"):
    """(comments, rows) from TSV text; rows are dicts of strings keyed by COLUMNS."""
    comments, rows, header = [], [], None
    lines = text.splitlines()
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            comments.append(line[1:].strip())
            continue
        fields = next(csv.reader([line], delimiter="\t", quoting=csv.QUOTE_NONE))
        if header is None:
            header = tuple(fields)
            if header != COLUMNS:
                raise TsvError("%s:%d: header is %r, expected %r" % (name, lineno, "\t".join(header),
                                                                     "\t".join(COLUMNS)))
            continue
        if len(fields) != len(COLUMNS):
            raise TsvError("%s:%d: %d fields, expected %d" % (name, lineno, len(fields), len(COLUMNS)))
        row = dict(zip(COLUMNS, fields))
        row["_line"] = lineno
        rows.append(row)
    if header is None:
        raise TsvError("%s: no header line" % name)
    return comments, rows


def read(path):
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path)


def note_values(notes):
    """The key=value tokens of a notes field, as a dict (later tokens win)."""
    values = {}
    for token in (notes or "").split():
        m = _NOTE_TOKEN.match(token)
        if m:
            values[m.group(1)] = m.group(2)
    return values


def comment_values(comments):
    """key=value tokens of the '#' comment lines (the harness environment header)."""
    values = {}
    for line in comments:
        for token in line.split():
            m = _NOTE_TOKEN.match(token)
            if m:
                values[m.group(1)] = m.group(2)
    return values


def row_roles(row, model=None):
    """The sweeplint `estimate` ROLE=VALUE arguments for a measured row.

    model replaces the row's model value (e.g. a directory holding the
    architecture's config.json when the catalog does not know the model).
    """
    notes = note_values(row.get("notes", ""))
    row = {k: str(v) for k, v in row.items()}
    roles = [
        ("model", model or row["model"]),
        ("task", row["task"]),
        ("batch_size", row["batch"]),
        ("grad_accum", row["grad_accum"] or "1"),
        ("seq_len", row["seq_len"]),
    ]
    if str(row["target_len"]) not in ("", "0"):
        roles.append(("target_len", row["target_len"]))
    roles += [
        ("dtype", row["dtype"]),
        ("amp", row["amp"]),
        ("gradient_checkpointing", row["gc"]),
        ("optimizer", row["optimizer"]),
        ("attn", row["attn"]),
    ]
    method = row["method"]
    if method in ("lora", "qlora"):
        roles.append(("lora_r", row["lora_r"]))
    if method == "qlora" and "quant" not in notes:
        roles.append(("quant", "nf4"))
    for key in NOTE_ROLES:
        if key in notes:
            roles.append((key, notes[key]))
    return ["%s=%s" % kv for kv in roles]


def settings_key(row):
    """The columns that define a case's run (everything but metric, value and notes)."""
    skip = {"metric", "value_mib", "notes", "_line"}
    return tuple((c, str(row[c])) for c in COLUMNS if c not in skip) + tuple(sorted(
        (k, v) for k, v in note_values(row.get("notes", "")).items() if k in NOTE_ROLES))
