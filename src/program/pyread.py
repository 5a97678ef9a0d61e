# pyread: the entry point of the program evaluator (docs/program.md §2); last of the five files
# sweeplint concatenates (pyvalues.py, pyeval.py, pysources.py, pysinks.py, pyread.py).
#
# sweeplint runs it with the user's python3 as `python3 -I -S -B -c <script> PATH MAX_BYTES`
# (src/program/pyread.c: a subprocess with a time, memory and output bound). It never imports or
# executes the program: ast.parse builds a syntax tree and the evaluator walks it with abstract values.
#
# Protocol (one JSON object per line):
#   stdin, first line: the request {"root": the project folder (no file outside it is read),
#       "params": {"name": {"values": [...]} | {"range": true}} (the sweep's parameters),
#       "args": "hyphens" | "no_hyphens" | "json" | null (how the command passes them),
#       "argv": [[key, value, index]] (literal options of the command or shell line), "words": [...],
#       "entry": [function names] (what the runs execute, called as reached after the module: wandb.agent's
#       function= in the code that defines the sweep, hyperparameter_search's model_init),
#       "budget": evaluation steps}
#   stdout: {"need": "config" | "hydra", "request": {...}} when the evaluation needs a file the C side
#       reads (it answers on stdin: {"configs": [{"display", "values": [[dotted key, value]...]}],
#       "groups": [...], "error": ...}); then the answer:
#   {"settings": [{"key", "value", "how", "file", "line", "col", "end_line", "end_col" | "config",
#       "config_key" | "cmd", "chain"}...], "params": [...], "maps": [...], "notes": [[file|null, text]...],
#    "trains": true|false|null, "files": [...], "config_files": [...], "configs": [...], "hydra": ...,
#    "refs": [...], "wandb": {"reads", "maybe"}, "stopped": null | why, ...}
# or {"error": "...", "line": N} when the program does not parse. Columns are UTF-8 byte offsets.

MAX_REPLY = 8 << 20


def read_request():
    try:
        line = sys.stdin.readline(MAX_REPLY)
        req = json.loads(line) if line.strip() else {}
    except (ValueError, OSError):
        req = {}
    return req if isinstance(req, dict) else {}


def reply(kind, payload):
    try:
        for v in payload.values():
            if isinstance(v, str) and ('\x00' in v or any('\ud800' <= ch <= '\udfff' for ch in v)):
                return None       # a path no file can have
        sys.stdout.write(json.dumps({'need': kind, 'request': payload}, allow_nan=False) + '\n')
        sys.stdout.flush()
        line = sys.stdin.readline(MAX_REPLY)
        r = json.loads(line) if line.strip() else None
    except (ValueError, OSError):
        r = None
    return r if isinstance(r, dict) else None


TRAINS_WORDS = re.compile(r'optim|backward|fit|Trainer|Adam|SGD|Adafactor|Lion|RMSprop|Adagrad|LAMB|'
                          r'TrainingArguments|Config|step|generate|LLM|SamplingParams|vllm')


ARGV_WORDS = re.compile(r'ArgumentParser|argv|parse_args|parse_known_args|Fire\b|docopt|\bclick\b|\btyper\b|'
                        r'\btyro\b|\babsl\b|simple_parsing|jsonargparse|hydra|from_cli|LightningCLI|TrlParser|'
                        r'HfArgumentParser|dargparse|optparse|getopt|fileinput|ArgParser|FLAGS|automain|sacred|'
                        r'import_module|__import__|runpy|\bexec\(')


def scan_argv(text, out):
    """Whether the file may read the command line (argparse, sys.argv, a CLI library, Hydra): a program
    none of whose files does ignores the ${args} the sweep passes."""
    words = set(m.group(0) for m in ARGV_WORDS.finditer(text))
    if words:
        out.reads_argv = True
        out.argv_words |= words


def project_names(root, limit=5000):
    """The names of the project's packages and modules (folders and .py files, 4 levels down; hidden
    folders, virtual environments and site-packages left out), listed, never read."""
    names, seen = set(), 0
    skip = {'node_modules', 'site-packages', 'venv', 'env', '__pycache__', 'build', 'dist'}
    base = root.rstrip(os.sep).count(os.sep)
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith('.') and x not in skip]
        if d.count(os.sep) - base >= 4:
            dirs[:] = []
        names.update(dirs)
        names.update(f[:-3] for f in files if f.endswith('.py'))
        seen += len(dirs) + len(files)
        if seen > limit:
            break
    return names


