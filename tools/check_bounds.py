#!/usr/bin/python3
"""check_bounds: fixed-size arrays written through a counter that nothing compares with their size.

usage: check_bounds.py [--list] SOURCE_DIR...

The class behind issue 34's follow-seen-overflow: src/program/follow.c wrote `F.seen[F.nseen++] = file`
for every module imported, but the loop was bounded by another counter (modules read), so modules that
failed to parse wrote past seen[9]. This scans the C sources for every write through an incremented index
(`NAME[I++]`, `NAME[++I]`, `&NAME[I++]`, `NAME[I] = x;` then `I++`) into an array declared with a fixed size (`T NAME[N];` in a
function or a struct, in the same file or in include/), and asks that the function holding the write
also compares that counter (its last component: `nseen` of `F.nseen`) with the array's size: an
expression naming the size's macro, its number, `sizeof NAME` or `ARRAY_LEN(NAME)`-style sizeof
arithmetic, in an `if`, loop condition or `&&`/`||` chain before the write. A write whose bound is
structural (a buffer sized from the input it copies) says so in a comment on its line, the line before
or the array's declaration in the function: `/* bound: WHY */`. Exit 1 with `file:line: NAME[I++] ...` for each write without either.
--list prints every fixed array found and each checked write (for review).
"""
import os
import re
import sys

DECL = re.compile(r"^\s*(?:static\s+|const\s+|struct\s+\w+\s+|unsigned\s+|enum\s+\w+\s+)*[A-Za-z_][\w]*[\s\*]+"
                  r"(?:const\s+)?\**\s*(\w+)\s*\[\s*([^\]\[]+?)\s*\](?:\s*\[[^\]]*\])*\s*(?:=|;|,)")
WRITE = re.compile(r"(?<![\w.>])((?:[\w]+(?:\.|->))*)(\w+)\s*\[\s*(\+\+)?\s*((?:[\w]+(?:\.|->))*\w+)\s*(\+\+)?\s*\]")
ASSIGN = re.compile(r"(?<![\w.>])((?:[\w]+(?:\.|->))*)(\w+)\s*\[\s*((?:[\w]+(?:\.|->))*\w+)\s*\]\s*=(?!=)")
BOUND_NOTE = re.compile(r"/\*\s*bound:")


def strip_comments(text):
    """Comments and string literals blanked (newlines kept), so lines keep their numbers."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


STRUCT = re.compile(r"\bstruct\s+(\w+)\s*\{", re.S)
FIELD_FIXED = re.compile(r"(\w+)\s*\[\s*([^\]\[]+?)\s*\](?:\s*\[[^\]]*\])*\s*;")
FIELD_PTR = re.compile(r"\*\s*(?:const\s+)?(\w+)\s*;")


def fixed_arrays(code):
    """{name: size expression} of arrays declared with a fixed size on a line of their own (not `T a[]`)."""
    found = {}
    for line in code.splitlines():
        m = DECL.match(line)
        if m and m.group(2).strip():
            found.setdefault(m.group(1), m.group(2).strip())
    return found


def structs(code):
    """{struct name: {field: size expression, or None for a pointer field}}."""
    out = {}
    for m in STRUCT.finditer(code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        body = code[m.end():i - 1]
        fields = {}
        for f in FIELD_PTR.finditer(body):
            fields[f.group(1)] = None
        for f in FIELD_FIXED.finditer(body):
            if f.group(2).strip():
                fields[f.group(1)] = f.group(2).strip()
        out.setdefault(m.group(1), {}).update(fields)
    return out


def functions(code):
    """[(first line, body start, last line)] of each function (1-based): from the line after the previous
    top-level construct to its closing brace, so the signature (the parameters) is inside."""
    spans = []
    depth, start, prev_end = 0, None, 0
    for no, line in enumerate(code.splitlines(), 1):
        if depth == 0 and "{" in line and start is None:
            start = no
        depth += line.count("{") - line.count("}")
        if depth == 0 and start is not None:
            spans.append((prev_end + 1, start, no))
            prev_end, start = no, None
        elif depth == 0 and line.rstrip().endswith(";"):
            prev_end = no
    return spans


def declared(lines, first, at, name):
    """(size, line) of name as the function (signature included) declares it before line at: a size
    expression for a fixed array, None for a pointer or parameter, False when the function does not declare it."""
    fixed = re.compile(r"(?<![\w.>])" + re.escape(name) + r"\s*\[\s*([^\]\[]+?)\s*\]\s*(?:=|;|,)")
    other = re.compile(r"(?:\*|\b(?:char|int|size_t|uint\w*|bool|double|float|long|unsigned|const))\s*"
                       + re.escape(name) + r"\s*(?:\[\s*\]|[,;)=])")
    found, where = False, 0
    for no in range(first, at + 1):
        line = lines[no - 1]
        m = fixed.search(line)
        if m and m.group(1).strip() and not re.search(r"=\s*$", line[:m.start()]):
            # a declaration, not a use: a type word before the name
            if re.search(r"[\w\*]\s+\**\s*$", line[:m.start()]) and \
                    not re.search(r"([=(,]|\bsizeof)\s*$", line[:m.start()]):
                found, where = m.group(1).strip(), no
                continue
        if other.search(line):
            found, where = None, no
    return found, where


def struct_of(lines, first, at, base):
    """The struct type of a variable `base` as the function declares it (`struct follow F`, a parameter
    `struct sl_diags *d`), or None."""
    pat = re.compile(r"\bstruct\s+(\w+)\s*(?:const\s*)?\*?\s*(?:const\s*)?" + re.escape(base) + r"\b")
    t = None
    for no in range(first, at + 1):
        m = pat.search(lines[no - 1])
        if m:
            t = m.group(1)
    return t


ALIAS = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*(?:/\*.*)?$", re.M)
ALIASES = {}                       # `#define MAX_PHRASE SL_WORDS_MAX_PHRASE`: either name bounds the array


def bounded(lines, first, at, counter, name, size):
    """Does a comparison of counter with the array's size come before line `at` in the function?"""
    toks = {t for t in re.findall(r"[A-Za-z_]\w*|\d+", size) if t not in ("sizeof", "size_t")}
    grew = True
    while grew:
        more = {a for a, b in ALIASES.items() if b in toks} | {ALIASES[t] for t in toks if t in ALIASES}
        grew = not more <= toks
        toks |= more
    sizeof = re.compile(r"sizeof\s*\(?\s*(?:[\w]+(?:\.|->))*" + re.escape(name) + r"\b")
    cmp = re.compile(r"(<=|>=|<|>|==|!=)")
    word = re.compile(r"(?<![\w])" + re.escape(counter) + r"(?!\w)")
    for no in range(first, at + 1):
        line = lines[no - 1]
        if not word.search(line) or not cmp.search(line):
            continue
        if sizeof.search(line) or any(re.search(r"(?<![\w])" + re.escape(t) + r"(?!\w)", line) for t in toks):
            return True
    return False


