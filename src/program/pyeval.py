# pyeval: the evaluator — statements and expressions of the program and the local modules it imports,
# over the abstract values of pyvalues.py (docs/program.md §2). Parse only: nothing of the program is
# imported or executed; a call into the program's own functions evaluates their body with the values
# given (bounded depth), a call to anything else is an external call the sinks (pysinks.py) may read.

MAX_DEPTH = 12         # nested calls into the program's own functions
MAX_MODULES = 32       # local modules evaluated
MAX_MODULE_BYTES = 256 << 10
MAX_NS_FILES = 64       # modules of a folder without __init__.py looked through for a name it lacks
MAX_TOTAL_BYTES = 2 << 20
MAX_UNROLL = 64        # a loop over a known list longer than this runs its body once, on any item
DEFAULT_BUDGET = 200000  # evaluation steps; the largest corpus program takes 15,000
MAX_CPU = 1.2            # seconds of CPU the evaluation may take (checked every 4096 steps)

# names read the way the builtins are (a program may rebind them: its own binding wins)
BUILTINS = {'dict', 'getattr', 'setattr', 'hasattr', 'str', 'int', 'float', 'bool', 'len', 'vars', 'open',
            'issubclass',
            'list', 'tuple', 'print', 'isinstance', 'range', 'enumerate', 'zip', 'max', 'min', 'super',
            'sorted', 'type', 'repr', 'round', 'abs', 'any', 'all', 'iter', 'next', 'map', 'filter'}