def argv_unknown(out, root):
    """Whether an import may read the command line where sweeplint does not see it: a module of the project
    not read (missing from where Python would look, outside the project, unreadable; a package of the
    project installed from another folder of it). A library's own command-line reader (absl, fire, typer,
    click, tyro, sacred, Hydra ...) is named in the program that uses it, so ARGV_WORDS finds it there."""
    if '.' in out.ext_imports:
        return True
    ext = out.ext_imports - getattr(sys, 'stdlib_module_names', frozenset())
    if not ext:
        return False
    return root in ('', '/') or bool(ext & project_names(root))


def scan_trains(tree, text, out, fid=0):
    """Whether the file trains (an optimizer, a trainer, backward, fit) or only generates: read from the
    whole text, reached or not, as the literal reader did (a file with none of the words is not walked)."""
    if not TRAINS_WORDS.search(text):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == 'optim':
            out.trains = True
        elif isinstance(node, ast.Name) and node.id in TRAINER_CLASSES and node.id != 'Trainer':
            # a trainer class chosen into a variable (trainer_cls = A if ... else SFTTrainer) or subclassed
            out.trains = True
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and \
                node.module.split('.')[0] == 'vllm':
            out.infers = True
        elif isinstance(node, ast.Call):
            name, base = callee_name(node.func)
            if name is None:
                continue
            if name in TRAIN_CALLS or name in TRAINER_CLASSES or name in OPTIMIZERS or name in TRAINING_ARGS:
                out.trains = True
            if name == 'step' and base and 'optim' in base:
                out.trains = True
            # trainer.train() on whatever class an if/else chose; a *Trainer class (a subclass) called
            if (name == 'train' and base and 'trainer' in base.lower()) or \
                    (name.endswith('Trainer') and name[:1].isupper()):
                out.trains = True
            if name in ('generate', 'LLM', 'SamplingParams'):
                out.infers = True
                if out.infer_at is None:
                    out.infer_at = (fid, node)


def wire(out):
    """out as the JSON text the C side (jansson) reads, whatever the program's literals hold (issue 34).

    json.dumps writes Infinity and NaN, integers past 64 bits and lone surrogates, which jansson refuses:
    one such literal dropped the whole program. Here a non-finite float is {"$float": "inf"|"-inf"|"nan"},
    an integer past 64 bits {"$int": "DIGITS"}, and a NUL stays a NUL in a value ("value", "when": read
    with JSON_ALLOW_NUL). What cannot cross — a lone surrogate anywhere (no UTF-8 holds it), a NUL in a
    name (a key, a path: C would cut it), an integer Python will not print — drops the list item holding
    it alone, with a note ([file, "LINE: NAME: not read (why)"]); an item of the file lists becomes ""
    (their indices are file ids). Shown text (how, chain, unknown, notes) gets U+FFFD for a surrogate."""
    class Bad(Exception):
        pass

    def surrogate(s):
        return any('\ud800' <= c <= '\udfff' for c in s)

    def text(s):
        return ''.join('\ufffd' if '\ud800' <= c <= '\udfff' else c for c in s) if isinstance(s, str) else s

    dropped = []

    def describe(item, why):
        name = '?'
        if isinstance(item, dict):
            name = item.get('key') or item.get('param') or item.get('path') or item.get('name') or '?'
        elif isinstance(item, str):
            name = item
        name = text(str(name)).replace('\x00', '\\x00')
        line = item.get('line') if isinstance(item, dict) and isinstance(item.get('line'), int) else 0
        fid = item.get('file') if isinstance(item, dict) and isinstance(item.get('file'), int) else None
        return [fid, '%d: %s: not read (%s)' % (line, name, why)]

    def enc(x, field, value):
        if x is None or isinstance(x, bool):
            return x
        if isinstance(x, int):
            if -2 ** 63 <= x < 2 ** 63:
                return x
            try:
                return {'$int': str(x)}
            except ValueError:
                raise Bad('an integer of more digits than Python prints')
        if isinstance(x, float):
            return x if x - x == 0 else {'$float': repr(x)}
        if isinstance(x, str):
            if field in ('how', 'chain', 'unknown', 'stopped', 'error'):
                return text(x)
            if surrogate(x):
                raise Bad('it holds a lone surrogate')
            if '\x00' in x and not value:
                raise Bad('a name holding a NUL')
            return x
        if isinstance(x, (list, tuple)):
            kept = []
            for item in x:
                try:
                    kept.append(enc(item, field, value))
                except Bad as e:
                    if value:
                        raise        # a value's list (target_modules) goes whole, with its item
                    if field in ('files', 'config_files'):
                        kept.append('')
                    else:
                        dropped.append(describe(item, e))
            return kept
        if isinstance(x, dict):
            return {k: enc(v, k, value or k in ('value', 'when')) for k, v in x.items()}
        raise Bad('not a value')

    w = {}
    for k, v in out.items():
        if k == 'notes':
            w[k] = [[n[0], text(n[1])] if isinstance(n, list) and len(n) == 2 else n for n in v or []]
            continue
        try:
            w[k] = enc(v, k, False)
        except Bad as e:
            w[k] = None
            dropped.append(describe(v, e))
    if dropped:
        w['notes'] = w.get('notes', []) + dropped
    return json.dumps(w, allow_nan=False)