def check(paths, listing):
    types = {}
    for root in paths:
        for d in (root, os.path.join(root, "..", "include")):
            for dirpath, _, files in os.walk(d):
                for f in files:
                    if f.endswith((".h", ".c")):
                        text = open(os.path.join(dirpath, f)).read()
                        for k, v in structs(strip_comments(text)).items():
                            types.setdefault(k, {}).update(v)
                        ALIASES.update(ALIAS.findall(text))
    # a field name every struct that has it declares with one fixed size (unambiguous without the base's type)
    by_field = {}
    for fields in types.values():
        for k, v in fields.items():
            by_field.setdefault(k, set()).add(v)
    problems, checked = [], 0
    for root in paths:
        for dirpath, _, files in sorted(os.walk(root)):
            for f in sorted(files):
                if not f.endswith(".c"):
                    continue
                path = os.path.join(dirpath, f)
                raw = open(path).read()
                code = strip_comments(raw)
                file_fixed = fixed_arrays(code)
                raw_lines, lines = raw.splitlines(), code.splitlines()
                spans = functions(code)
                for no, line in enumerate(lines, 1):
                    writes = [m.groups() + (m.group(0),) for m in WRITE.finditer(line)]
                    # NAME[I] = x; then I++ on the same or one of the next two lines
                    for m in ASSIGN.finditer(line):
                        c = re.escape(m.group(3))
                        after = line[m.end():] + "\n" + "\n".join(lines[no:no + 2])
                        if re.search(r"(?<![\w.>])" + c + r"\s*(\+\+|\+=)|\+\+\s*" + c + r"(?!\w)", after):
                            writes.append((m.group(1), m.group(2), None, m.group(3), "++", m.group(0)))
                    for base_path, name, pre, counter_path, post, text in writes:
                        if not (pre or post):
                            continue
                        first = next((s for s, b, e in spans if s <= no <= e), 1)
                        decl = 0
                        if base_path:
                            base = re.split(r"\.|->", base_path.rstrip(".->"))[-1]
                            t = struct_of(lines, first, no, base)
                            if t and t in types and name in types[t]:
                                size = types[t][name]
                            else:
                                sizes = by_field.get(name, set())
                                size = next(iter(sizes)) if len(sizes) == 1 else None
                        else:
                            size, decl = declared(lines, first, no, name)
                            if size is False:
                                size, decl = file_fixed.get(name), 0
                        if not size:
                            continue
                        counter = re.split(r"\.|->", counter_path)[-1]
                        checked += 1
                        noted = any(BOUND_NOTE.search(raw_lines[k - 1]) for k in (no, no - 1, decl) if k > 0)
                        ok = noted or bounded(lines, first, no, counter, name, size)
                        if listing:
                            print(f"{path}:{no}: {'ok ' if ok else 'BAD'} {text} (size {size})")
                        if not ok:
                            problems.append(f"{path}:{no}: {text.strip()} writes {name}[{size}] through "
                                            f"'{counter}', which nothing before it in the function compares with "
                                            f"{size} (add the bound, or say why in /* bound: ... */)")
    return problems, checked


def main():
    args = sys.argv[1:]
    listing = "--list" in args
    paths = [a for a in args if a != "--list"] or ["src"]
    problems, checked = check(paths, listing)
    for p in problems:
        print(p)
    print(f"check_bounds: {checked} writes through an incremented index into fixed-size arrays, "
          f"{len(problems)} without a bound", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