def defines(st, name):
    """Whether top-level statement st binds name: a class, a def, or an assignment to it."""
    if isinstance(st, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return st.name == name
    if isinstance(st, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in st.targets)
    if isinstance(st, ast.AnnAssign):
        return isinstance(st.target, ast.Name) and st.target.id == name
    return False

class Frame(object):
    __slots__ = ('env', 'glob', 'closure', 'mod', 'guard', 'dead', 'returns', 'fid', 'globals_', 'func')

    def __init__(self, env, glob, mod, fid, guard=None, closure=None, func=None):
        self.env = env
        self.glob = glob
        self.closure = closure
        self.mod = mod
        self.fid = fid
        self.guard = guard
        self.dead = None       # 'return' / 'raise' / 'loop' (break, continue): the rest of the block is skipped
        self.returns = None
        self.globals_ = None
        self.func = func


# a guard: None (the code runs), GUARD_UNKNOWN (it may run), or ('p', name, frozenset of pkeys) (it runs in
# the runs where sweep parameter name has one of those values)
GUARD_UNKNOWN = ('?',)


class Params(dict):
    """The sweep's parameters, recording which the evaluation looked at (the answer depends on those only:
    sweeplint's cache keeps it for another sweep that differs elsewhere); '*' when it went through them all."""

    def __init__(self, d):
        dict.__init__(self, d)
        self.used = set()

    def __contains__(self, k):
        self.used.add(k)
        return dict.__contains__(self, k)

    def get(self, k, default=None):
        self.used.add(k)
        return dict.get(self, k, default)

    def __getitem__(self, k):
        self.used.add(k)
        return dict.__getitem__(self, k)

    def __iter__(self):
        self.used.add('*')
        return dict.__iter__(self)

    def keys(self):
        self.used.add('*')
        return dict.keys(self)

    def items(self):
        self.used.add('*')
        return dict.items(self)

    def under(self, prefix):
        """The parameters whose path starts with prefix ("model." for wandb.config.model), recorded as
        that prefix."""
        self.used.add(prefix + '*')
        return [k for k in dict.keys(self) if k.startswith(prefix)]


class Ctx(object):
    def __init__(self, req, reply):
        self.req = req
        self.reply = reply     # (kind, payload) -> the C side's answer (pyread.py)
        # the project root as the C side judges containment (path.h): absent (None) is no bound, '' is no
        # project (nothing is inside)
        root = req.get('root')
        self.root = os.path.realpath(root) if root else ('' if root == '' else '/')
        self.params = Params(req.get('params') or {})
        self.args_mode = req.get('args')     # 'hyphens' / 'no_hyphens' / 'json' / None: how ${args} passes them
        self.argv = req.get('argv') or []    # literal options of the command / shell line: [[key, value, at]]
        self.words = req.get('words') or []  # the words after the program (sys.argv[1:])
        # an option's value a launching program computes (pylaunch.py): argv index (text) -> its word
        av = req.get('argv_values')
        self.argv_values = av if isinstance(av, dict) else {}
        self.budget = int(req.get('budget') or DEFAULT_BUDGET)
        self.ops = 0
        self.depth = 0
        self.stack = []
        self.files = []        # absolute paths of the Python files read; the index is a site's file
        self.texts = []
        self.trees = []
        self.total_bytes = 0
        self.mods = {}         # absolute path -> Mod
        self.sys_path = []     # folders sys.path.append adds (inside the root)
        self.ext_attrs = {}    # (module, name) -> the value the program assigned to an external module's name
        self.funcs = []        # every Func defined in a program file, for the pass over what no call reaches
        self.classes = []
        self.phase = 2         # 2: code a call reaches from the program's top; 1: a function no call reaches
        self.configs = []      # the config files the C side served, in order: a K's site ('cfg', i, key)
        self.config_cache = {}
        self.config_reads = {}  # a served config's index -> the CfgReads of the load that asked for it
        self.out = None        # the Out of pysinks.py
        self.wandb_defaults = D(kind='wandb-defaults')
        self.stopped = None
        self.notes_seen = set()
        self.rels = {}
        self.lines = {}

    def tick(self):
        self.ops += 1
        if self.ops > self.budget:
            raise Stop('stopped after %d evaluation steps (its bound): what was read before is kept' % self.budget)
        if not self.ops & 4095 and time.process_time() > MAX_CPU:
            raise Stop('stopped after %.1f s of CPU (its bound): what was read before is kept' % MAX_CPU)

    def note(self, s, fid=None, node=None):
        """A note for -v; with fid (and node), about that file (at that line)."""
        if node is not None:
            s = '%d: %s' % (getattr(node, 'lineno', 0), s)
        key = (fid, s)
        if key not in self.notes_seen and len(self.notes_seen) < 200:
            self.notes_seen.add(key)
            self.out.notes.append([fid, s])

    def rel(self, fid):
        """A file as the C side shows it: below the root as shown (the request's shown_root), else its name."""
        r = self.rels.get(fid)
        if r is None:
            p = self.files[fid]
            r = p[len(self.root.rstrip('/')) + 1:] if p.startswith(self.root.rstrip('/') + '/') else \
                os.path.basename(p)
            shown = self.req.get('shown_root')
            if shown and shown != '.' and p.startswith(self.root.rstrip('/') + '/'):
                r = shown.rstrip('/') + '/' + r
            self.rels[fid] = r
        return r

    def render(self, step):
        """A provenance step as text (steps are kept as tuples until shown)."""
        if isinstance(step, str):
            return step
        k = step[0]
        if k == 'param':
            return "the sweep's %s = %s" % (step[1], shown(step[2]))
        if k == 'asg':
            return '%s = %s at %s' % (step[1], self.segment(step[2], step[3], 40), self.where(step[2], step[3]))
        if k == 'field':
            return 'dataclass field %s.%s at %s' % (step[1], step[2], self.where(step[3], step[4]))
        if k == 'arg':
            return 'passed as %s to %s() at %s' % (step[1], step[2], self.where(step[3], step[4]))
        if k == 'idx':
            return '[%s] at %s' % (shown(step[1]), self.where(step[2], step[3]))
        if k == 'get':
            return '.get(%s) at %s' % (shown(step[1]), self.where(step[2], step[3]))
        return str(step)

    def where(self, fid, node):
        return '%s:%d' % (self.rel(fid), getattr(node, 'lineno', 0))

    def segment(self, fid, node, limit=60):
        """The source text of node (one line of it at most), from a cached line table."""
        lines = self.lines.get(fid)
        if lines is None:
            lines = self.texts[fid].split('\n')
            self.lines[fid] = lines
        try:
            ln, el = node.lineno, getattr(node, 'end_lineno', node.lineno) or node.lineno
            line = lines[ln - 1].encode('utf-8')
            end = node.end_col_offset if el == ln else len(line)
            s = line[node.col_offset:end].decode('utf-8', 'replace')
        except (AttributeError, IndexError, TypeError):
            s = ''
        s = ' '.join(s.split())
        return s if len(s) <= limit else s[:limit - 3] + '...'

    def site(self, fid, node):
        return (fid, node.lineno, node.col_offset,
                getattr(node, 'end_lineno', None) or node.lineno,
                getattr(node, 'end_col_offset', None) or node.col_offset)

    # -- files ---------------------------------------------------------------------------------------
    def inside(self, path):
        """The containment rule of docs/reliability.md: a file's real path is inside the project root."""
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            return None
        if self.root and (real == self.root or real.startswith(self.root.rstrip('/') + '/')):
            return real
        return None

    def read_source(self, path):
        real = self.inside(path)
        if real is None:
            return None, 'outside the project folder: not read'
        if len(self.files) >= MAX_MODULES + 1:
            return None, 'more than %d local modules: not read' % MAX_MODULES
        try:
            with open(real, 'rb') as f:
                src = f.read(MAX_MODULE_BYTES + 1)
        except OSError as e:
            return None, 'cannot read: %s' % e.strerror
        if len(src) > MAX_MODULE_BYTES:
            return None, 'larger than %d KiB: not parsed' % (MAX_MODULE_BYTES >> 10)
        if self.total_bytes + len(src) > MAX_TOTAL_BYTES:
            return None, 'the modules read pass %d MiB: not parsed' % (MAX_TOTAL_BYTES >> 20)
        self.total_bytes += len(src)
        try:
            tree = ast.parse(src)
        except SyntaxError as e:
            return None, 'syntax error: %s (line %s)' % (e.msg, e.lineno)
        except MemoryError:
            return None, "python's parser ran out of memory (past the evaluator's memory bound)"
        except (ValueError, RecursionError, UnicodeDecodeError) as e:
            return None, '%s: %s' % (type(e).__name__, str(e)[:200])
        try:
            text = src.decode('utf-8')
        except UnicodeDecodeError:
            text = src.decode('latin-1')
        self.files.append(real)
        self.texts.append(text)
        self.trees.append(tree)
        return tree, None


# ---- the evaluator ---------------------------------------------------------------------------------

class Evaluator(object):
    def __init__(self, ctx):
        self.c = ctx

    # -- modules -------------------------------------------------------------------------------------
    def run_main(self, path):
        c = self.c
        tree, err = c.read_source(path)
        if tree is None:
            return err
        mod = Mod('__main__', {}, path)
        c.mods[c.files[0]] = mod
        self.exec_module(mod, tree, 0, '__main__')
        return None

    def exec_module(self, mod, tree, fid, name):
        mod.env['__name__'] = K(name)
        mod.env['__file__'] = K(self.c.files[fid])
        fr = Frame(mod.env, mod.env, mod, fid)
        self.block(tree.body, fr)
        mod.done = True

    def module_file(self, dotted, base_dirs):
        rel = dotted.replace('.', '/')
        for d in base_dirs:
            if not d:
                continue
            for cand in (os.path.join(d, rel + '.py'), os.path.join(d, rel, '__init__.py')):
                if os.path.isfile(cand):
                    return cand
        return None

    def import_dirs(self, fr):
        c = self.c
        here = os.path.dirname(c.files[fr.fid])
        return [here, os.path.dirname(c.files[0]), c.root] + c.sys_path

    def add_sys_path(self, v, fr):
        """sys.path.append(X) / insert(i, X) with X known: the folder X names inside the project (X relative
        to the program, to the root, or a tail of it: 'repo/src' run from the repository's parent)."""
        c = self.c
        if not (isinstance(v, K) and isinstance(v.v, str)) or len(c.sys_path) >= 8:
            return
        x = v.v
        cands = [x] if os.path.isabs(x) else [os.path.join(os.path.dirname(c.files[fr.fid]), x), os.path.join(c.root, x)]
        parts = [p for p in x.split('/') if p and p != '.']
        for i in range(1, len(parts)):
            cands.append(os.path.join(c.root, *parts[i:]))
        for d in cands:
            real = c.inside(d)
            if real and os.path.isdir(real) and real not in c.sys_path:
                c.sys_path.append(real)
                return

    def load_module(self, dotted, fr, level=0):
        """The Mod of a local module (evaluated once), or None when it is not the project's."""
        c = self.c
        if level:
            base = os.path.dirname(c.files[fr.fid])
            for _ in range(level - 1):
                base = os.path.dirname(base)
            path = self.module_file(dotted, [base]) if dotted else (
                os.path.join(base, '__init__.py') if os.path.isfile(os.path.join(base, '__init__.py')) else None)
        else:
            path = self.module_file(dotted, self.import_dirs(fr))
        if path is None:
            ns = self.namespace_package(dotted, fr) if not level else None
            if ns is not None:
                return ns
            # not the project's (a library), or the project's but not here (a relative import): whether it
            # reads the command line is not known from here (pyread.py argv_unknown)
            rel = dotted.replace('.', '/')
            if level or not any(d and os.path.isdir(os.path.join(d, rel)) for d in self.import_dirs(fr)):
                c.out.ext_imports.add('.' if level else dotted.split('.')[0])   # (a folder: a namespace package)
            return None
        real = c.inside(path)
        if real is None:
            c.note('module %s (%s): outside the project folder: not read' % (dotted, path))
            c.out.ext_imports.add('.')
            return None
        if real in c.mods:
            return c.mods[real]     # an import cycle gets the module as far as it is evaluated, as Python does
        tree, err = c.read_source(real)
        if tree is None:
            c.note('module %s not read: %s' % (dotted, err))
            c.out.ext_imports.add('.')
            c.mods[real] = None
            return None
        fid = len(c.files) - 1
        mod = Mod(dotted, {}, real)
        c.mods[real] = mod
        c.out.modules.append((dotted, fid))
        saved = c.depth
        c.depth += 1
        if c.depth > MAX_DEPTH:
            c.note('module %s: imports nested past %d levels: not evaluated' % (dotted, MAX_DEPTH))
        else:
            self.exec_module(mod, tree, fid, dotted)
        c.depth = saved
        return mod

    def namespace_package(self, dotted, fr):
        """A folder of the project without __init__.py that a program imports from (an implicit namespace
        package, PEP 420): a module with nothing of its own, whose submodules load as attributes."""
        c = self.c
        rel = dotted.replace('.', '/')
        for d in self.import_dirs(fr):
            cand = os.path.join(d, rel) if d else None
            if cand and os.path.isdir(cand):
                real = c.inside(cand)
                if real is None:
                    return None
                key = real + '/'
                if key not in c.mods:
                    m = Mod(dotted, {}, key)
                    m.done = True
                    c.mods[key] = m
                return c.mods[key]
        return None

    def namespace_name(self, m, modname, name, fr):
        """`from pkg import Name` where pkg is a folder with no __init__.py here: Python finds Name only through
        a package __init__ this checkout lacks (a partial copy of the repository), which re-exports it from
        one of the folder's modules. The one module of the folder that defines Name at its top level (a
        class, a def or an assignment) is read for it; none or several: not read."""
        c = self.c
        folder = m.file[:-1]
        try:
            files = sorted(f for f in os.listdir(folder) if f.endswith('.py'))[:MAX_NS_FILES]
        except OSError:
            return None
        found = []
        for f in files:
            real = c.inside(os.path.join(folder, f))
            if real is None:
                continue
            try:
                with open(real, 'rb') as fh:
                    text = fh.read(MAX_MODULE_BYTES + 1)
                if len(text) > MAX_MODULE_BYTES:
                    continue
                tree = ast.parse(text)
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            if any(defines(st, name) for st in tree.body):
                found.append(f[:-3])
        if len(found) != 1:
            return None
        dotted = (modname + '.' if modname else '') + found[0]
        sub = self.load_module(dotted, fr)
        if not isinstance(sub, Mod) or name not in sub.env:
            return None
        c.note('%s has no __init__.py here: %s read from %s, the one module of the folder that defines it'
               % (modname or '.', name, dotted))
        return sub.env[name]

    def import_value(self, dotted, fr, level=0):
        m = self.load_module(dotted, fr, level) if dotted or level else None
        if m is not None:
            return m
        return Ext(dotted)

    def do_import(self, st, fr):
        self.c.out.imports.extend(a.name for a in st.names)
        for a in st.names:
            if a.asname:
                self.store_name(a.asname, self.import_value(a.name, fr), fr)
            else:
                top = a.name.split('.')[0]
                v = self.import_value(top, fr)
                self.store_name(top, v, fr)
                # import a.b: loads a.b too (reached as an attribute of a)
                if '.' in a.name and isinstance(v, Mod):
                    self.import_value(a.name, fr)

    def do_import_from(self, st, fr):
        modname = st.module or ''
        if st.level == 0 and modname:
            self.c.out.imports.append(modname)
            if modname.split('.')[0] == 'vllm':
                self.c.out.infers = True
        m = self.load_module(modname, fr, st.level) if (modname or st.level) else None
        for a in st.names:
            if a.name == '*':
                if isinstance(m, Mod):
                    for k, v in list(m.env.items()):
                        if not k.startswith('_'):
                            fr.env[k] = v
                continue
            name = a.asname or a.name
            if isinstance(m, Mod):
                v = m.env.get(a.name)
                if v is None:
                    sub = self.load_module((modname + '.' if modname else '') + a.name, fr, st.level)
                    if sub is None and m.file.endswith('/'):
                        sub = self.namespace_name(m, modname, a.name, fr)
                    v = sub if sub is not None else U('%s is not set in %s' % (a.name, modname or '.'))
                self.store_name(name, v, fr)
            else:
                self.store_name(name, Ext((modname + '.' if modname else '') + a.name), fr)

    # -- names ---------------------------------------------------------------------------------------
    def lookup(self, name, fr):
        if name in fr.env:
            return fr.env[name]
        cl = fr.closure
        while cl is not None:
            env, cl = cl
            if name in env:
                return env[name]
        if name in fr.glob:
            return fr.glob[name]
        if name in BUILTINS:
            return Builtin(name)
        return Ext(name)           # not bound in the program: an external or builtin name

    def store_name(self, name, v, fr):
        if fr.globals_ and name in fr.globals_:
            fr.glob[name] = v
        else:
            fr.env[name] = v

    # -- statements ----------------------------------------------------------------------------------
    def block(self, stmts, fr):
        for st in stmts:
            if fr.dead:
                return
            self.stmt(st, fr)

    def stmt(self, st, fr):
        c = self.c
        c.tick()
        try:
            self._stmt(st, fr)
        except RecursionError:
            c.note('nested too deeply to evaluate: not read', fr.fid, st)

    def _stmt(self, st, fr):
        t = type(st)
        if t is ast.Expr:
            self.ev(st.value, fr)
        elif t is ast.Assign:
            v = self.ev(st.value, fr)
            for tgt in st.targets:
                self.assign(tgt, v, st.value, fr)
        elif t is ast.AnnAssign:
            if st.value is not None:
                self.assign(st.target, self.ev(st.value, fr), st.value, fr)
        elif t is ast.AugAssign:
            cur = self.ev(st.target, fr) if isinstance(st.target, (ast.Name, ast.Attribute, ast.Subscript)) else UNK
            self.assign(st.target, self.binop(st.op, cur, self.ev(st.value, fr), st, fr), st.value, fr)
        elif t is ast.If:
            self.exec_if(st, fr)
        elif t in (ast.For, ast.AsyncFor):
            self.exec_for(st, fr)
        elif t is ast.While:
            self.ev(st.test, fr)
            self.loop_once(st.body, fr)
            self.block(st.orelse, fr)
        elif t in (ast.With, ast.AsyncWith):
            for item in st.items:
                v = self.ev(item.context_expr, fr)
                if item.optional_vars is not None:
                    if isinstance(v, Ext) and v.qual == 'open()' and v.data:
                        pass
                    self.assign(item.optional_vars, v, item.context_expr, fr)
            self.block(st.body, fr)
        elif t is ast.Try or type(st).__name__ == 'TryStar':
            self.block(st.body, fr)
            for h in st.handlers:
                self.branches([(h.body, GUARD_UNKNOWN)], fr, keep_guard=True)
            self.block(st.orelse, fr)
            self.block(st.finalbody, fr)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef):
            self.define_function(st, fr)
        elif t is ast.ClassDef:
            self.define_class(st, fr)
        elif t is ast.Return:
            v = self.ev(st.value, fr) if st.value is not None else K(None)
            if fr.returns is not None:
                fr.returns.append((fr.guard, v))
            fr.dead = 'return'
        elif t is ast.Raise:
            if st.exc is not None:
                self.ev(st.exc, fr)
            fr.dead = 'raise'
        elif t in (ast.Break, ast.Continue):
            fr.dead = 'loop'
        elif t is ast.Import:
            self.do_import(st, fr)
        elif t is ast.ImportFrom:
            self.do_import_from(st, fr)
        elif t in (ast.Global, ast.Nonlocal):
            fr.globals_ = (fr.globals_ or set()) | set(st.names)
        elif type(st).__name__ == 'Match':
            self.ev(st.subject, fr)
            self.branches([(case.body, GUARD_UNKNOWN) for case in st.cases], fr, keep_guard=True,
                          may_skip=True)
        # pass, assert, delete: nothing a setting depends on

    def assign(self, tgt, v, vnode, fr):
        c = self.c
        if isinstance(tgt, ast.Name):
            if vnode is not None and not isinstance(vnode, ast.Constant) and isinstance(v, (K, P)):
                v = with_why(v, ('asg', tgt.id, fr.fid, vnode))
            self.store_name(tgt.id, v, fr)
        elif isinstance(tgt, (ast.Tuple, ast.List)):
            items = None
            if isinstance(v, L):
                items = v.items
            elif isinstance(v, K) and isinstance(v.v, (list, tuple)):
                items = [K(x, v.site, v.why) for x in v.v]
            star = [i for i, e in enumerate(tgt.elts) if isinstance(e, ast.Starred)]
            for i, e in enumerate(tgt.elts):
                if isinstance(e, ast.Starred):
                    self.assign(e.value, UNK, None, fr)
                    continue
                x = items[i] if items is not None and not star and len(items) == len(tgt.elts) else UNK
                self.assign(e, x, None, fr)
        elif isinstance(tgt, ast.Attribute):
            obj = self.ev(tgt.value, fr)
            if isinstance(obj, Ext) and not obj.made and obj.qual == 'wandb' and tgt.attr == 'config' and \
                    self.c.out.wandb_replaced is None:
                self.c.out.wandb_replaced = (fr.fid, tgt.lineno)     # wandb.config = json.load(f)
            vision_replaced(self, obj, tgt, v, fr)                  # a ViT's head or patch conv replaced
            self.set_attr(obj, tgt.attr, v, fr)
            if isinstance(obj, Ext) and obj.made:
                attr_sink(self, obj, tgt.attr, v, tgt, fr)    # model.max_seq_length = 256 (pysinks.py)
        elif isinstance(tgt, ast.Subscript):
            obj = self.ev(tgt.value, fr)
            key = self.ev(tgt.slice if not isinstance(tgt.slice, ast.Index) else tgt.slice.value, fr)
            if isinstance(key, K) and isinstance(key.v, str):
                self.set_attr(obj, key.v, v, fr)
            elif isinstance(obj, D):
                obj.open = True
        elif isinstance(tgt, ast.Starred):
            self.assign(tgt.value, UNK, None, fr)

    def set_attr(self, obj, name, v, fr):
        """obj.name = v (also obj[name] = v on mappings); under a guard, the old value stays for other runs."""
        if isinstance(obj, (D, Inst, Cls, Mod)):
            store = obj.items if isinstance(obj, D) else obj.env if isinstance(obj, Mod) else obj.attrs
            old = store.get(name)
            if fr.guard is not None and old is not None:
                v = self.guarded(fr.guard, v, old)
            elif fr.guard is not None and isinstance(obj, D) and not obj.open:
                v = self.guarded(fr.guard, v, UNSET)
            store[name] = v
        elif isinstance(obj, WandbConfig):
            obj.assign(name, v)
        elif isinstance(obj, Ext) and not obj.made:
            # a module's attribute replaced (wandb.config = json.load(f)): read back as assigned
            self.c.ext_attrs[(obj.qual, name)] = v

    def guarded(self, guard, new, old):
        """new in the runs guard holds, old in the others."""
        if guard is None:
            return new
        if guard is GUARD_UNKNOWN:
            return one_of([new, old])
        _, name, keys = guard
        spec = self.c.params.get(name) or {}
        xs = spec.get('values') or []
        cases = {}
        for x in xs:
            k = pkey(x)
            cases[k] = at_param(new, name, x) if k in keys else at_param(old, name, x)
        return M(name, xs, cases)

    # -- control flow --------------------------------------------------------------------------------
    def truth(self, v):
        """True / False when decided; ('p', name, true_keys, false_keys) when one sweep parameter decides it;
        None when unknown."""
        if isinstance(v, K):
            return bool(v.v)
        if isinstance(v, (D, L, Mod, Func, Cls, Inst, Bound)):
            if isinstance(v, D) and not v.items and not v.open:
                return False
            if isinstance(v, L) and not v.items:
                return False
            return True if not isinstance(v, (D, L)) or v.items else None
        if isinstance(v, OneOf):
            ts = set(self.truth(o) if o is not UNSET else False for o in v.opts)
            return ts.pop() if len(ts) == 1 and None not in ts else None
        pv = param_values(v)
        if pv is not None:
            name, xs = pv
            t, f = set(), set()
            for x in xs:
                tx = self.truth(at_param(v, name, x))
                if tx is True:
                    t.add(pkey(x))
                elif tx is False:
                    f.add(pkey(x))
                else:
                    return None
            if not f:
                return True
            if not t:
                return False
            return ('p', name, frozenset(t), frozenset(f))
        return None

    def narrow(self, guard, t, which):
        """The guard of the branch `which` (True: the test holds) of a test whose truth is t."""
        if t is None:
            return GUARD_UNKNOWN
        _, name, tk, fk = t
        keys = tk if which else fk
        if guard is None:
            return ('p', name, keys)
        if guard is GUARD_UNKNOWN:
            return GUARD_UNKNOWN
        if guard[1] == name:
            return ('p', name, guard[2] & keys)
        return GUARD_UNKNOWN

    def exec_if(self, st, fr):
        # an elif chain is walked, not recursed into (a 10,000-branch chain is one loop)
        arms = []
        node = st
        while True:
            arms.append((node.test, node.body))
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                node = node.orelse[0]
                continue
            orelse = node.orelse
            break
        guard = fr.guard
        env = fr.env
        outs = []
        rest_live = True
        for test, body in arms:
            self.c.tick()
            sub = self.sub_frame(fr, env, guard)
            t = self.truth(self.ev(test, sub))
            if t is False:
                continue
            if t is True:
                self.block(body, sub)
                outs.append(sub)
                rest_live = False
                break
            if isinstance(t, tuple) and t[0] == 'p' and guard is not None and guard is not GUARD_UNKNOWN \
                    and guard[1] == t[1]:
                if not (guard[2] & t[2]):
                    continue                      # never holds where this code runs
                if guard[2] <= t[2]:
                    self.block(body, sub)         # always holds where this code runs
                    outs.append(sub)
                    rest_live = False
                    break
            sub.guard = self.narrow(guard, t, True)
            self.block(body, sub)
            outs.append(sub)
            env = dict(env)
            guard = self.narrow(guard, t, False)
        if rest_live:
            sub = self.sub_frame(fr, env, guard)
            self.block(orelse, sub)
            outs.append(sub)
        self.merge(fr, outs)

    def sub_frame(self, fr, env, guard):
        sub = Frame(dict(env), fr.glob if fr.glob is not fr.env else None, fr.mod, fr.fid, guard, fr.closure, fr.func)
        if fr.glob is fr.env:
            sub.glob = sub.env            # at module level the branch's names are the module's
        sub.returns = fr.returns
        sub.globals_ = fr.globals_
        return sub

    def merge(self, fr, outs):
        live = [s for s in outs if not s.dead or s.dead == 'loop']
        loop_dead = all(s.dead == 'loop' for s in outs) and outs
        if not live:
            fr.dead = outs[0].dead if outs else fr.dead
            if fr.dead == 'loop' or not outs:
                fr.dead = 'loop' if outs else None
            else:
                fr.dead = 'return'
            return
        if len(live) == 1:
            s = live[0]
            self.adopt(fr, s.env)
            g = s.guard
            if g is GUARD_UNKNOWN and fr.guard is not GUARD_UNKNOWN:
                g = fr.guard                      # the rest runs unless a branch we cannot decide returned
            fr.guard = g
            if loop_dead:
                fr.dead = 'loop'
            return
        keys = set()
        for s in live:
            keys.update(s.env)
        merged = {}
        for k in keys:
            vals = [s.env.get(k) for s in live]
            first = vals[0]
            if all(v is first for v in vals):
                merged[k] = first
                continue
            merged[k] = self.join_branches([(s.guard, v if v is not None else UNK) for s, v in zip(live, vals)])
        self.adopt(fr, merged)
        guards = [s.guard for s in live]
        fr.guard = self.union_guards(guards, fr.guard)

    def adopt(self, fr, env):
        if fr.glob is fr.env:
            fr.env.clear()
            fr.env.update(env)
        else:
            fr.env = env

    def union_guards(self, guards, before):
        """The guard after branches that ran under guards: back to before when together they cover it."""
        if any(g is None for g in guards):
            return before
        if all(g is not GUARD_UNKNOWN for g in guards) and len(set(g[1] for g in guards)) == 1:
            name = guards[0][1]
            keys = frozenset().union(*[g[2] for g in guards])
            if before is None:
                xs = (self.c.params.get(name) or {}).get('values') or []
                if keys >= frozenset(pkey(x) for x in xs):
                    return None
                return ('p', name, keys)
            if before is not GUARD_UNKNOWN and before[1] == name and keys >= before[2]:
                return before
            return ('p', name, keys) if before is not GUARD_UNKNOWN else before
        return before

    def join_branches(self, pairs, ordered=False):
        """One value from the values of several branches, each under its guard. ordered: the pairs are the
        returns of a function in the order they run (the first that holds for a value wins; one under an
        undecided guard may or may not)."""
        gs = [g for g, _ in pairs]
        params = set(g[1] for g in gs if g is not None and g is not GUARD_UNKNOWN)
        if ordered and len(params) == 1 and all(g is not None for g in gs):
            name = params.pop()
            xs = (self.c.params.get(name) or {}).get('values') or []
            cases = {}
            for x in xs:
                k = pkey(x)
                maybe = []
                for g, v in pairs:
                    if g is GUARD_UNKNOWN:
                        maybe.append(at_param(v, name, x))
                    elif k in g[2]:
                        cases[k] = at_param(v, name, x) if not maybe else one_of(maybe + [at_param(v, name, x)])
                        break
                else:
                    cases[k] = one_of(maybe) if maybe else UNK
            return M(name, xs, cases)
        if all(g is not None and g is not GUARD_UNKNOWN for g in gs) and len(set(g[1] for g in gs)) == 1:
            name = gs[0][1]
            spec = self.c.params.get(name) or {}
            xs = spec.get('values') or []
            cases = {}
            for x in xs:
                k = pkey(x)
                for g, v in pairs:
                    if k in g[2]:
                        cases[k] = at_param(v, name, x)
                        break
                else:
                    cases[k] = UNK
            return M(name, xs, cases)
        return one_of([v for _, v in pairs])

    def exec_for(self, st, fr):
        if module_loop(self, st, fr):          # modules appended in `for _ in range(n)` (pymodules.py)
            return
        it = self.ev(st.iter, fr)
        items = None
        if isinstance(it, L):
            items = it.items
        elif isinstance(it, K) and isinstance(it.v, (list, tuple, str)) and not isinstance(it.v, str):
            items = [K(x, it.site, it.why) for x in it.v]
        elif isinstance(it, D) and not it.open:
            items = [K(k) for k in it.items]
        if items is not None and 0 < len(items) <= MAX_UNROLL:
            for x in items:
                if fr.dead:
                    break
                self.assign(st.target, x, None, fr)
                self.block(st.body, fr)
                if fr.dead == 'loop':
                    fr.dead = None
            self.block(st.orelse, fr)
            return
        self.assign(st.target, one_of(items) if items else UNK, None, fr)
        self.loop_once(st.body, fr)
        self.block(st.orelse, fr)

    def loop_once(self, body, fr):
        """A loop whose iterations are not known: its body once, as a branch that may not run."""
        self.branches([(body, GUARD_UNKNOWN)], fr, keep_guard=True, may_skip=True)

    def branches(self, arms, fr, keep_guard=False, may_skip=True):
        outs = []
        before = fr.guard
        for body, g in arms:
            sub = self.sub_frame(fr, fr.env, g if before is None else (GUARD_UNKNOWN if g is not None else before))
            self.block(body, sub)
            if sub.dead in ('return', 'raise'):
                sub.dead = None               # a return inside a loop or a handler: the rest still runs
                sub.guard = GUARD_UNKNOWN
            outs.append(sub)
        if may_skip:
            skip = self.sub_frame(fr, fr.env, GUARD_UNKNOWN)
            outs.append(skip)
        for s in outs:
            if s.dead == 'loop':
                s.dead = None
        self.merge(fr, outs)
        if keep_guard:
            fr.guard = before

    # -- definitions ---------------------------------------------------------------------------------
    def define_function(self, st, fr):
        c = self.c
        closure = None if fr.env is fr.glob else (fr.env, fr.closure)
        f = Func(st, fr.mod, closure)
        f.cls = None
        # defaults are evaluated where the function is defined, as Python does
        a = st.args
        f.defaults = [self.ev(d, fr) for d in a.defaults]
        f.kw_defaults = [self.ev(d, fr) if d is not None else None for d in a.kw_defaults]
        v = f
        for dec in reversed(st.decorator_list):
            v = self.decorate(dec, v, fr)
        self.store_name(st.name, v, fr)
        c.funcs.append(f)

    def decorate(self, dec, f, fr):
        c = self.c
        name, base = callee_name(dec.func if isinstance(dec, ast.Call) else dec)
        if name == 'main' and base == 'hydra' and isinstance(dec, ast.Call):
            info = {'config_path': kw_literal(dec, 'config_path'), 'config_name': kw_literal(dec, 'config_name'),
                    'line': dec.lineno, 'fid': fr.fid}
            c.out.hydra_call(info)
            if isinstance(f, Func):
                f.entry = ('hydra', info)
            return f
        if name in ('classmethod', 'staticmethod') and isinstance(f, Func):
            f.mkind = name
            return f
        if isinstance(dec, ast.Call):
            self.ev(dec, fr)
        return f

    def define_class(self, st, fr):
        c = self.c
        bases = [self.ev(b, fr) for b in st.bases]
        env = {}
        cls = Cls(st, fr.mod, env, bases, None)
        is_dc = any(is_dataclass_decorator(d) for d in st.decorator_list) or \
            any(isinstance(b, Cls) and b.fields is not None for b in bases)
        sub = Frame(env, fr.glob, fr.mod, fr.fid, fr.guard, None if fr.env is fr.glob else (fr.env, fr.closure))
        fields = []
        if is_dc:
            for b in bases:
                if isinstance(b, Cls) and b.fields:
                    fields.extend(b.fields)
        for item in st.body:
            if sub.dead:
                break
            if is_dc and isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                fields.append(self.dataclass_field(st, item, sub))
                continue
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.define_function(item, sub)
                f = env.get(item.name)
                if isinstance(f, Func):
                    f.cls = cls
                continue
            self.stmt(item, sub)
        if is_dc:
            cls.fields = fields
        c.classes.append(cls)
        self.store_name(st.name, cls, fr)

    def dataclass_field(self, cls_node, item, fr):
        """A dataclass field: (name, default value or None); its literal default is a declaration."""
        c = self.c
        name = item.target.id
        node = item.value
        if node is None:
            return (name, None)
        # dataclasses.field(default=...), dargparser's dArg(default=..., aliases=...)
        if isinstance(node, ast.Call) and callee_name(node.func)[0] in ('field', 'dArg'):
            d = next((k.value for k in node.keywords if k.arg == 'default'), None)
            if d is None:
                return (name, None)
            node = d
        v = self.ev(node, fr)
        if isinstance(v, K) and is_setting_value(v.v) and v.site is not None and v.site[0] == fr.fid and \
                v.site[1] == node.lineno and v.site[2] == node.col_offset:
            c.out.declare(name, v, 'dataclass field %s.%s' % (cls_node.name, name))
        return (name, with_why(v, ('field', cls_node.name, name, fr.fid, node)))

    # -- calls into the program's own code ------------------------------------------------------------
    def call_func(self, f, self_, args, kwargs, call_node, fr):
        c = self.c
        if f in c.stack:
            c.note('%s() calls itself: its result is not evaluated' % f.node.name, fr.fid, call_node)
            return UNK
        if c.depth >= MAX_DEPTH:
            c.note('calls nested past %d levels: %s() is not evaluated' % (MAX_DEPTH, f.node.name), fr.fid,
                   call_node)
            return UNK
        f.called = True
        if f.entry and f.entry[0] == 'hydra' and not args and self_ is None:
            # main() under @hydra.main: Hydra passes the composed config
            cfg = self.hydra_config(f.entry[1])
            if cfg is not None:
                args = [(None, cfg)]
        env = self.bind(f, self_, args, kwargs, fr, call_node)
        fid = self.fid_of(f)
        sub = Frame(env, f.mod.env, f.mod, fid, fr.guard, f.closure, f)
        sub.returns = []
        c.stack.append(f)
        c.depth += 1
        try:
            self.block(f.node.body, sub)
        finally:
            c.depth -= 1
            c.stack.pop()
        if not sub.dead:
            sub.returns.append((sub.guard, K(None)))
        if not sub.returns:
            return UNK
        if all(g is fr.guard or g == fr.guard for g, _ in sub.returns) or len(sub.returns) == 1:
            return one_of([v for _, v in sub.returns])
        return self.join_branches(sub.returns, ordered=True)

    def fid_of(self, f):
        c = self.c
        try:
            return c.files.index(f.mod.file) if f.mod.file in c.files else 0
        except ValueError:
            return 0

    def bind(self, f, self_, args, kwargs, fr, call_node):
        c = self.c
        a = f.node.args
        params = list(getattr(a, 'posonlyargs', [])) + list(a.args)
        env = {}
        pos = list(args)
        if self_ is not None and params:
            env[params[0].arg] = self_
            params = params[1:]
        nd = len(f.defaults)
        first_default = len(params) - nd
        where = call_node is not None
        for i, p in enumerate(params):
            if i < len(pos):
                v = pos[i][1]
            elif p.arg in kwargs:
                v = kwargs.pop(p.arg)[1]
            elif i >= first_default:
                v = f.defaults[i - first_default]
            else:
                v = UNK
            env[p.arg] = with_why(v, ('arg', p.arg, f.node.name, fr.fid, call_node)) if where else v
        if a.vararg is not None:
            env[a.vararg.arg] = L([x for _, x in pos[len(params):]])
        for p, d in zip(a.kwonlyargs, f.kw_defaults):
            if p.arg in kwargs:
                env[p.arg] = kwargs.pop(p.arg)[1]
            else:
                env[p.arg] = d if d is not None else UNK
        if a.kwarg is not None:
            env[a.kwarg.arg] = D(dict((k, v) for k, (_, v) in kwargs.items()), open_=bool(kwargs.get(None)))
        return env

    def instantiate(self, cls, args, kwargs, node, fr):
        c = self.c
        inst = Inst(cls)
        fields = cls.fields
        if fields is not None:
            given = dict((k, v) for k, (_, v) in kwargs.items() if k)
            for i, (name, d) in enumerate(fields):
                if i < len(args):
                    inst.attrs[name] = args[i][1]
                elif name in given:
                    inst.attrs[name] = given[name]
                else:
                    inst.attrs[name] = d if d is not None else UNK
        init = self.find_method(cls, '__init__')
        if init is not None:
            self.call_func(init, inst, args, dict(kwargs), node, fr)
        cls.last = inst
        module_instance(self, inst, node, fr)   # an nn.Module subclass's instance (pymodules.py)
        # a subclass of an external class (a Trainer subclass, an nn.Module) is that class for the sinks
        for b in self.ext_bases(cls):
            self.external_call(b, args, kwargs, node, fr, made=inst)
        return inst

    def is_subclass(self, x, y, depth=0):
        if x is y:
            return True
        return depth < 8 and any(isinstance(b, Cls) and self.is_subclass(b, y, depth + 1) for b in x.bases)

    def ext_bases(self, cls, depth=0):
        out = []
        for b in cls.bases:
            if isinstance(b, Ext):
                out.append(b)
            elif isinstance(b, Cls) and depth < 8:
                out.extend(self.ext_bases(b, depth + 1))
        return out

    def find_method(self, cls, name, depth=0):
        f = cls.attrs.get(name)
        if isinstance(f, Func):
            return f
        if depth < 8:
            for b in cls.bases:
                if isinstance(b, Cls):
                    m = self.find_method(b, name, depth + 1)
                    if m is not None:
                        return m
        return None

    # -- expressions --------------------------------------------------------------------------------
    def ev(self, node, fr):
        c = self.c
        c.tick()
        t = type(node)
        if t is ast.Constant:
            v = node.value
            if v is None or isinstance(v, (str, int, float, bool)):
                return K(v, c.site(fr.fid, node))
            return UNK
        if t is ast.Name:
            return self.lookup(node.id, fr)
        if t is ast.Attribute:
            return self.get_attr(self.ev(node.value, fr), node.attr, node, fr)
        if t is ast.Call:
            return self.call(node, fr)
        if t is ast.Subscript:
            sl = node.slice
            if isinstance(sl, ast.Index):          # Python 3.8
                sl = sl.value
            return self.get_item(self.ev(node.value, fr), self.ev(sl, fr), node, fr)
        if t is ast.UnaryOp:
            v = self.ev(node.operand, fr)
            if isinstance(node.op, ast.Not):
                tv = self.truth(v)
                if tv is True or tv is False:
                    return K(not tv)
                return lift(lambda x: K(not x.v) if isinstance(x, K) else UNK, v)
            if isinstance(node.op, ast.USub):
                return lift(lambda x: K(-x.v, c.site(fr.fid, node), x.why)
                            if isinstance(x, K) and isinstance(x.v, (int, float)) and not isinstance(x.v, bool)
                            else UNK, v)
            return UNK
        if t in (ast.List, ast.Tuple, ast.Set):
            if len(node.elts) > MAX_ITEMS:
                return U('a list of %d items' % len(node.elts))
            items = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    sv = self.ev(e.value, fr)
                    if isinstance(sv, L):
                        items.extend(sv.items)
                        continue
                    return UNK
                items.append(self.ev(e, fr))
            if not items and t is ast.List:
                return L([], c.site(fr.fid, node))  # an empty list the program may append modules to
            if all(isinstance(x, K) and is_scalar(x.v) for x in items):
                return K([x.v for x in items], c.site(fr.fid, node))
            return L(items, c.site(fr.fid, node))
        if t is ast.Dict:
            if len(node.keys) > MAX_ITEMS:
                return U('a dict of %d items' % len(node.keys))
            d = D(site=c.site(fr.fid, node))
            for k, vn in zip(node.keys, node.values):
                if k is None:                       # {**other}
                    o = self.ev(vn, fr)
                    if isinstance(o, D):
                        d.items.update(o.items)
                        d.open = d.open or o.open
                    else:
                        d.open = True
                    continue
                kv = self.ev(k, fr)
                if isinstance(kv, K) and is_scalar(kv.v):
                    d.items[kv.v if isinstance(kv.v, str) else str(kv.v)] = self.ev(vn, fr)
                else:
                    d.open = True
            objs = [v for v in d.items.values() if choice_object(v)]
            if len(objs) >= 2 and len(set(choice_object(v) for v in objs)) == 1:
                # two configs of one kind in one mapping are alternatives: none is a setting until the program
                # picks one (a lookup decides it; the table is shared by its objects)
                table = {'picked': False, 'kind': choice_object(objs[0]), 'site': (fr.fid, node)}
                for o in objs:
                    o.data['table'] = table
            return d
        if t is ast.IfExp:
            tv = self.truth(self.ev(node.test, fr))
            if tv is True:
                return self.ev(node.body, fr)
            if tv is False:
                return self.ev(node.orelse, fr)
            a = self.ev(node.body, fr)
            b = self.ev(node.orelse, fr)
            if tv is None:
                return one_of([a, b])
            _, name, tk, fk = tv
            return self.join_branches([(('p', name, tk), a), (('p', name, fk), b)])
        if t is ast.BoolOp:
            vals = node.values
            cur = self.ev(vals[0], fr)
            for nxt in vals[1:]:
                tv = self.truth(cur)
                is_or = isinstance(node.op, ast.Or)
                if tv is (not is_or):
                    cur = self.ev(nxt, fr)
                elif tv is is_or:
                    return cur
                else:
                    other = self.ev(nxt, fr)
                    if isinstance(tv, tuple):
                        _, name, tk, fk = tv
                        keep, go = (tk, fk) if is_or else (fk, tk)
                        cur = self.join_branches([(('p', name, keep), cur), (('p', name, go), other)])
                    else:
                        cur = one_of([cur, other]) if is_or else UNK
            return cur
        if t is ast.Compare:
            return self.compare(node, fr)
        if t is ast.BinOp:
            return self.binop(node.op, self.ev(node.left, fr), self.ev(node.right, fr), node, fr)
        if t is ast.JoinedStr:
            parts = []
            for p in node.values:
                if isinstance(p, ast.Constant):
                    parts.append(K(p.value))
                elif isinstance(p, ast.FormattedValue):
                    if p.format_spec is not None:
                        return UNK
                    parts.append(self.ev(p.value, fr))
                else:
                    return UNK

            def fmt(*xs):
                if all(isinstance(x, K) and is_scalar(x.v) for x in xs):
                    s = ''.join(x.v if isinstance(x.v, str) else py_str(x.v) for x in xs)
                    return K(s, c.site(fr.fid, node), ()) if len(s) <= MAX_STR else UNK
                return UNK
            return lift(fmt, *parts)
        if t is ast.NamedExpr:
            v = self.ev(node.value, fr)
            self.assign(node.target, v, node.value, fr)
            return v
        if t is ast.Starred:
            return self.ev(node.value, fr)
        if t is ast.Lambda:
            # a function of one expression: a Func whose body returns it (wandb.agent(function=lambda: train(args)))
            fd = ast.FunctionDef(name='<lambda>', args=node.args, body=[ast.Return(value=node.body)],
                                 decorator_list=[], returns=None)
            ast.copy_location(fd, node)
            fd.body[0].lineno, fd.body[0].col_offset = node.lineno, node.col_offset
            f = Func(fd, fr.mod, None if fr.env is fr.glob else (fr.env, fr.closure))
            f.defaults = [self.ev(d, fr) for d in node.args.defaults]
            f.kw_defaults = [self.ev(d, fr) if d is not None else None for d in node.args.kw_defaults]
            # a lambda handed to a library (ds.map(lambda b: tok(..., max_length=N))) is called by it: when no
            # evaluated call reaches it, it runs once with unknown arguments like any unreached function
            c.funcs.append(f)
            return f
        if t is ast.ListComp:
            r = repeat_of(self, node, fr)       # [Block() for _ in range(n)] (pymodules.py)
            if r is not None:
                return r
        if t in (ast.ListComp, ast.GeneratorExp, ast.SetComp) and len(node.generators) == 1:
            items = self.comprehension(node, fr)
            if items is not None:
                return L(items, c.site(fr.fid, node))
        # comprehensions, await, yield: their elements are evaluated for the calls they make
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.ev(child, fr)
            elif isinstance(child, ast.comprehension):
                self.ev(child.iter, fr)
        return UNK

    def comprehension(self, node, fr):
        """[elt for x in KNOWN if cond]: the elements, each evaluated with x bound (None when the list or a
        condition is not known)."""
        gen = node.generators[0]
        it = self.ev(gen.iter, fr)
        if isinstance(it, K) and isinstance(it.v, list):
            items = [K(x, it.site, it.why) for x in it.v]
        elif isinstance(it, L):
            items = it.items
        else:
            return None
        if len(items) > MAX_UNROLL or getattr(gen, 'is_async', 0):
            return None
        sub = self.sub_frame(fr, fr.env, fr.guard)
        out = []
        for x in items:
            self.assign(gen.target, x, None, sub)
            keep = True
            for cond in gen.ifs:
                tv = self.truth(self.ev(cond, sub))
                if tv is None or isinstance(tv, tuple):
                    return None
                keep = keep and tv
            if keep:
                out.append(self.ev(node.elt, sub))
        return out

    def compare(self, node, fr):
        left = self.ev(node.left, fr)
        result = None
        for op, rn in zip(node.ops, node.comparators):
            right = self.ev(rn, fr)
            r = lift(lambda a, b, op=op: compare_const(op, a, b), left, right)
            if r is UNK and len(node.ops) == 1:
                r = sym_compare(self, op, left, right) or UNK   # sizes over listed sweep values (pymodules.py)
            result = r if result is None else lift(
                lambda x, y: K(bool(x.v) and bool(y.v)) if isinstance(x, K) and isinstance(y, K) else UNK,
                result, r)
            left = right
        return result

    def binop(self, op, a, b, node, fr):
        c = self.c
        site = c.site(fr.fid, node)

        def f(x, y):
            if not (isinstance(x, K) and isinstance(y, K)):
                if isinstance(op, ast.Div) and isinstance(x, Ext) and x.qual == 'pathlib.Path()' and \
                        isinstance(x.data, str) and isinstance(y, K) and isinstance(y.v, str):
                    return Ext('pathlib.Path()', True, os.path.join(x.data, y.v))
                return UNK
            r = arith(op, x.v, y.v)
            if r is NOTHING:
                return UNK
            return K(r, site, x.why or y.why)
        if isinstance(a, Tensor) or isinstance(b, Tensor):
            return sym_binop(op, a, b) or UNK       # a tensor's shape through its arithmetic (pymodules.py)
        if isinstance(op, ast.Add) and (isinstance(a, L) or isinstance(b, L)):
            # a list built up: cmd = base + ["--lr", str(cfg.lr)], cmd += [...]
            xs = [x.items if isinstance(x, L) else [K(y) for y in x.v]
                  if isinstance(x, K) and isinstance(x.v, (list, tuple)) else None for x in (a, b)]
            if xs[0] is None or xs[1] is None or len(xs[0]) + len(xs[1]) > MAX_ITEMS:
                return UNK
            return L(xs[0] + xs[1], site)
        r = lift(f, a, b)
        if r is UNK:
            # a size of two sweep parameters, or of a range parameter: an expression (pymodules.py)
            r = sym_binop(op, a, b) or UNK
        return r

    def get_attr(self, obj, name, node, fr):
        c = self.c
        if isinstance(obj, Mod):
            if name in obj.env:
                return obj.env[name]
            sub = self.load_module(obj.name + '.' + name, fr) if obj.name != '__main__' else None
            return sub if sub is not None else U('%s.%s is not set' % (obj.name, name))
        if isinstance(obj, D):
            cfg_key(obj, name)
            if name in obj.items:
                return self.read_item(obj, name, node, fr)
            if name == '__dict__' and obj.kind in ('namespace', 'ns'):
                return obj
            m = dict_method(obj, name)
            if m is not None:
                return m
            if obj.open and obj.kind == 'config':
                # a config whose contents the text does not show (OmegaConf.create(torch.load(...)['config'])):
                # its sub-configs exist, so that what the program writes into them is read back
                sub = D(kind='config', open_=True)
                obj.items[name] = sub
                return sub
            return UNK
        if isinstance(obj, Inst):
            if name in obj.attrs:
                return obj.attrs[name]
            if name == '__dict__':
                return D(obj.attrs, kind='ns')
            pv = module_property(self, obj, name, node, fr)   # @property of a config (pymodules.py)
            if pv is not None:
                return pv
            ga = self.find_method(obj.cls, '__getattr__') if not name.startswith('__') else None
            if ga is not None and self.find_method(obj.cls, name) is None and \
                    self.class_attr(obj.cls, name) is None:
                # a config class that answers attributes from a mapping (def __getattr__(self, k): ...)
                return self.call_func(ga, obj, [(None, K(name))], {}, node, fr)
            m = self.find_method(obj.cls, name)
            if m is not None:
                return m if m.mkind == 'staticmethod' else Bound(obj.cls if m.mkind == 'classmethod' else obj, m)
            v = self.class_attr(obj.cls, name)
            if v is not None:
                return v
            if self.ext_bases(obj.cls):
                return Ext('%s.%s' % (obj.cls.node.name, name), True)
            return UNK
        if isinstance(obj, Cls):
            if name == '__name__':
                return K(obj.node.name)
            v = self.class_attr(obj, name)
            if isinstance(v, Func) and v.mkind == 'classmethod':
                return Bound(obj, v)
            if v is not None:
                return v
            return UNK
        if isinstance(obj, M) and any(not isinstance(obj.at(x), (K, U, _Unset)) for x in obj.xs):
            # an attribute of an object chosen by a sweep value (a class per model name): per value
            return M(obj.param, obj.xs, dict((pkey(x), self.get_attr(obj.at(x), name, node, fr)) for x in obj.xs),
                     obj.cond)
        if isinstance(obj, Ext):
            return self.ext_attr(obj, name, node, fr)
        if isinstance(obj, (P, M, OneOf)) or (isinstance(obj, K) and isinstance(obj.v, str)):
            if isinstance(obj, K) or param_values(obj) is not None:
                return Builtin('str.' + name, obj) if name in STR_METHODS else UNK
            return UNK
        if isinstance(obj, WandbConfig):
            return obj.attr(self, name, node, fr)
        if isinstance(obj, Parser):
            return Builtin('parser.' + name, obj)
        if isinstance(obj, HfParser):
            return Builtin('hfparser.' + name, obj)
        if isinstance(obj, L):
            return Builtin('list.' + name, obj) if name in ('append', 'extend', 'index', 'count') else UNK
        if isinstance(obj, Layer):
            return Builtin('nnlist.' + name, obj) if name in ('append', 'extend', 'add_module') else UNK
        if isinstance(obj, Super):
            if name == '__init__':
                return Builtin('super.__init__', obj)
            return UNK
        return UNK

    def class_attr(self, cls, name, depth=0):
        if name in cls.attrs:
            return cls.attrs[name]
        if cls.fields:
            for fname, d in cls.fields:
                if fname == name:
                    return d if d is not None else UNK
        if depth < 8:
            for b in cls.bases:
                if isinstance(b, Cls):
                    v = self.class_attr(b, name, depth + 1)
                    if v is not None:
                        return v
        return None

    def read_item(self, d, key, node, fr):
        """A key of a mapping, with the read recorded on its value's provenance."""
        v = d.items[key]
        if isinstance(v, K) and v.site is not None and v.site[0] == 'cfg':
            return v
        return v

    def get_item(self, obj, key, node, fr):
        if isinstance(obj, WandbConfig):
            return obj.item(self, key, node, fr)
        if isinstance(obj, (D, L, K, OneOf)) or isinstance(key, (P, M)):
            return lift(lambda o, k: self.index_const(o, k, node, fr), obj, key)
        return UNK

    def index_const(self, o, k, node, fr):
        if not isinstance(k, K):
            cfg_took(self, o)                 # a key not known: any of it
            return self.table_choices(o, [])
        if isinstance(o, D):
            table = choice_table(o)
            if table is not None:
                table['picked'] = True
            kk = k.v if isinstance(k.v, str) else str(k.v) if is_scalar(k.v) else None
            if kk is None:
                cfg_took(self, o)
            cfg_key(o, kk)
            if kk in o.items:
                v = o.items[kk]
                return with_why(v, ('idx', k.v, fr.fid, node))
            return UNK if o.open else U('no key %s' % shown(k.v))
        if isinstance(o, L) and isinstance(k.v, int) and not isinstance(k.v, bool):
            return o.items[k.v] if -len(o.items) <= k.v < len(o.items) else UNK
        if isinstance(o, K) and isinstance(o.v, (list, str)) and isinstance(k.v, int) and \
                not isinstance(k.v, bool) and -len(o.v) <= k.v < len(o.v):
            return K(o.v[k.v], o.site, o.why)
        return UNK

    # -- calls ---------------------------------------------------------------------------------------
    def call(self, node, fr):
        c = self.c
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in ('append', 'extend') and isinstance(f.value, ast.Name):
            cur = self.lookup(f.value.id, fr)
            if isinstance(cur, K) and isinstance(cur.v, list):
                # a list literal of constants grows: a list of values from here on (cmd.append(str(cfg.bs)))
                self.store_name(f.value.id, L([K(x, cur.site, cur.why) for x in cur.v], cur.site), fr)
        fv = self.ev(node.func, fr)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                sv = self.ev(a.value, fr)
                if isinstance(sv, L):
                    args.extend((None, x) for x in sv.items)
                elif isinstance(sv, K) and isinstance(sv.v, list):
                    args.extend((None, K(x, sv.site, sv.why)) for x in sv.v)
                else:
                    args.append((a, UNK))
                continue
            args.append((a, self.ev(a, fr)))
        kwargs = {}
        for k in node.keywords:
            v = self.ev(k.value, fr)
            if k.arg is not None:
                kwargs[k.arg] = (k.value, v)
                continue
            # **mapping: its known keys are keywords of the call, each with its own value
            if isinstance(v, WandbConfig):
                v = v.as_dict(self, node, fr)
            cfg_took(self, v)                 # f(**cfg.train): every key of it
            if isinstance(v, D):
                for kk, vv in v.items.items():
                    kwargs.setdefault(kk, (None, vv))
                if v.open:
                    kwargs[None] = (k.value, UNK)
            else:
                kwargs[None] = (k.value, UNK)
        return self.dispatch(fv, args, kwargs, node, fr)

    def dispatch(self, fv, args, kwargs, node, fr):
        """Call fv (evaluated) with evaluated arguments."""
        if isinstance(fv, M):
            return self.call_cases(fv, args, kwargs, node, fr)
        if isinstance(fv, Func):
            return self.call_func(fv, None, args, kwargs, node, fr)
        if isinstance(fv, Bound):
            if isinstance(fv.func, Func):
                return self.call_func(fv.func, fv.self_, args, kwargs, node, fr)
            return UNK
        if isinstance(fv, Cls):
            return self.instantiate(fv, args, kwargs, node, fr)
        if isinstance(fv, Builtin):
            return self.builtin(fv, args, kwargs, node, fr)
        return self.external_call(fv, args, kwargs, node, fr)

    def call_cases(self, fv, args, kwargs, node, fr):
        """A call of what a sweep value chooses (a class or function per model name): each case called in
        the runs of its value (its sinks hold there only); the result a value map."""
        c = self.c
        before = fr.guard
        pairs = []
        for x in fv.xs:
            cv = fv.at(x)
            k = pkey(x)
            if before is None:
                g = ('p', fv.param, frozenset([k]))
            elif before is not GUARD_UNKNOWN and before[1] == fv.param:
                if k not in before[2]:
                    continue
                g = ('p', fv.param, frozenset([k]))
            else:
                g = GUARD_UNKNOWN
            if isinstance(cv, (K, U, _Unset, OneOf)):
                pairs.append((g, UNK))
                continue
            fr.guard = g
            try:
                r = self.dispatch(cv, list(args), dict(kwargs), node, fr)
            finally:
                fr.guard = before
            pairs.append((g, r))
        if not pairs:
            return UNK
        return self.join_branches(pairs)

    def external_call(self, fv, args, kwargs, node, fr, made=None):
        """A call to something that is not the program's own code: sources (argparse, wandb, config
        loaders) make values, sinks read settings; the result is an external object."""
        c = self.c
        name, base = callee_name(node.func) if node is not None else (None, None)
        qual = fv.qual if isinstance(fv, Ext) else None
        if name not in CFG_BLIND and not (name == 'init' and (base == 'wandb' or qual == 'wandb.init')):
            # a loaded config handed to code the text does not show may be read there whole
            # (wandb.init(config=cfg) only logs it: its reads through wandb.config are recorded there)
            for _, v in args:
                cfg_took(self, v)
            for k, (_, v) in kwargs.items():
                cfg_took(self, v)
        if made is not None and isinstance(fv, Ext):
            # a subclass of an external class: the base's name is what the sinks know, unless the class
            # is a trainer of its own name (a project's copy of TRL's PPOTrainer on trl's BaseTrainer:
            # the class says which trainer runs, its base does not)
            own = made.cls.node.name if isinstance(made, Inst) else None
            name = fv.qual.split('.')[-1]
            if own in TRAINER_CLASSES and name not in TRAINER_CLASSES:
                name = own
            base = fv.qual.split('.')[-2] if '.' in fv.qual else None
        r = source_call(self, name, base, qual, fv, args, kwargs, node, fr)
        if r is not None:
            sink_call(self, name, base, qual, fv, args, kwargs, node, fr, r)
            return r
        r = sink_call(self, name, base, qual, fv, args, kwargs, node, fr, None)
        if r is not None:
            return r
        if name == 'hyperparameter_search' and isinstance(fv, Ext):
            # Trainer.hyperparameter_search(backend="wandb"): its _hp_search_setup sets trainer.args from the
            # W&B run's config, every key (transformers trainer.py); another or an unknown backend: not known
            b = kwargs.get('backend', (None, None))[1]
            if isinstance(b, K) and isinstance(b.v, str) and b.v.lower() == 'wandb':
                wandb_of(self).read_all(self, 'hyperparameter_search(backend="wandb")')
            elif not isinstance(b, K):
                c.out.wandb_bound = max(c.out.wandb_bound, c.phase)
        if isinstance(fv, Ext):
            # arguments handed to external code: a wandb.config given to it may be read there
            for _, v in args:
                if isinstance(v, WandbConfig):
                    v.read_all(self, 'handed to %s' % (qual or name))
            for k, (_, v) in kwargs.items():
                if isinstance(v, WandbConfig):
                    v.read_all(self, 'handed to %s' % (qual or name))
            return Ext((qual or name or '?') + '()', True)
        return UNK

    # -- builtins and the methods of known values -----------------------------------------------------
    def builtin(self, fv, args, kwargs, node, fr):
        c = self.c
        n = fv.name
        a = [v for _, v in args]
        kw = dict((k, v) for k, (_, v) in kwargs.items() if k)
        obj = fv.self_
        if n not in CFG_BLIND_BUILTINS and not n.startswith('dict.'):
            for x in a + list(kw.values()):
                cfg_took(self, x)             # dict(cfg), list(cfg), str(cfg): all of it
        if n == 'getattr' and len(a) >= 2:
            o, key = a[0], a[1]
            if isinstance(key, K) and isinstance(key.v, str):
                if isinstance(o, WandbConfig):
                    return o.attr(self, key.v, node, fr, a[2] if len(a) > 2 else None)
                if len(a) > 2 and isinstance(o, (D, Inst)) and not (isinstance(o, D) and o.open):
                    store = o.items if isinstance(o, D) else o.attrs
                    if key.v not in store and not (isinstance(o, Inst) and self.class_attr(o.cls, key.v)):
                        return a[2]
                return self.get_attr(o, key.v, node, fr)
            return UNK
        if n == 'setattr' and len(a) >= 3:
            if isinstance(a[1], K) and isinstance(a[1].v, str):
                self.set_attr(a[0], a[1].v, a[2], fr)
            elif isinstance(a[0], D):
                a[0].open = True
            return K(None)
        if n == 'hasattr' and len(a) >= 2:
            o, key = a[0], a[1]
            if isinstance(key, K) and isinstance(o, D) and not o.open:
                return K(key.v in o.items)
            return UNK
        if n in ('dict', 'vars'):
            if a and isinstance(a[0], WandbConfig):
                return a[0].as_dict(self, node, fr)
            if a and isinstance(a[0], Inst):
                return D(a[0].attrs, kind='ns') if n == 'vars' else D(dict(a[0].attrs), kind='dict')
            if a and isinstance(a[0], D):
                d = a[0] if n == 'vars' else D(dict(a[0].items), kind='dict', open_=a[0].open)
                if n == 'dict':
                    d.items.update(kw)
                return d
            if not a:
                return D(dict(kw), kind='dict', open_=None in kwargs)
            return UNK
        if n in ('str', 'int', 'float', 'bool'):
            if not a:
                return UNK
            conv = {'str': py_str, 'int': int, 'float': float, 'bool': bool}[n]

            def cv(x):
                if isinstance(x, K) and is_scalar(x.v):
                    try:
                        r = conv(x.v)
                    except (ValueError, TypeError, OverflowError):
                        return UNK
                    return K(r, x.site, x.why)
                if isinstance(x, Ext) and x.qual == 'pathlib.Path()' and isinstance(x.data, str) and n == 'str':
                    return K(x.data)
                if isinstance(x, P) or x is UNSET:
                    return x                     # a case that is another parameter's value, converted
                return UNK
            if isinstance(a[0], P):
                return a[0]                      # the sweep's value, converted: still that parameter
            return lift(cv, a[0])
        if n in ('any', 'all') and len(a) == 1 and isinstance(a[0], (L, K)):
            xs = a[0].items if isinstance(a[0], L) else [K(x) for x in a[0].v] if isinstance(a[0].v, list) else None
            if xs is None:
                return UNK

            def anyall(*vs):
                ts = [self.truth(v) for v in vs]
                if n == 'any':
                    return K(True) if any(t is True for t in ts) else K(False) if all(t is False for t in ts) else UNK
                return K(False) if any(t is False for t in ts) else K(True) if all(t is True for t in ts) else UNK
            return lift(anyall, *xs) if len(xs) <= MAX_UNROLL else UNK
        if n == 'type' and len(a) == 1:
            x = a[0]
            if isinstance(x, Inst):
                return x.cls
            if isinstance(x, Cls) or (isinstance(x, M) and all(isinstance(x.at(y), Cls) for y in x.xs)):
                return Ext('builtins.type', True)     # a class's type is type: type(cls).__name__ == 'type'
            if isinstance(x, K):
                return Ext('builtins.' + type(x.v).__name__)
            return UNK
        if n == 'isinstance' and len(a) >= 2:
            r = module_isinstance(a[0], a[1])    # isinstance(x, nn.Module) (pymodules.py)
            if r is not None:
                return r
        if n in ('issubclass', 'isinstance') and len(a) == 2:
            def sub(x, y):
                if isinstance(x, Inst) and n == 'isinstance':
                    x = x.cls
                if isinstance(x, Cls) and isinstance(y, Cls):
                    return K(self.is_subclass(x, y))
                return UNK
            return lift(sub, a[0], a[1])
        if n in ('list', 'tuple', 'sorted') and a:
            return a[0] if isinstance(a[0], (L, K)) else UNK
        if n == 'len' and a:
            if isinstance(a[0], L) and not any(isinstance(x, Rep) for x in a[0].items):
                return K(len(a[0].items))
            return lift(lambda x: K(len(x.v)) if isinstance(x, K) and isinstance(x.v, (str, list)) else UNK, a[0])
        if n == 'open':
            return source_open(self, a, node, fr)
        if n == 'super':
            cls = fr.func.cls if fr.func is not None else None
            me = fr.env.get(fr.func.node.args.args[0].arg) if cls is not None and fr.func.node.args.args else None
            if cls is not None and isinstance(me, Inst):
                return Super(cls, me)
            return UNK
        if n == 'super.__init__' and isinstance(obj, Super):
            for b in obj.cls.bases:
                if isinstance(b, Cls):
                    init = self.find_method(b, '__init__')
                    if init is not None:
                        return self.call_func(init, obj.inst, args, dict(kwargs), node, fr)
            return K(None)
        if n in ('max', 'min') and len(a) >= 2:
            def mm(*xs):
                if all(isinstance(x, K) and isinstance(x.v, (int, float)) for x in xs):
                    return K((max if n == 'max' else min)(x.v for x in xs))
                return UNK
            return lift(mm, *a) if len(a) <= 2 else UNK
        if n.startswith('dict.'):
            return self.dict_call(n[5:], obj, a, kw, node, fr)
        if n.startswith('str.'):
            return self.str_call(n[4:], obj, a, node, fr)
        if n == 'list.append' and isinstance(obj, L) and a:
            if len(obj.items) < MAX_ITEMS:
                x = a[0]
                if fr.guard is not None and isinstance(x, (K, P, M, OneOf)):
                    x = self.guarded(fr.guard, x, UNSET)  # appended only in the runs the guard holds
                obj.items.append(modules_append(self, obj, x))
            return K(None)
        if n == 'list.extend' and isinstance(obj, L) and a:
            more = a[0].items if isinstance(a[0], L) else [K(x) for x in a[0].v] \
                if isinstance(a[0], K) and isinstance(a[0].v, (list, tuple)) else None
            if more is None or fr.guard is not None:
                obj.items.append(U('extended with what the text does not show'))
            elif len(obj.items) + len(more) <= MAX_ITEMS:
                obj.items.extend(more)
            return K(None)
        if n.startswith('nnlist.'):
            return modules_list_call(self, n[7:], obj, a, node, fr)
        if n == 'int' and a and isinstance(a[0], Sym):
            return a[0]
        if n.startswith('parser.') or n.startswith('hfparser.'):
            return parser_call(self, n, obj, args, kwargs, node, fr)
        if n.startswith('wandb.'):
            return obj.method(self, n[6:], a, kw, node, fr)
        if n == 'path.same':
            return obj
        if n == 'path.join' and all(isinstance(x, K) and isinstance(x.v, str) for x in a):
            return Ext('pathlib.Path()', True, os.path.join(obj.data, *[x.v for x in a]))
        return UNK

    def dict_call(self, m, d, a, kw, node, fr):
        if m == 'get':
            if not a:
                return UNK
            return lift(lambda k: self.dict_get(d, k, a[1] if len(a) > 1 else K(None), node, fr), a[0])
        if m in ('setdefault', 'pop') and a and isinstance(a[0], K) and isinstance(a[0].v, str):
            cfg_key(d, a[0].v)
        elif m != 'update':
            cfg_took(self, d)                 # items(), values(), copy(), merge_with(): all of it
        if m == 'update':
            for x in a:
                cfg_took(self, x)             # other.update(cfg): every key of cfg
        if m == 'update':
            if a and isinstance(a[0], WandbConfig):
                src = a[0].as_dict(self, node, fr)
            else:
                src = a[0] if a else D(kw)
            if isinstance(src, D):
                for k, v in src.items.items():
                    self.set_attr(d, k, v, fr)
                if src.open:
                    d.open = True
                if not a:
                    pass
            else:
                d.open = True
            for k, v in kw.items():
                if a:
                    self.set_attr(d, k, v, fr)
            return K(None)
        if m == 'setdefault' and a and isinstance(a[0], K) and isinstance(a[0].v, str):
            if a[0].v not in d.items:
                d.items[a[0].v] = a[1] if len(a) > 1 else K(None)
            return d.items[a[0].v]
        if m == 'pop' and a and isinstance(a[0], K) and isinstance(a[0].v, str):
            v = d.items.pop(a[0].v, None)
            return v if v is not None else (a[1] if len(a) > 1 else UNK)
        if m in ('copy', 'to_dict', 'to_container', 'as_dict'):
            return D(dict(d.items), d.kind, d.site, d.open)
        if m == 'items':
            if d.open:
                return UNK
            return L([L([K(k), v]) for k, v in d.items.items()])
        if m == 'keys':
            return UNK if d.open else K(list(d.items))
        if m == 'values':
            return UNK if d.open else L(list(d.items.values()))
        if m == 'merge_with' and a:
            for o in a:
                if isinstance(o, D):
                    for k, v in o.items.items():
                        self.set_attr(d, k, v, fr)
            return K(None)
        return UNK

    def dict_get(self, d, k, default, node, fr):
        if not isinstance(k, K) or not isinstance(k.v, str):
            cfg_took(self, d)
            return self.table_choices(d, [default])
        table = choice_table(d)
        if table is not None:
            table['picked'] = True
        cfg_key(d, k.v)
        if k.v in d.items:
            return with_why(d.items[k.v], ('get', k.v, fr.fid, node))
        if d.open:
            return UNK
        return default

    def table_choices(self, d, extra):
        """A table of quantization configs looked up with a key the text does not decide: its entries (and the
        lookup's default) as possibilities, so the load reads no quantization rather than each entry."""
        table = choice_table(d)
        if table is None or table['kind'] != 'bnb' or d.open:
            return UNK
        opts = list(d.items.values()) + list(extra)
        return OneOf(opts) if len(opts) <= MAX_ONEOF else UNK

    def str_call(self, m, s, a, node, fr):
        def f(x, *ys):
            if not isinstance(x, K) or not isinstance(x.v, str):
                return UNK
            if not all(isinstance(y, K) for y in ys):
                return UNK
            v = [y.v for y in ys]
            try:
                if m in ('endswith', 'startswith') and v and isinstance(v[0], (str, list)):
                    t = tuple(v[0]) if isinstance(v[0], list) else v[0]
                    return K(getattr(x.v, m)(t))
                if m in ('lower', 'upper', 'strip', 'rstrip', 'lstrip') and \
                        all(isinstance(y, str) for y in v):
                    return K(getattr(x.v, m)(*v), x.site, x.why)
                if m == 'replace' and len(v) == 2 and all(isinstance(y, str) for y in v):
                    r = x.v.replace(v[0], v[1])
                    return K(r, x.site, x.why) if len(r) <= MAX_STR else UNK
                if m == 'split' and len(v) <= 1:
                    return K(x.v.split(*v))
                if m == 'format' and all(is_scalar(y) for y in v) and x.v.count('{') <= 8:
                    r = x.v.format(*[py_str(y) if not isinstance(y, str) else y for y in v])
                    return K(r) if len(r) <= MAX_STR else UNK
            except (ValueError, IndexError, KeyError, TypeError):
                return UNK
            return UNK
        if m == 'join':
            if len(a) == 1 and isinstance(a[0], K) and isinstance(a[0].v, list) and isinstance(s, K) and \
                    all(isinstance(x, str) for x in a[0].v):
                r = s.v.join(a[0].v)
                return K(r) if len(r) <= MAX_STR else UNK
            return UNK
        return lift(f, s, *a)

    # -- what no call reaches ---------------------------------------------------------------------------
    def run_entries(self, mod, names):
        """The functions the runs execute (the request's entry: wandb.agent's function=, a Trainer's
        model_init), each called as reached after the module, once, with its defaults."""
        for name in names:
            f = mod.env.get(name) if isinstance(name, str) else None
            if not isinstance(f, Func) or f.called:
                continue
            fr = Frame(mod.env, mod.env, mod, 0)
            try:
                self.call_func(f, None, [], {}, None, fr)
            except RecursionError:
                self.c.note('%s(): nested too deeply to evaluate' % name, 0, f.node)

    def run_unreached(self):
        """Functions and methods no evaluated call reached: each once, with its defaults (the literal reader's
        reach, so a setting written in a function a framework calls is still read); their reads of the sweep
        count as possible, not proven."""
        c = self.c
        c.phase = 1
        i = 0
        while i < len(c.funcs):
            f = c.funcs[i]
            i += 1
            if f.called:
                continue
            f.called = True
            self_ = None
            if f.cls is not None:
                self_ = f.cls.last if f.cls.last is not None else Inst(f.cls)
            fr = Frame({}, f.mod.env, f.mod, self.fid_of(f), None)
            args = []
            kwargs = {}
            if f.entry and f.entry[0] == 'hydra':
                cfg = self.hydra_config(f.entry[1])
                if cfg is not None:
                    first = (f.node.args.args or [None])[0]
                    if first is not None:
                        args = [(None, cfg)]
            try:
                self.call_func(f, self_, args, kwargs, None, fr)
            except RecursionError:
                c.note('%s(): nested too deeply to evaluate' % f.node.name, self.fid_of(f), f.node)

    def hydra_config(self, info):
        return self.c.out.hydra_values(self, info)