def main():
    path, maxb = sys.argv[1], int(sys.argv[2])
    req = read_request()
    if not req.get('root'):
        req['root'] = os.path.dirname(os.path.realpath(path))
    with open(path, 'rb') as f:
        src = f.read(maxb + 1)
    if len(src) > maxb:
        print(wire({'error': 'larger than %s bytes: not parsed' % maxb, 'line': 0}))
        return
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        print(wire({'error': 'syntax error: %s' % (e.msg,), 'line': e.lineno or 0}))
        return
    except MemoryError:
        print(wire({'error': "python's parser ran out of memory (past the evaluator's memory bound, or "
                                   "nested too deeply): not parsed", 'line': 0}))
        return
    except (ValueError, RecursionError, UnicodeDecodeError) as e:
        print(wire({'error': '%s: %s' % (type(e).__name__, str(e)[:200]), 'line': 0}))
        return
    ctx = Ctx(req, reply)
    ctx.out = Out(ctx)
    # the program itself: the C side found it and checked where it is
    ctx.files.append(os.path.realpath(path))
    try:
        ctx.texts.append(src.decode('utf-8'))
    except UnicodeDecodeError:
        ctx.texts.append(src.decode('latin-1'))
    ctx.trees.append(tree)
    ev = Evaluator(ctx)
    mod = Mod('__main__', {}, ctx.files[0])
    ctx.mods[ctx.files[0]] = mod
    try:
        try:
            ev.exec_module(mod, tree, 0, '__main__')
            ev.run_entries(mod, req.get('entry') or [])
            ev.run_unreached()
        except Stop as e:
            ctx.stopped = str(e)
        except RecursionError:
            ctx.stopped = 'nested too deeply to evaluate: what was read before is kept'
        except MemoryError:
            ctx.stopped = 'past its memory bound: what was read before is kept'
        if ctx.stopped:
            ctx.note('the evaluation %s' % ctx.stopped)
        ctx.budget += 20000      # room to finish what was read (bounded as well)
        try:
            ctx.out.finish(ev)
        except (Stop, RecursionError, MemoryError):
            pass
        for fid, (t, text) in enumerate(zip(ctx.trees, ctx.texts)):
            scan_trains(t, text, ctx.out, fid)
            scan_usage(t, text, ctx.out, fid, ctx)
            scan_argv(text, ctx.out)
        ctx.out.argv_hidden = argv_unknown(ctx.out, ctx.root)
        if ctx.out.argv_hidden:
            ctx.out.reads_argv = True
        if not ctx.out.trains and ctx.out.infers:
            for fid, t in enumerate(ctx.trees):
                generation_batch(t, ctx.out, fid, ctx)
            for g_ev, key, v, how, node, fr in ctx.out.generation:
                ctx.out.sink(g_ev, key, v, how, node, fr)
        if not ctx.out.trains and ctx.out.infers and ctx.out.infer_at is not None:
            # an inference-only program is estimated as inference, with its own settings (issue #28)
            fid, node = ctx.out.infer_at
            ctx.out.record('sweeplint_mode', K('generate', ctx.site(fid, node)),
                           'the program only runs inference (generate / vLLM, no optimizer or trainer)', node, fid, 2)
        result = ctx.out.to_json()
        result['executable'] = sys.executable  # later runs start it directly (a pyenv shim: 0.4 s a start)
    except MemoryError:
        result = {'error': 'past its memory bound while evaluating', 'line': 0}
    sys.stdout.write(wire(result) + '\n')
    sys.stdout.flush()


main()