# calls that read no value of a config handed to them (printing and logging it)
CFG_BLIND = {'print', 'pprint', 'info', 'debug', 'warning', 'warn', 'log', 'isinstance', 'len', 'type'}
# builtins that read only the key they are given (getattr, hasattr: recorded where the key is read)
CFG_BLIND_BUILTINS = {'getattr', 'hasattr', 'isinstance', 'issubclass', 'type', 'len', 'print', 'id',
                      'callable', 'super'}


def callee_name(f):
    """(name, base) of a callee expression: AutoModel.from_pretrained -> ('from_pretrained', 'AutoModel')."""
    if isinstance(f, ast.Name):
        return f.id, None
    if isinstance(f, ast.Attribute):
        b = f.value
        base = b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else None
        return f.attr, base
    return None, None


def kw_literal(call, key):
    for k in call.keywords:
        if k.arg == key and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
            return k.value.value
    return None


def is_dataclass_decorator(d):
    if isinstance(d, ast.Call):
        d = d.func
    return (isinstance(d, ast.Name) and d.id == 'dataclass') or (
        isinstance(d, ast.Attribute) and d.attr == 'dataclass')


def is_setting_value(v):
    """What the literal reader read: scalars, and lists of strings and numbers."""
    if v is None or isinstance(v, (str, int, float, bool)):
        return True
    if isinstance(v, (list, tuple)) and len(v) <= 64:
        return all(isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in v)
    return False


STR_METHODS = {'endswith', 'startswith', 'lower', 'upper', 'strip', 'replace', 'split', 'format', 'join',
               'rstrip', 'lstrip'}


class _Nothing(object):
    pass


NOTHING = _Nothing()


def py_str(v):
    if v is None:
        return 'None'
    if isinstance(v, bool):
        return 'True' if v else 'False'
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, list):
        return '[' + ', '.join(repr(x) for x in v) + ']'
    return str(v)


def arith(op, x, y):
    """x op y for known scalars, bounded (no huge powers, strings or repeats); NOTHING when not computed."""
    num = (int, float)
    try:
        if isinstance(x, bool) or isinstance(y, bool):
            if not isinstance(op, (ast.Add, ast.Sub, ast.Mult)):
                return NOTHING
        if isinstance(op, ast.Add):
            if isinstance(x, str) and isinstance(y, str):
                return x + y if len(x) + len(y) <= MAX_STR else NOTHING
            if isinstance(x, list) and isinstance(y, list):
                return x + y if len(x) + len(y) <= MAX_ITEMS else NOTHING
            if isinstance(x, num) and isinstance(y, num):
                return x + y
        elif isinstance(op, ast.Sub) and isinstance(x, num) and isinstance(y, num):
            return x - y
        elif isinstance(op, ast.Mult):
            if isinstance(x, num) and isinstance(y, num):
                r = x * y
                return r if not isinstance(r, int) or abs(r) < 1 << 64 else NOTHING
            if isinstance(x, str) and isinstance(y, int) and 0 <= y and len(x) * y <= MAX_STR:
                return x * y
            if isinstance(x, list) and isinstance(y, int) and not isinstance(y, bool) and 0 <= y and \
                    len(x) * y <= MAX_ITEMS:
                return x * y                     # [1] * (n - 1)
        elif isinstance(op, ast.Div) and isinstance(x, num) and isinstance(y, num) and y != 0:
            return x / y
        elif isinstance(op, ast.FloorDiv) and isinstance(x, num) and isinstance(y, num) and y != 0:
            return x // y
        elif isinstance(op, ast.Mod):
            if isinstance(x, num) and isinstance(y, num) and y != 0:
                return x % y
            if isinstance(x, str) and is_scalar(y) and x.count('%') == 1:
                r = x % (y,)
                return r if len(r) <= MAX_STR else NOTHING
        elif isinstance(op, ast.Pow) and isinstance(x, num) and isinstance(y, num):
            if isinstance(y, int) and abs(y) <= 64 and abs(x) <= 1 << 16:
                return x ** y
            if isinstance(x, float) or isinstance(y, float):
                r = float(x) ** float(y)
                return r if isinstance(r, float) else NOTHING
    except (ArithmeticError, ValueError, TypeError):
        return NOTHING
    return NOTHING


def compare_const(op, a, b):
    if not (isinstance(a, K) and isinstance(b, K)):
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(b, K) and b.v is None and \
                isinstance(a, (D, L, Mod, Func, Cls, Inst, Ext)) and not (isinstance(a, Ext) and not a.made):
            return K(isinstance(op, ast.IsNot))
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(a, K) and isinstance(b, D) and not b.open:
            return K((a.v in b.items) == isinstance(op, ast.In))
        return UNK
    x, y = a.v, b.v
    try:
        if isinstance(op, ast.Eq):
            return K(x == y)
        if isinstance(op, ast.NotEq):
            return K(x != y)
        if isinstance(op, ast.Is):
            return K(x is y if x is None or y is None or isinstance(x, bool) else x == y)
        if isinstance(op, ast.IsNot):
            return K(not (x is y if x is None or y is None or isinstance(x, bool) else x == y))
        if isinstance(op, ast.In) and isinstance(y, (list, str)):
            return K(x in y)
        if isinstance(op, ast.NotIn) and isinstance(y, (list, str)):
            return K(x not in y)
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            if isinstance(op, ast.Lt):
                return K(x < y)
            if isinstance(op, ast.LtE):
                return K(x <= y)
            if isinstance(op, ast.Gt):
                return K(x > y)
            if isinstance(op, ast.GtE):
                return K(x >= y)
    except TypeError:
        return UNK
    return UNK


def dict_method(d, name):
    if name in ('get', 'update', 'items', 'keys', 'values', 'setdefault', 'pop', 'copy', 'to_dict',
                'to_container', 'merge_with', 'as_dict'):
        return Builtin('dict.' + name, d)
    return None


class Super(V):
    __slots__ = ('cls', 'inst')

    def __init__(self, cls, inst):
        self.cls = cls
        self.inst = inst
