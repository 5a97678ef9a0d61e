# pysweep: the W&B sweeps a Python file or a notebook's code cells define, read with ast.parse only
# (docs/python-sweeps.md). The program is never imported or executed: ast.parse builds a syntax tree
# and a small evaluator walks it over values proven from the text (constants, dict and list literals,
# names bound to them, comprehensions and numpy/range helpers of constants, the dict mutations that
# follow: d[k] = v, d.update(...), del d[k]). Anything else is unknown, and a sweep with an unknown part
# is reported as not read, with the reason: never guessed.
#
# sweeplint runs it with the user's python3 as `python3 -I -S -B -c <this>` (src/pysweep/run.c: a
# subprocess under the bounds of program.h), the code on stdin:
#   stdin: one JSON object {"cells": [text, ...], "notebook": bool, "budget": steps}
#   stdout: one JSON object
#     {"sweeps": [SWEEP...], "notes": [[cell, line, text]...], "blank": [[cell, line]...]}
#   or {"error": text, "cell": c, "line": n}; "blank": the lines of a notebook's cells that are not Python
#   (magics, cells of another language), blanked in the copy the program follower evaluates
#   SWEEP: {"how": "wandb.sweep(sweep_config)", "at": SPAN (the call), "tree": NODE | null,
#           "file": {"path": p, "at": SPAN} | null (a YAML/JSON file the code loads and passes),
#           "unknown": why | null, "problems": [{"at": SPAN, "message": m, "rule": slug}...],
#           "agent": {"function": name, "local": bool, "at": SPAN (its def), "call": SPAN} | null,
#           "hp": {"call": SPAN, "model_init": name | null, "args_class": name | null} | null
#           (hyperparameter_search: the Trainer's model_init= and the class of its args=),
#           "runs": {"count": N, "by": text, "at": SPAN} (absent: not known): the runs the code's own agent
#           makes before it stops (wandb.agent(count=N); hyperparameter_search's n_trials, 20 by default),
#           "dropped": [[key, why]...]}
#   NODE: {"k": "m", "at": SPAN, "p": [[KEY, NODE]...]} a mapping | {"k": "s", "at": SPAN, "i": [NODE...]} a
#         list | {"k": "v", "at": SPAN, "t": "str"|"int"|"float"|"bool"|"null", "v": text, "q": quote}; any of
#         them with "c": how it was computed (the node's bytes are not its literal: no edit may splice it)
#   SPAN: [cell, line, col, end_line, end_col]: 0-based cell, 1-based lines, UTF-8 byte columns (as ast).
# Scalars are the text W&B receives: wandb.sweep sends yaml.dump(json.loads(json.dumps(config)))
# (wandb/sdk/internal/internal_api.py upsert_sweep), so a float is written as PyYAML dumps it (1e-05 ->
# 1.0e-05), a tuple is a list, and a value json.dumps refuses (an ndarray, a range, numpy's int64) makes
# wandb.sweep raise before any sweep exists.
import ast
import json
import math
import re
import sys

MAX_ITEMS = 4096       # a list or dict past this many items is unknown
MAX_STR = 4096         # a computed string past this is unknown
MAX_DEPTH = 12         # calls into local functions nested past this are not evaluated
MAX_UNROLL = 64        # a for loop over a known list of at most this many items runs once per item
MAX_NOTES = 64
LINES = re.compile(r'\r\n|\r|\n')


def run_count(v):
    """A run count the code states (an int above 0, not a bool), or None."""
    if isinstance(v, Lit) and isinstance(v.v, int) and not isinstance(v.v, bool) and v.v > 0:
        return v.v
    return None


class Stop(Exception):
    """The evaluation ran out of its step budget: what was found before is kept."""


class Return(Exception):
    def __init__(self, value):
        Exception.__init__(self)
        self.value = value


# ---- values ----------------------------------------------------------------------------------------

class V(object):
    __slots__ = ()


class Unknown(V):
    __slots__ = ('why', 'param')

    def __init__(self, why, param=False):
        self.why = why
        self.param = param      # the parameter of a function no visible call gives a value


class Lit(V):
    """A scalar: str, int, float, bool or None; np: numpy's scalar type when numpy made it."""
    __slots__ = ('v', 'at', 'how', 'np', 'quote')

    def __init__(self, v, at, how=None, np=None, quote=''):
        self.v = v
        self.at = at
        self.how = how
        self.np = np
        self.quote = quote


class Seq(V):
    """A list (tuple, set, range, ndarray: kind says which, for what json.dumps refuses)."""
    __slots__ = ('items', 'at', 'how', 'kind', 'cond')

    def __init__(self, items, at, how=None, kind='list'):
        self.items = items
        self.at = at
        self.how = how
        self.kind = kind
        self.cond = None


class Map(V):
    """A dict: keys (Lit) and values in insertion order. Mutable and shared, as Python's are."""
    __slots__ = ('keys', 'vals', 'at', 'how', 'cond', 'loaded', 'changed')

    def __init__(self, at, how=None):
        self.keys = []
        self.vals = []
        self.at = at
        self.how = how
        self.cond = None      # why its contents depend on code sweeplint does not decide
        self.loaded = None    # a YAML/JSON file this dict was loaded from (path, at)
        self.changed = None   # a loaded dict the code changes: why

    def find(self, k):
        for i, key in enumerate(self.keys):
            if same(key.v, k):
                return i
        return -1

    def get(self, k):
        i = self.find(k)
        return self.vals[i] if i >= 0 else None

    def set(self, key, val):
        i = self.find(key.v)
        if i >= 0:
            self.vals[i] = val   # a dict keeps the first key's place and takes the new value
        else:
            self.keys.append(key)
            self.vals.append(val)


class Func(V):
    __slots__ = ('node', 'cell', 'name', 'env', 'lam')

    def __init__(self, node, cell, name, env, lam=False):
        self.node = node
        self.cell = cell
        self.name = name
        self.env = env
        self.lam = lam


class Ext(V):
    """Something of a module sweeplint knows by name: 'wandb', 'wandb.sweep', 'numpy.linspace' ..."""
    __slots__ = ('path',)

    def __init__(self, path):
        self.path = path


class FileRef(V):
    """open(path) / Path(path): a file named by a known path."""
    __slots__ = ('path', 'at', 'script_dir')

    def __init__(self, path, at, script_dir=False):
        self.path = path
        self.at = at
        self.script_dir = script_dir


class TrainerObj(V):
    """A transformers Trainer (Trainer, Seq2SeqTrainer, SFTTrainer ...): what hyperparameter_search runs."""
    __slots__ = ('model_init', 'args_class')

    def __init__(self, model_init, args_class):
        self.model_init = model_init
        self.args_class = args_class


class ArgsObj(V):
    """An instance of a trainer's arguments class (TrainingArguments, Seq2SeqTrainingArguments, SFTConfig)."""
    __slots__ = ('cls',)

    def __init__(self, cls):
        self.cls = cls


class SweepId(V):
    __slots__ = ('index',)

    def __init__(self, index):
        self.index = index


def same(a, b):
    return type(a) is type(b) and a == b or (isinstance(a, (int, float)) and not isinstance(a, bool) and
                                             isinstance(b, (int, float)) and not isinstance(b, bool) and a == b)


NUMBER = (int, float)


def is_num(v):
    return isinstance(v, Lit) and isinstance(v.v, NUMBER) and not isinstance(v.v, bool)


# ---- the reader ------------------------------------------------------------------------------------

class Reader(object):
    def __init__(self, cells, budget):
        self.cells = cells
        self.budget = budget
        self.steps = 0
        self.sweeps = []
        self.agents = []
        self.notes = []
        self.cell = 0
        self.depth = 0
        self.cond = []            # the conditions the code being walked runs under (why, for messages)
        self.called = set()       # functions evaluated through a call
        self.defs = []            # every function defined at module level or in one: (Func) in order
        self.texts = cells
        self.lines = {}           # cell -> its lines, split as ast counts them (\r\n, \r, \n)
        self.returns = []

    # -- bookkeeping

    def step(self):
        self.steps += 1
        if self.steps > self.budget:
            raise Stop('the evaluation stopped after %d steps (its bound): what was read before is kept'
                       % self.budget)

    def note(self, node, text):
        if len(self.notes) < MAX_NOTES:
            self.notes.append([self.cell, getattr(node, 'lineno', 0) if node is not None else 0, text])

    def span(self, node):
        return [self.cell, node.lineno, node.col_offset, getattr(node, 'end_lineno', node.lineno) or node.lineno,
                getattr(node, 'end_col_offset', node.col_offset) or node.col_offset]

    def src(self, node, limit=60):
        """The source text of node (shortened), for messages."""
        try:
            s = ast.get_source_segment(self.texts[self.cell], node) or ''
        except Exception:
            s = ''
        s = ' '.join(s.split())
        return s if len(s) <= limit else s[:limit - 3] + '...'

    def where(self, node):
        return 'line %d' % node.lineno if not self.notebook else 'cell %d, line %d' % (
            self.cell_numbers[self.cell], node.lineno)

    def quote_of(self, node):
        """The quote a string literal is written with ('"', "'", '\"\"\"' ...), '' when not one literal."""
        lines = self.lines.get(self.cell)
        if lines is None:
            lines = self.lines[self.cell] = LINES.split(self.texts[self.cell])
        try:
            raw = lines[node.lineno - 1].encode('utf-8')[node.col_offset:].decode('utf-8', 'replace')
        except Exception:
            return ''
        i = 0
        while i < len(raw) and raw[i] in 'rRuUbB':
            i += 1
        if raw[i:i + 3] in ('"""', "'''"):
            return raw[i:i + 3]
        if raw[i:i + 1] in ('"', "'") and i == 0:
            return raw[i]
        return ''

    # -- module and statements

    def run(self, trees):
        env = {'__name__': Lit('__main__', None, '__name__'), '__file__': FileRef('', None, True)}
        self.module_env = env
        for cell, tree in trees:
            self.cell = cell
            self.block(tree.body, env)
        # functions no evaluated call reached (a callback, an entry point run by fire/typer/click):
        # evaluated once with unknown arguments, for the sweeps they define
        for f in list(self.defs):
            if f in self.called or f.lam or not has_sweep_call(f.node):
                continue
            self.cell = f.cell
            self.cond.append('%s() is not called where sweeplint can see it' % f.name)
            try:
                self.call_func(f, [], {}, f.node)
            except Return:
                pass
            finally:
                self.cond.pop()

    def block(self, body, env):
        for st in body:
            self.stmt(st, env)

    def stmt(self, st, env):
        self.step()
        t = type(st)
        if t is ast.Expr:
            self.expr(st.value, env)
        elif t is ast.Assign:
            val = self.expr(st.value, env)
            for target in st.targets:
                self.assign(target, val, env, st)
        elif t is ast.AnnAssign:
            if st.value is not None:
                self.assign(st.target, self.expr(st.value, env), env, st)
        elif t is ast.AugAssign:
            self.augassign(st, env)
        elif t in (ast.Import, ast.ImportFrom):
            self.imports(st, env)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef):
            f = Func(st, self.cell, st.name, env)
            env[st.name] = f
            self.defs.append(f)
        elif t is ast.ClassDef:
            env[st.name] = Unknown('the class %s' % st.name)
        elif t is ast.If:
            self.if_stmt(st, env)
        elif t in (ast.For, ast.AsyncFor):
            self.for_stmt(st, env)
        elif t is ast.While:
            self.conditional(st, 'the loop at %s' % self.where(st), [st.body, st.orelse], env)
        elif t in (ast.With, ast.AsyncWith):
            for item in st.items:
                v = self.expr(item.context_expr, env)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, v, env, st)
            self.block(st.body, env)
        elif t is ast.Try or type(st).__name__ == 'TryStar':
            self.block(st.body, env)
            self.conditional(st, 'an except clause at %s' % self.where(st), [h.body for h in st.handlers], env)
            self.block(st.orelse, env)
            self.block(st.finalbody, env)
        elif t is ast.Return:
            raise Return(self.expr(st.value, env) if st.value is not None else Lit(None, st))
        elif t is ast.Delete:
            for target in st.targets:
                if isinstance(target, ast.Subscript):
                    obj = self.expr(target.value, env)
                    key = self.expr(subscript_index(target), env)
                    if isinstance(obj, Map):
                        self.mutated(obj, st)
                        if isinstance(key, Lit):
                            i = obj.find(key.v)
                            if i >= 0:
                                del obj.keys[i]
                                del obj.vals[i]
                        else:
                            obj.cond = 'a key deleted at %s is not known' % self.where(st)
                elif isinstance(target, ast.Name):
                    env.pop(target.id, None)
        elif type(st).__name__ == 'Match':
            self.conditional(st, 'the match at %s' % self.where(st), [c.body for c in st.cases], env)
        # pass, break, continue, global, nonlocal, raise, assert: nothing to read

    def conditional(self, st, why, bodies, env):
        """Bodies that may or may not run: names they bind are unknown after, dicts they change are marked."""
        self.cond.append(why)
        try:
            for body in bodies:
                local = FuncEnv(dict(env), env.outer) if isinstance(env, FuncEnv) else dict(env)
                try:
                    self.block(body, local)
                except Return as r:
                    if self.depth:
                        self.returns.append((r.value, True))
                for k, v in dict.items(local):
                    if dict.get(env, k) is not v:
                        env[k] = Unknown('%s is bound under %s' % (k, why))
        finally:
            self.cond.pop()

    def if_stmt(self, st, env):
        test = self.truth(self.expr(st.test, env))
        if test is True:
            self.block(st.body, env)
        elif test is False:
            self.block(st.orelse, env)
        else:
            self.conditional(st, 'the condition at %s (%s)' % (self.where(st), self.src(st.test, 40)),
                             [st.body, st.orelse], env)

    def for_stmt(self, st, env):
        it = self.expr(st.iter, env)
        plain = not any(isinstance(n, (ast.Break, ast.Continue, ast.Return)) for n in walk_body(st.body))
        if isinstance(it, Seq) and len(it.items) <= MAX_UNROLL and plain and not it.cond:
            for item in it.items:
                self.assign(st.target, item, env, st)
                self.block(st.body, env)
            self.block(st.orelse, env)
            return
        self.assign(st.target, Unknown('the loop variable at %s' % self.where(st)), env, st)
        self.conditional(st, 'the loop at %s' % self.where(st), [st.body, st.orelse], env)

    def mutated(self, m, st):
        if m.loaded and not m.changed:
            m.changed = 'it is changed at %s' % self.where(st)
        if self.cond and m.cond is None:
            m.cond = 'it is changed at %s under %s' % (self.where(st), self.cond[-1])

    def assign(self, target, val, env, st):
        if isinstance(target, ast.Name):
            env[target.id] = val
        elif isinstance(target, (ast.Tuple, ast.List)):
            n = len(target.elts)
            if isinstance(val, Seq) and len(val.items) == n and not any(isinstance(e, ast.Starred) for e in target.elts):
                for e, v in zip(target.elts, val.items):
                    self.assign(e, v, env, st)
            else:
                for e in target.elts:
                    self.assign(e.value if isinstance(e, ast.Starred) else e,
                                Unknown('unpacked at %s' % self.where(st)), env, st)
        elif isinstance(target, ast.Subscript):
            self.touch_loaded(target, env, st)
            obj = self.expr(target.value, env)
            key = self.expr(subscript_index(target), env)
            if isinstance(obj, Map):
                self.mutated(obj, st)
                if isinstance(key, Lit) and hashable(key.v):
                    obj.set(key, val)
                else:
                    obj.cond = 'a key set at %s is not known (%s)' % (self.where(st), self.src(target, 40))
            elif isinstance(obj, Seq) and isinstance(key, Lit) and isinstance(key.v, int) and \
                    not isinstance(key.v, bool) and -len(obj.items) <= key.v < len(obj.items):
                obj.items[key.v] = val
            elif isinstance(obj, Seq):
                obj.cond = 'an item set at %s is not known' % self.where(st)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, Unknown('starred'), env, st)
        # attributes (obj.x = v) bind nothing sweeplint reads

    def touch_loaded(self, target, env, st):
        """cfg["parameters"]["lr"] = ... on a dict loaded from a file: the file is no longer what is sent."""
        base = target
        while isinstance(base, (ast.Subscript, ast.Attribute)):
            base = base.value
        if isinstance(base, ast.Name):
            root = env.get(base.id) if base.id in env else None
            if isinstance(root, Map) and root.loaded and not root.changed:
                root.changed = 'it is changed at %s (%s)' % (self.where(st), self.src(target, 40))

    def augassign(self, st, env):
        cur = self.expr(st.target, env) if isinstance(st.target, (ast.Name, ast.Subscript)) else Unknown('')
        rhs = self.expr(st.value, env)
        if isinstance(cur, Seq) and isinstance(st.op, ast.Add) and isinstance(rhs, Seq):
            cur.items.extend(rhs.items)   # list += list changes the list itself
            return
        if isinstance(cur, Map) and isinstance(st.op, ast.BitOr) and isinstance(rhs, Map):
            self.mutated(cur, st)
            for k, v in zip(rhs.keys, rhs.vals):
                cur.set(k, v)
            return
        self.assign(st.target, self.binop(st.op, cur, rhs, st), env, st)

    def imports(self, st, env):
        if isinstance(st, ast.Import):
            for a in st.names:
                if a.asname:
                    env[a.asname] = Ext(a.name)
                else:
                    top = a.name.split('.')[0]
                    env[top] = Ext(top)
        else:
            mod = st.module or ''
            if st.level:
                mod = '.' * st.level + mod
            for a in st.names:
                if a.name == '*':
                    continue
                env[a.asname or a.name] = Ext(mod + '.' + a.name if mod else a.name)

    # -- expressions

    def expr(self, node, env):
        self.step()
        t = type(node)
        if t is ast.Constant:
            v = node.value
            if isinstance(v, (str, int, float, bool)) or v is None:
                if isinstance(v, str) and len(v) > MAX_STR:
                    return Unknown('a string past %d bytes' % MAX_STR)
                return Lit(v, self.span(node), quote=self.quote_of(node) if isinstance(v, str) else '')
            return Unknown('the constant %s' % self.src(node))
        if t is ast.Name:
            if node.id in env:
                return env[node.id]
            if node.id in self.module_env:
                return self.module_env[node.id]
            if node.id in BUILTINS:
                return Ext('builtins.' + node.id)
            return Unknown('%s is not defined where sweeplint can see it' % node.id)
        if t is ast.Dict:
            return self.dict_lit(node, env)
        if t in (ast.List, ast.Tuple, ast.Set):
            if len(node.elts) > MAX_ITEMS:
                return Unknown('a list of more than %d items' % MAX_ITEMS)
            items = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    v = self.expr(e.value, env)
                    if isinstance(v, Seq):
                        items.extend(v.items)
                        continue
                    return Unknown('*%s is not known' % self.src(e.value))
                items.append(self.expr(e, env))
            kind = {ast.List: 'list', ast.Tuple: 'tuple', ast.Set: 'set'}[t]
            return Seq(items, self.span(node), kind=kind)
        if t is ast.UnaryOp:
            v = self.expr(node.operand, env)
            if isinstance(node.op, ast.Not):
                tv = self.truth(v)
                return Lit(not tv, self.span(node), 'not') if tv is not None else Unknown('not of an unknown')
            if is_num(v):
                r = -v.v if isinstance(node.op, ast.USub) else (+v.v if isinstance(node.op, ast.UAdd) else ~v.v)
                how = v.how
                return Lit(r, self.span(node), how, v.np)
            return Unknown('%s is not known' % self.src(node))
        if t is ast.BinOp:
            return self.binop(node.op, self.expr(node.left, env), self.expr(node.right, env), node)
        if t is ast.BoolOp:
            return self.boolop(node, env)
        if t is ast.Compare:
            return self.compare(node, env)
        if t is ast.IfExp:
            tv = self.truth(self.expr(node.test, env))
            if tv is True:
                return self.expr(node.body, env)
            if tv is False:
                return self.expr(node.orelse, env)
            return Unknown('%s depends on %s' % (self.src(node, 40), self.src(node.test, 40)))
        if t is ast.JoinedStr:
            return self.fstring(node, env)
        if t is ast.Attribute:
            base = self.expr(node.value, env)
            if isinstance(base, Ext):
                return Ext(base.path + '.' + node.attr)
            if isinstance(base, Lit) and base.v == '__main__' and base.how == '__name__':
                return Unknown('')
            return Unknown('%s is not known' % self.src(node))
        if t is ast.Subscript:
            return self.subscript(node, env)
        if t is ast.Call:
            return self.call(node, env)
        if t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            return self.comprehension(node, env)
        if t is ast.Lambda:
            return Func(node, self.cell, '<lambda>', env, lam=True)
        if t is ast.NamedExpr:
            v = self.expr(node.value, env)
            self.assign(node.target, v, env, node)
            return v
        return Unknown('%s is not read' % self.src(node))

    def dict_lit(self, node, env):
        if len(node.keys) > MAX_ITEMS:
            return Unknown('a dict of more than %d items' % MAX_ITEMS)
        m = Map(self.span(node))
        for k, v in zip(node.keys, node.values):
            if k is None:   # {**other}
                o = self.expr(v, env)
                if not isinstance(o, Map):
                    m.cond = '**%s is not known' % self.src(v)
                    continue
                if o.cond and not m.cond:
                    m.cond = o.cond
                for ok, ov in zip(o.keys, o.vals):
                    m.set(ok, ov)
                continue
            kv = self.expr(k, env)
            vv = self.expr(v, env)
            if not isinstance(kv, Lit) or not hashable(kv.v):
                m.cond = 'the key %s is not known' % self.src(k)
                continue
            m.set(kv, vv)
        return m

    def subscript(self, node, env):
        obj = self.expr(node.value, env)
        idx = subscript_index(node)
        if isinstance(idx, ast.Slice):
            if isinstance(obj, Seq):
                lo = self.expr(idx.lower, env) if idx.lower else Lit(None, None)
                hi = self.expr(idx.upper, env) if idx.upper else Lit(None, None)
                st = self.expr(idx.step, env) if idx.step else Lit(None, None)
                if all(isinstance(x, Lit) and (x.v is None or isinstance(x.v, int)) for x in (lo, hi, st)) and \
                        st.v != 0:
                    return Seq(obj.items[lo.v:hi.v:st.v], self.span(node), self.src(node), obj.kind)
            return Unknown('%s is not known' % self.src(node))
        key = self.expr(idx, env)
        if isinstance(obj, Map) and isinstance(key, Lit):
            v = obj.get(key.v)
            if v is not None:
                return v
            return Unknown('%s has no key %r where sweeplint reads it' % (self.src(node.value), key.v))
        if isinstance(obj, Seq) and isinstance(key, Lit) and isinstance(key.v, int) and not isinstance(key.v, bool):
            if -len(obj.items) <= key.v < len(obj.items):
                return obj.items[key.v]
        if isinstance(obj, Lit) and isinstance(obj.v, str) and isinstance(key, Lit) and isinstance(key.v, int):
            try:
                return Lit(obj.v[key.v], self.span(node), self.src(node))
            except (IndexError, TypeError):
                pass
        return Unknown('%s is not known' % self.src(node))

    def truth(self, v):
        if isinstance(v, Lit):
            return bool(v.v)
        if isinstance(v, Seq) and not v.cond:
            return bool(v.items)
        if isinstance(v, Map) and not v.cond:
            return bool(v.keys)
        if isinstance(v, (Func, SweepId)):
            return True
        return None

    def boolop(self, node, env):
        last = None
        for e in node.values:
            v = self.expr(e, env)
            tv = self.truth(v)
            if tv is None:
                return Unknown('%s is not known' % self.src(node))
            last = v
            if isinstance(node.op, ast.And) and not tv:
                return v
            if isinstance(node.op, ast.Or) and tv:
                return v
        return last

    def compare(self, node, env):
        left = self.expr(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node, env)
            if not (isinstance(left, Lit) and isinstance(right, Lit)):
                if isinstance(op, (ast.In, ast.NotIn)) and isinstance(left, Lit) and isinstance(right, (Map, Seq)) \
                        and not right.cond:
                    vals = [k.v for k in right.keys] if isinstance(right, Map) else \
                        [i.v for i in right.items if isinstance(i, Lit)]
                    if isinstance(right, Seq) and len(vals) != len(right.items):
                        return Unknown('')
                    r = any(same(left.v, x) for x in vals)
                    if isinstance(op, ast.NotIn):
                        r = not r
                    if not r:
                        return Lit(False, self.span(node))
                    left = right
                    continue
                return Unknown('%s is not known' % self.src(node))
            try:
                r = COMPARE[type(op)](left.v, right.v)
            except Exception:
                return Unknown('')
            if not r:
                return Lit(False, self.span(node))
            left = right
        return Lit(True, self.span(node))

    def binop(self, op, a, b, node):
        at = self.span(node) if hasattr(node, 'lineno') else None
        how = self.src(node) if hasattr(node, 'lineno') else None
        if isinstance(a, Lit) and isinstance(b, Lit):
            x, y = a.v, b.v
            if isinstance(op, ast.Pow) and is_num(b) and (abs(y) > 64 or (is_num(a) and abs(x) > 1e6)):
                if not (isinstance(x, float) or isinstance(y, float)):
                    return Unknown('%s is too large to evaluate' % how)
            if isinstance(op, ast.Mult) and isinstance(x, str) != isinstance(y, str):
                n = y if isinstance(x, str) else x
                if not isinstance(n, int) or n * len(x if isinstance(x, str) else y) > MAX_STR:
                    return Unknown('%s is too large to evaluate' % how)
            if isinstance(op, ast.Mod) and isinstance(x, str):
                return Unknown('%s is not evaluated' % how)
            f = BINOPS.get(type(op))
            if f is None:
                return Unknown('%s is not evaluated' % how)
            try:
                r = f(x, y)
            except Exception:
                return Unknown('%s raises' % how)
            if isinstance(r, str) and len(r) > MAX_STR:
                return Unknown('a string past %d bytes' % MAX_STR)
            if isinstance(r, int) and not isinstance(r, bool) and abs(r) > 1 << 4096:
                return Unknown('%s is too large' % how)
            npt = a.np or b.np
            return Lit(r, at, how, npt)
        if isinstance(a, Seq) and isinstance(b, Seq) and isinstance(op, ast.Add) and a.kind == b.kind == 'list':
            if a.cond or b.cond:
                return Unknown(a.cond or b.cond)
            return Seq(a.items + b.items, at, how)
        if isinstance(op, ast.Mult) and isinstance(a, Seq) and is_num(b) and isinstance(b.v, int) and \
                a.kind in ('list', 'tuple') and 0 <= b.v * len(a.items) <= MAX_ITEMS:
            return Seq(a.items * b.v, at, how, a.kind)
        if isinstance(op, ast.BitOr) and isinstance(a, Map) and isinstance(b, Map):
            m = Map(at, how)
            for k, v in list(zip(a.keys, a.vals)) + list(zip(b.keys, b.vals)):
                m.set(k, v)
            m.cond = a.cond or b.cond
            return m
        if isinstance(a, Seq) and a.kind == 'ndarray' and isinstance(b, Lit) or \
                isinstance(b, Seq) and b.kind == 'ndarray' and isinstance(a, Lit):
            arr, sc, left = (a, b, True) if isinstance(a, Seq) else (b, a, False)
            f = BINOPS.get(type(op))
            if f is None or not is_num(sc) or arr.cond:
                return Unknown('%s is not evaluated' % how)
            out = []
            for it in arr.items:
                if not is_num(it):
                    return Unknown('%s is not evaluated' % how)
                try:
                    r = f(it.v, sc.v) if left else f(sc.v, it.v)
                except Exception:
                    return Unknown('%s raises' % how)
                out.append(Lit(float(r) if it.np == 'float64' or isinstance(r, float) else r, at, how,
                               'float64' if isinstance(r, float) or it.np == 'float64' else it.np))
            return Seq(out, at, how, 'ndarray')
        return Unknown('%s is not known' % how)

    def fstring(self, node, env):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
                continue
            if not isinstance(v, ast.FormattedValue):
                return Unknown('f-string')
            x = self.expr(v.value, env)
            if not isinstance(x, Lit):
                return Unknown('%s is not known' % self.src(node))
            spec = ''
            if v.format_spec is not None:
                s = self.fstring(v.format_spec, env)
                if not isinstance(s, Lit):
                    return s
                spec = s.v
            val = x.v
            try:
                if v.conversion == ord('r'):
                    val = repr(val)
                elif v.conversion == ord('s'):
                    val = str(val)
                elif v.conversion == ord('a'):
                    val = ascii(val)
                parts.append(format(val, spec))
            except Exception:
                return Unknown('%s raises' % self.src(node))
            if sum(len(p) for p in parts) > MAX_STR:
                return Unknown('a string past %d bytes' % MAX_STR)
        return Lit(''.join(parts), self.span(node), self.src(node))

    def comprehension(self, node, env):
        how = self.src(node)
        local = dict(env)
        out = []
        at = self.span(node)

        def gen(i):
            if i == len(node.generators):
                if isinstance(node, ast.DictComp):
                    out.append((self.expr(node.key, local), self.expr(node.value, local)))
                else:
                    out.append(self.expr(node.elt, local))
                if len(out) > MAX_ITEMS:
                    raise Stop('a comprehension of more than %d items' % MAX_ITEMS)
                return True
            g = node.generators[i]
            it = self.expr(g.iter, local)
            if not isinstance(it, Seq) or it.cond:
                return False
            for item in it.items:
                self.assign(g.target, item, local, node)
                ok = True
                for cond in g.ifs:
                    tv = self.truth(self.expr(cond, local))
                    if tv is None:
                        return False
                    if not tv:
                        ok = False
                        break
                if ok and not gen(i + 1):
                    return False
            return True

        try:
            if not gen(0):
                return Unknown('%s iterates over something not known' % how)
        except Stop:
            if self.steps > self.budget:
                raise
            return Unknown('%s has more than %d items' % (how, MAX_ITEMS))
        if isinstance(node, ast.DictComp):
            m = Map(at, how)
            for k, v in out:
                if not isinstance(k, Lit) or not hashable(k.v):
                    return Unknown('%s makes a key that is not known' % how)
                m.set(Lit(k.v, at, how), computed(v, at, how))
            return m
        items = [computed(v, at, how) for v in out]
        return Seq(items, at, how, 'set' if isinstance(node, ast.SetComp) else
                   ('generator' if isinstance(node, ast.GeneratorExp) else 'list'))

    # -- calls

    def call(self, node, env):
        if isinstance(node.func, ast.Attribute) and node.func.attr == 'hyperparameter_search':
            trainer = self.expr(node.func.value, env)
            return self.hyperparameter_search(node, env, trainer)
        f = self.expr(node.func, env)
        # methods on known values: d.update(...), xs.append(...), arr.tolist() ...
        if isinstance(node.func, ast.Attribute) and not isinstance(f, Ext):
            base = self.expr(node.func.value, env)
            r = self.method(base, node.func.attr, node, env)
            if r is not None:
                return r
            # an unknown receiver: evaluate the arguments for the sweeps they may hold
            self.args(node, env)
            return Unknown('%s() is not evaluated' % self.src(node.func))
        args, kwargs = self.args(node, env)
        if args is None:
            return Unknown('*args of %s are not known' % self.src(node.func))
        if isinstance(f, Func):
            return self.call_func(f, args, kwargs, node)
        if isinstance(f, Ext):
            return self.ext_call(f.path, args, kwargs, node, env)
        return Unknown('%s() is not evaluated' % self.src(node.func))

    def args(self, node, env):
        args = []
        kwargs = {}
        ok = True
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.expr(a.value, env)
                if isinstance(v, Seq) and not v.cond:
                    args.extend(v.items)
                else:
                    ok = False
                continue
            args.append(self.expr(a, env))
        for k in node.keywords:
            v = self.expr(k.value, env)
            if k.arg is None:
                if isinstance(v, Map) and not v.cond:
                    for mk, mv in zip(v.keys, v.vals):
                        if isinstance(mk.v, str):
                            kwargs[mk.v] = mv
                continue
            kwargs[k.arg] = v
        return (args if ok else None), kwargs

    def call_func(self, f, args, kwargs, node):
        if self.depth >= MAX_DEPTH:
            return Unknown('calls nested past %d levels' % MAX_DEPTH)
        self.called.add(f)
        fn = f.node
        a = fn.args
        local = {}
        params = list(getattr(a, 'posonlyargs', [])) + list(a.args)
        defaults = [None] * (len(params) - len(a.defaults)) + list(a.defaults)
        saved_cell = self.cell
        self.cell = f.cell
        try:
            for i, p in enumerate(params):
                if i < len(args):
                    local[p.arg] = args[i]
                elif p.arg in kwargs:
                    local[p.arg] = kwargs[p.arg]
                elif defaults[i] is not None:
                    local[p.arg] = self.expr(defaults[i], f.env)
                else:
                    local[p.arg] = Unknown('%s, the argument of %s(), is given by no call sweeplint sees'
                                           % (p.arg, f.name), param=True)
            kwd = [d for d in a.kw_defaults]
            for p, d in zip(a.kwonlyargs, kwd):
                local[p.arg] = kwargs[p.arg] if p.arg in kwargs else (
                    self.expr(d, f.env) if d is not None else Unknown('the argument %s' % p.arg))
            if a.vararg:
                local[a.vararg.arg] = Seq(args[len(params):], None, kind='tuple')
            if a.kwarg:
                m = Map(None)
                for k, v in kwargs.items():
                    if k not in [p.arg for p in params]:
                        m.set(Lit(k, None), v)
                local[a.kwarg.arg] = m
            env = FuncEnv(local, f.env)
            self.depth += 1
            saved_returns = getattr(self, 'returns', None)
            self.returns = []
            try:
                if f.lam:
                    return self.expr(fn.body, env)
                try:
                    self.block(fn.body, env)
                except Return as r:
                    self.returns.append((r.value, False))
                rets = self.returns
                if not rets:
                    return Lit(None, None, '%s() returns None' % f.name)
                if len(rets) == 1 and not rets[0][1]:
                    return rets[0][0]
                first = rets[0][0]
                if all(r is first for r, _ in rets):
                    return first
                return Unknown('%s() returns different values under conditions' % f.name)
            finally:
                self.returns = saved_returns
                self.depth -= 1
        finally:
            self.cell = saved_cell

    def method(self, base, name, node, env):
        """Methods of known values; None when base and name are not modelled."""
        if isinstance(base, Map):
            if name in ('update', 'setdefault', 'pop', 'clear', 'popitem'):
                args, kwargs = self.args(node, env)
                self.mutated(base, node)
                if name == 'update':
                    src = args[0] if args else None
                    if args is None or len(args) > 1 or (src is not None and not isinstance(src, Map)):
                        base.cond = '%s is not known' % self.src(node)
                        return Lit(None, None)
                    if src is not None:
                        if src.cond and not base.cond:
                            base.cond = src.cond
                        for k, v in zip(src.keys, src.vals):
                            base.set(k, v)
                    for k, v in kwargs.items():
                        base.set(Lit(k, self.span(node)), v)
                    return Lit(None, None)
                if name == 'setdefault' and args and isinstance(args[0], Lit):
                    cur = base.get(args[0].v)
                    if cur is None:
                        v = args[1] if len(args) > 1 else Lit(None, self.span(node))
                        base.set(args[0], v)
                        return v
                    return cur
                if name == 'pop' and args and isinstance(args[0], Lit):
                    i = base.find(args[0].v)
                    if i >= 0:
                        v = base.vals[i]
                        del base.keys[i]
                        del base.vals[i]
                        return v
                    return args[1] if len(args) > 1 else Unknown('KeyError')
                base.cond = '%s is not known' % self.src(node)
                return Unknown('')
            if name in ('copy',):
                m = Map(base.at, base.how)
                m.keys, m.vals, m.cond = list(base.keys), list(base.vals), base.cond
                return m
            if name == 'get':
                args, kwargs = self.args(node, env)
                if args and isinstance(args[0], Lit):
                    v = base.get(args[0].v)
                    if v is not None:
                        return v
                    return args[1] if len(args) > 1 else Lit(None, self.span(node))
                return Unknown('')
            if name in ('keys', 'values', 'items'):
                if name == 'keys':
                    return Seq(list(base.keys), base.at, kind='list')
                if name == 'values':
                    return Seq(list(base.vals), base.at, kind='list')
                return Seq([Seq([k, v], base.at, kind='tuple') for k, v in zip(base.keys, base.vals)], base.at)
            return None
        if isinstance(base, Seq):
            if name in ('append', 'extend', 'insert', 'remove', 'pop', 'sort', 'reverse', 'clear'):
                args, kwargs = self.args(node, env)
                if name == 'append' and args and len(args) == 1:
                    base.items.append(args[0])
                elif name == 'extend' and args and isinstance(args[0], Seq) and not args[0].cond:
                    base.items.extend(args[0].items)
                else:
                    base.cond = '%s is not evaluated' % self.src(node)
                if self.cond and not base.cond:
                    base.cond = 'it is changed under %s' % self.cond[-1]
                return Lit(None, None)
            if name == 'tolist' and base.kind == 'ndarray':
                return Seq([Lit(plain(i.v), i.at, i.how) if isinstance(i, Lit) else i for i in base.items],
                           base.at, base.how, 'list')
            if name == 'copy':
                s = Seq(list(base.items), base.at, base.how, base.kind)
                s.cond = base.cond
                return s
            if name == 'round' and base.kind == 'ndarray':
                args, kwargs = self.args(node, env)
                d = args[0] if args else kwargs.get('decimals', Lit(0, None))
                return np_round(base, d, self.span(node), self.src(node))
            if name == 'astype' and base.kind == 'ndarray':
                return Unknown('%s is not evaluated' % self.src(node))
            return None
        if isinstance(base, Lit) and isinstance(base.v, str):
            if name in ('format', 'upper', 'lower', 'strip', 'replace', 'join'):
                args, kwargs = self.args(node, env)
                if args is None or not all(isinstance(x, Lit) for x in args) or kwargs:
                    if name == 'join' and args and isinstance(args[0], Seq) and \
                            all(isinstance(i, Lit) and isinstance(i.v, str) for i in args[0].items):
                        return Lit(base.v.join(i.v for i in args[0].items), self.span(node), self.src(node))
                    return Unknown('%s is not known' % self.src(node))
                try:
                    if name == 'format':
                        r = base.v.format(*[x.v for x in args])
                    else:
                        r = getattr(base.v, name)(*[x.v for x in args])
                except Exception:
                    return Unknown('%s raises' % self.src(node))
                if isinstance(r, str) and len(r) <= MAX_STR:
                    return Lit(r, self.span(node), self.src(node))
            return None
        if isinstance(base, FileRef) and name in ('read_text', 'read', 'open'):
            return base if name == 'open' else Unknown('the text of %s' % base.path)
        return None

    def ext_call(self, path, args, kwargs, node, env):
        at = self.span(node)
        how = self.src(node)
        name = path.split('.')[-1]
        top = path.split('.')[0]
        if top == 'wandb' or path in ('sweep', 'agent'):
            if name == 'sweep':
                return self.wandb_sweep(args, kwargs, node)
            if name == 'agent':
                self.wandb_agent(args, kwargs, node)
                return Lit(None, None)
            return Unknown('%s() is not evaluated' % self.src(node.func))
        if path.startswith('builtins.'):
            return self.builtin(name, args, kwargs, node)
        if top in ('numpy', 'np'):
            return self.numpy(name, args, kwargs, node)
        if top == 'math' and name in MATH:
            if all(is_num(a) for a in args) and not kwargs:
                try:
                    r = MATH[name](*[a.v for a in args])
                except Exception:
                    return Unknown('%s raises' % how)
                return Lit(r, at, how)
            return Unknown('%s is not known' % how)
        if path in ('yaml.safe_load', 'yaml.load', 'yaml.full_load', 'json.load', 'json.loads', 'safe_load',
                    'yaml.unsafe_load'):
            src = args[0] if args else kwargs.get('stream')
            if isinstance(src, FileRef):
                m = Map(at, how)
                m.loaded = (src.path, src.at, src.script_dir)
                m.cond = 'it is loaded from %s' % src.path
                return m
            return Unknown('%s is not known' % how)
        if path in ('copy.deepcopy', 'copy.copy', 'deepcopy'):
            if args:
                return deep_copy(args[0]) if name == 'deepcopy' else shallow_copy(args[0])
            return Unknown('')
        if path in ('builtins.open', 'io.open', 'pathlib.Path', 'Path', 'pathlib.PurePath', 'codecs.open'):
            return self.file_ref(args, at)
        if path in ('os.path.join',):
            return self.path_join(args, at, how)
        if path in ('os.path.dirname', 'os.path.abspath', 'os.path.realpath'):
            if args and isinstance(args[0], FileRef) and args[0].script_dir and not args[0].path:
                return args[0]
            return Unknown('%s is not known' % how)
        if (name.endswith('TrainingArguments') or name.endswith('Config')) and \
                top in ('transformers', 'trl', 'sentence_transformers'):
            return ArgsObj(name)
        if name.endswith('Trainer') and top in ('transformers', 'trl', 'setfit', 'sentence_transformers'):
            mi = kwargs.get('model_init')
            ta = kwargs.get('args', args[1] if len(args) > 1 else None)
            return TrainerObj(mi.name if isinstance(mi, Func) and not mi.lam else None,
                              ta.cls if isinstance(ta, ArgsObj) else None)
        if name in ('SimpleNamespace', 'OrderedDict', 'EasyDict', 'edict', 'DotMap', 'Munch', 'AttrDict'):
            return self.builtin('dict', args, kwargs, node)
        return Unknown('%s() is not evaluated' % self.src(node.func))

    def file_ref(self, args, at):
        if args and isinstance(args[0], FileRef):
            return args[0]
        if args and isinstance(args[0], Lit) and isinstance(args[0].v, str):
            return FileRef(args[0].v, args[0].at or at)
        return Unknown('a file whose name is not known')

    def path_join(self, args, at, how):
        parts = []
        script_dir = False
        first_at = at
        for i, a in enumerate(args):
            if isinstance(a, FileRef) and a.script_dir and i == 0 and not a.path:
                script_dir = True
                continue
            if not (isinstance(a, Lit) and isinstance(a.v, str)):
                return Unknown('%s is not known' % how)
            if a.at is not None and len(parts) == 0:
                first_at = a.at
            parts.append(a.v)
        if not parts:
            return Unknown('')
        return FileRef('/'.join(p.strip('/') if j else p.rstrip('/') for j, p in enumerate(parts)),
                       first_at, script_dir)

    def builtin(self, name, args, kwargs, node):
        at = self.span(node)
        how = self.src(node)
        if name == 'dict':
            m = Map(at, how)
            if args:
                src = args[0]
                if isinstance(src, Map):
                    for k, v in zip(src.keys, src.vals):
                        m.set(k, v)
                    m.cond = src.cond
                elif isinstance(src, Seq) and all(isinstance(p, Seq) and len(p.items) == 2 and
                                                  isinstance(p.items[0], Lit) for p in src.items):
                    for p in src.items:
                        m.set(p.items[0], p.items[1])
                else:
                    return Unknown('%s is not known' % how)
            kw_at = {k.arg: k for k in node.keywords if k.arg}
            for k, v in kwargs.items():
                kn = kw_at.get(k)
                kat = [self.cell, kn.lineno, kn.col_offset, kn.lineno, kn.col_offset + len(k.encode('utf-8'))] \
                    if kn is not None and hasattr(kn, 'lineno') else at
                m.set(Lit(k, kat), v)
            return m
        if name in ('list', 'tuple', 'sorted', 'set', 'reversed'):
            if not args:
                return Seq([], at, how, 'list' if name != 'tuple' else 'tuple')
            src = args[0]
            if isinstance(src, Map):
                items = list(src.keys)
            elif isinstance(src, Seq) and not src.cond:
                items = list(src.items)
            else:
                return Unknown('%s is not known' % how)
            if name == 'sorted' or name == 'set':
                if not all(isinstance(i, Lit) for i in items):
                    return Unknown('%s is not known' % how)
                try:
                    items = sorted(items, key=lambda i: i.v, reverse=bool(kwargs.get('reverse', Lit(0, 0)).v))
                except TypeError:
                    return Unknown('%s raises' % how)
                if name == 'set':
                    return Unknown('a set is not ordered: %s' % how)
            if name == 'reversed':
                items.reverse()
            return Seq(items, at, how, 'tuple' if name == 'tuple' else 'list')
        if name == 'range':
            if not args or not all(is_num(a) and isinstance(a.v, int) for a in args) or len(args) > 3:
                return Unknown('%s is not known' % how)
            try:
                r = range(*[a.v for a in args])
            except ValueError:
                return Unknown('%s raises' % how)
            if len(r) > MAX_ITEMS:
                return Unknown('%s has more than %d items' % (how, MAX_ITEMS))
            return Seq([Lit(i, at, how) for i in r], at, how, 'range')
        if name in ('int', 'float', 'str', 'bool', 'round', 'abs', 'min', 'max', 'len', 'sum'):
            if name in ('min', 'max', 'sum') and len(args) == 1 and isinstance(args[0], Seq):
                vals = args[0].items
            else:
                vals = args
            if name == 'len' and len(args) == 1 and isinstance(args[0], (Seq, Map)) and not args[0].cond:
                return Lit(len(args[0].items if isinstance(args[0], Seq) else args[0].keys), at, how)
            if not all(isinstance(a, Lit) for a in vals) or kwargs:
                return Unknown('%s is not known' % how)
            try:
                if name in ('min', 'max', 'sum'):
                    r = {'min': min, 'max': max, 'sum': sum}[name]([a.v for a in vals])
                else:
                    r = {'int': int, 'float': float, 'str': str, 'bool': bool, 'round': round, 'abs': abs,
                         'len': len}[name](*[a.v for a in vals])
            except Exception:
                return Unknown('%s raises' % how)
            if isinstance(r, str) and len(r) > MAX_STR:
                return Unknown('')
            npt = None
            if name in ('round', 'abs', 'min', 'max', 'sum') and vals and isinstance(vals[0], Lit) and vals[0].np:
                # numpy's scalars keep their type through round() without ndigits? no: round(np.float64) is int
                npt = vals[0].np if (name != 'round' or len(vals) > 1) else None
            return Lit(r, at, how, npt)
        if name == 'print':
            return Lit(None, None)
        if name == 'open':
            return self.file_ref(args, at)
        if name == 'zip':
            if all(isinstance(a, Seq) and not a.cond for a in args) and args:
                n = min(len(a.items) for a in args)
                return Seq([Seq([a.items[i] for a in args], at, how, 'tuple') for i in range(n)], at, how, 'list')
            return Unknown('%s is not known' % how)
        if name == 'enumerate':
            if args and isinstance(args[0], Seq) and not args[0].cond:
                return Seq([Seq([Lit(i, at, how), v], at, how, 'tuple') for i, v in enumerate(args[0].items)],
                           at, how, 'list')
            return Unknown('%s is not known' % how)
        return Unknown('%s() is not evaluated' % name)

    def numpy(self, name, args, kwargs, node):
        at = self.span(node)
        how = self.src(node)

        def num(i, key, default=None):
            v = args[i] if i < len(args) else kwargs.get(key)
            if v is None:
                return default
            return v.v if is_num(v) else None

        if name in ('linspace', 'logspace', 'geomspace'):
            start, stop = num(0, 'start'), num(1, 'stop')
            n = num(2, 'num', 50)
            endpoint = kwargs.get('endpoint', Lit(True, None))
            if start is None or stop is None or not isinstance(n, int) or not isinstance(endpoint, Lit) or \
                    n < 0 or n > MAX_ITEMS or 'dtype' in kwargs:
                return Unknown('%s is not known' % how)
            ys = linspace(float(start), float(stop), n, bool(endpoint.v))
            if name == 'logspace':
                base = num(3, 'base', 10.0)
                if base is None:
                    return Unknown('%s is not known' % how)
                try:
                    ys = [float(base) ** y for y in ys]
                except (OverflowError, ValueError):
                    return Unknown('%s raises' % how)
            elif name == 'geomspace':
                if start <= 0 or stop <= 0:
                    return Unknown('%s is not evaluated' % how)
                ls = linspace(math.log10(start), math.log10(stop), n, bool(endpoint.v))
                ys = [10.0 ** y for y in ls]
                if ys:
                    ys[0] = float(start)
                    if endpoint.v and n > 1:
                        ys[-1] = float(stop)
            return Seq([Lit(y, at, how, 'float64') for y in ys], at, how, 'ndarray')
        if name == 'arange':
            vals = [num(i, k) for i, k in enumerate(('start', 'stop', 'step'))][:max(len(args), 1)]
            if 'dtype' in kwargs or any(v is None for v in vals) or not vals:
                return Unknown('%s is not known' % how)
            if len(vals) == 1:
                start, stop, step = 0, vals[0], 1
            elif len(vals) == 2:
                start, stop, step = vals[0], vals[1], 1
            else:
                start, stop, step = vals
            if step == 0:
                return Unknown('%s raises' % how)
            n = int(math.ceil((stop - start) / step)) if (stop - start) / step > 0 else 0
            if n > MAX_ITEMS:
                return Unknown('%s has more than %d items' % (how, MAX_ITEMS))
            ints = all(isinstance(v, int) for v in (start, stop, step))
            delta = (start + step) - start   # numpy's arange: start + i * ((start + step) - start)
            items = [Lit(start + i * delta, at, how, 'int64' if ints else 'float64') for i in range(n)]
            return Seq(items, at, how, 'ndarray')
        if name in ('array', 'asarray'):
            if args and isinstance(args[0], Seq) and not args[0].cond and 'dtype' not in kwargs:
                items = args[0].items
                if all(is_num(i) for i in items):
                    fl = any(isinstance(i.v, float) for i in items)
                    return Seq([Lit(float(i.v) if fl else i.v, i.at, i.how, 'float64' if fl else 'int64')
                                for i in items], args[0].at, how, 'ndarray')
            return Unknown('%s is not known' % how)
        if name in ('round', 'around'):
            if args and isinstance(args[0], Seq) and args[0].kind == 'ndarray':
                d = args[1] if len(args) > 1 else kwargs.get('decimals', Lit(0, None))
                return np_round(args[0], d, at, how)
            return Unknown('%s is not known' % how)
        return Unknown('%s is not evaluated' % how)

    # -- the calls that define sweeps

    def wandb_sweep(self, args, kwargs, node):
        arg = kwargs.get('sweep', args[0] if args else None)
        argnode = next((k.value for k in node.keywords if k.arg == 'sweep'), node.args[0] if node.args else None)
        rec = self.new_sweep('wandb.sweep(%s)' % (self.src(argnode, 40) if argnode is not None else ''), node)
        if isinstance(arg, Func):
            try:
                arg = self.call_func(arg, [], {}, node)
            except Return as r:
                arg = r.value
        self.take(rec, arg, argnode if argnode is not None else node)
        if 'prior_runs' in kwargs:
            pass
        return SweepId(len(self.sweeps) - 1)

    def new_sweep(self, how, node):
        rec = {'how': how, 'at': self.span(node), 'tree': None, 'file': None, 'unknown': None, 'problems': [],
               'agent': None, 'hp': None, 'dropped': [], 'cond': self.cond[-1] if self.cond else None}
        self.sweeps.append(rec)
        return rec

    def take(self, rec, val, node):
        """Record what a sweep call receives: a tree W&B would get, a file, or why it is not known."""
        if isinstance(val, Map) and val.loaded:
            rec['file'] = {'path': val.loaded[0], 'at': val.loaded[1], 'script_dir': val.loaded[2]}
            if val.changed:
                rec['unknown'] = 'the code changes the sweep it loads from %s before wandb.sweep: %s' % (
                    val.loaded[0], val.changed)
            return
        if isinstance(val, Unknown) and val.param:
            rec['param'] = True
        if not isinstance(val, Map):
            why = val.why if isinstance(val, Unknown) and val.why else '%s is not known' % self.src(node)
            rec['unknown'] = why if isinstance(val, (Unknown, Map)) else '%s is not a dict' % self.src(node)
            return
        try:
            rec['tree'] = Tree(self, rec).node(val, top=True)
        except NotKnown as e:
            rec['tree'] = None
            rec['unknown'] = str(e)

    def wandb_agent(self, args, kwargs, node):
        sid = kwargs.get('sweep_id', args[0] if args else None)
        fn = kwargs.get('function', args[1] if len(args) > 1 else None)
        rec = None
        if isinstance(sid, SweepId):
            rec = self.sweeps[sid.index]
        elif len(self.sweeps) == 1 and self.sweeps[0]['agent'] is None:
            rec = self.sweeps[0]
        if rec is None:
            return
        agent = {'call': self.span(node), 'function': None, 'at': None, 'local': False}
        # wandb.agent(sweep_id, function=None, entity=None, project=None, count=None): the agent stops after
        # count runs (wandb/wandb_agent.py); a known count bounds the runs this code starts
        runs = run_count(kwargs.get('count', args[4] if len(args) > 4 else None))
        if runs:
            rec['runs'] = {'count': runs, 'by': 'wandb.agent(count=%d)' % runs, 'at': self.span(node)}
        if isinstance(fn, Func):
            agent['function'] = fn.name
            agent['local'] = not fn.lam and self.module_env.get(fn.name) is fn
            agent['at'] = [fn.cell, fn.node.lineno, fn.node.col_offset, fn.node.lineno, fn.node.col_offset]
        elif isinstance(fn, Ext):
            agent['function'] = fn.path     # imported: the program follower finds it through the import
        rec['agent'] = agent

    def module_sweep_dict(self, rec):
        """A sweep call whose argument is a parameter no visible call gives: the module's one dict with
        method and parameters keys, when there is exactly one (the dict such a call is given)."""
        found = [(k, v) for k, v in self.module_env.items() if isinstance(v, Map) and not v.cond and
                 v.find('method') >= 0 and v.find('parameters') >= 0]
        if len(found) != 1:
            return False
        name, m = found[0]
        rec['note'] = '%s is given a value no call sweeplint sees passes; the module defines one sweep dict, ' \
                      '%s, taken as it' % (rec['how'], name)
        rec['unknown'] = None
        rec['problems'] = []
        self.take(rec, m, None)
        return True

    def hyperparameter_search(self, node, env, trainer):
        args, kwargs = self.args(node, env)
        backend = kwargs.get('backend')
        bnode = next((k.value for k in node.keywords if k.arg == 'backend'), None)
        wandb = (isinstance(backend, Lit) and isinstance(backend.v, str) and backend.v.lower() == 'wandb') or \
            (isinstance(backend, Ext) and backend.path.endswith('.WANDB')) or \
            (bnode is not None and isinstance(bnode, ast.Attribute) and bnode.attr == 'WANDB')
        if not wandb:
            if backend is None:
                self.note(node, 'hyperparameter_search() names no backend: transformers uses the first of optuna, '
                                'ray, sigopt, wandb that is installed; not read as a W&B sweep')
            return Unknown('')
        if 'sweep_id' in kwargs and not (isinstance(kwargs['sweep_id'], Lit) and kwargs['sweep_id'].v is None):
            self.note(node, 'hyperparameter_search(sweep_id=...) runs an existing sweep: none is defined here')
            return Unknown('')
        hp = kwargs.get('hp_space')
        hnode = next((k.value for k in node.keywords if k.arg == 'hp_space'), None)
        rec = self.new_sweep('hyperparameter_search(hp_space=%s)' % (self.src(hnode, 40) if hnode is not None
                                                                    else 'default'), node)
        # transformers' run_hp_search_wandb runs wandb.agent(sweep_id, function=_objective, count=n_trials);
        # Trainer.hyperparameter_search's n_trials defaults to 20
        nt = kwargs.get('n_trials')
        runs = 20 if nt is None else run_count(nt)
        if runs:
            rec['runs'] = {'count': runs, 'at': self.span(node),
                           'by': 'hyperparameter_search(n_trials=%d%s)' % (runs, ', its default' if nt is None else '')}
        rec['hp'] = {'call': self.span(node),
                     'model_init': trainer.model_init if isinstance(trainer, TrainerObj) else None,
                     'args_class': trainer.args_class if isinstance(trainer, TrainerObj) else None}
        if hp is None:
            cfg = default_hp_space(self.span(node))
        elif isinstance(hp, Func):
            try:
                cfg = self.call_func(hp, [Lit(None, None, 'trial=None')], {}, node)
            except Return as r:
                cfg = r.value
        else:
            cfg = Unknown('hp_space=%s is not known' % self.src(hnode))
        if isinstance(cfg, Map):
            cfg = deep_copy(cfg)
            # transformers' run_hp_search_wandb: sweep_config["metric"]["goal"] = direction;
            # sweep_config["metric"]["name"] = metric; if name: sweep_config["name"] = name
            metric = cfg.get('metric')
            if not isinstance(metric, Map) and not cfg.cond:
                rec['problems'].append({
                    'at': cfg.at or self.span(node), 'rule': 'schema',
                    'message': "hyperparameter_search(backend=\"wandb\") raises %s: the dict hp_space returns "
                               "needs a 'metric' mapping (transformers' run_hp_search_wandb sets its goal and name)"
                               % ("KeyError: 'metric'" if metric is None else "TypeError")})
                return Unknown('')
            if isinstance(metric, Map):
                metric = shallow_copy(metric)
                cfg.set(Lit('metric', cfg.keys[cfg.find('metric')].at), metric)
                d = kwargs.get('direction')
                dnode = next((k.value for k in node.keywords if k.arg == 'direction'), None)
                gk = metric.keys[metric.find('goal')].at if metric.find('goal') >= 0 else None
                metric.set(Lit('goal', gk or self.span(node), 'hyperparameter_search'),
                           d if d is not None else
                           Lit('minimize', self.span(node), "hyperparameter_search's default direction"))
                mv = kwargs.get('metric')
                nk = metric.keys[metric.find('name')].at if metric.find('name') >= 0 else None
                metric.set(Lit('name', nk or self.span(node), 'hyperparameter_search'),
                           mv if mv is not None else
                           Lit('eval/loss', self.span(node), "hyperparameter_search's default metric"))
                if dnode is not None and isinstance(d, Lit) and d.v not in ('minimize', 'maximize'):
                    pass   # W&B's schema says what a goal may be
            name = kwargs.get('name')
            if name is not None and self.truth(name):
                cfg.set(Lit('name', self.span(node), 'hyperparameter_search(name=...)'), name)
        self.take(rec, cfg, hnode if hnode is not None else node)
        return Unknown('')


class FuncEnv(dict):
    """A function's locals over the environment it was defined in."""

    def __init__(self, local, outer):
        dict.__init__(self, local)
        self.outer = outer

    def __missing__(self, k):
        return self.outer[k]

    def __contains__(self, k):
        return dict.__contains__(self, k) or k in self.outer

    def get(self, k, d=None):
        return self[k] if k in self else d


class NotKnown(Exception):
    pass


DROPPABLE = ('name', 'description', 'project', 'entity')


class Tree(object):
    """A value as the JSON node tree W&B receives, with what json.dumps refuses as problems."""

    def __init__(self, reader, rec):
        self.r = reader
        self.rec = rec
        self.seen = set()
        self.used = {}         # id of a list or dict -> its node: one used twice is edited nowhere

    def node(self, v, top=False, path=''):
        if id(v) in self.seen:
            raise NotKnown('%s holds itself' % (path or 'the sweep'))
        if isinstance(v, Unknown):
            raise NotKnown('%s: %s' % (path or 'the sweep', v.why or 'not known'))
        if isinstance(v, Map):
            if v.cond:
                raise NotKnown('%s: %s' % (path or 'the sweep', v.cond))
            self.seen.add(id(v))
            pairs = []
            for k, val in zip(v.keys, v.vals):
                key = k.v
                if isinstance(key, bool):
                    key = 'true' if key else 'false'   # json.dumps turns keys into strings
                elif key is None:
                    key = 'null'
                elif isinstance(key, float):
                    key = json.dumps(key)
                elif not isinstance(key, (str, int)):
                    raise NotKnown('a key of %s is not known' % path)
                key = str(key)
                sub = key if not path else path + '.' + key
                if top and key in DROPPABLE and isinstance(val, Unknown):
                    self.rec['dropped'].append([key, val.why])
                    continue
                pairs.append([self.scalar(Lit(key, k.at, k.how, quote=k.quote)), self.node(val, path=sub)])
            self.seen.discard(id(v))
            out = {'k': 'm', 'at': v.at or self.rec['at'], 'p': pairs}
            if v.how:
                out['c'] = v.how
            elif not all(inside(x['at'], out['at']) for pair in pairs for x in pair):
                out['c'] = 'its entries are not all written inside it'
            return self.once(v, out)
        if isinstance(v, Seq):
            if v.cond:
                raise NotKnown('%s: %s' % (path, v.cond))
            if v.kind in ('ndarray', 'range', 'set', 'generator'):
                self.refuse(v, {'ndarray': 'ndarray', 'range': 'range', 'set': 'set',
                                'generator': 'generator'}[v.kind], path)
            self.seen.add(id(v))
            items = [self.node(i, path=path + '[%d]' % n) for n, i in enumerate(v.items)]
            self.seen.discard(id(v))
            out = {'k': 's', 'at': v.at or self.rec['at'], 'i': items}
            if v.how:
                out['c'] = v.how
            elif not all(inside(x['at'], out['at']) for x in items):
                out['c'] = 'its items are not all written inside it'
            return self.once(v, out)
        if isinstance(v, Lit):
            if v.np and v.np != 'float64':
                self.refuse(v, v.np, path)
            return self.scalar(v)
        if isinstance(v, (Func, Ext, SweepId, FileRef)):
            raise NotKnown('%s is %s, not a value' % (path, 'a function' if isinstance(v, Func) else 'an object'))
        raise NotKnown('%s is not known' % path)

    def once(self, v, out):
        """A list or dict the sweep holds twice: an edit of one place would change the other."""
        first = self.used.get(id(v))
        if first is not None:
            first.setdefault('c', 'the sweep uses it twice')
            out.setdefault('c', 'the sweep uses it twice')
        else:
            self.used[id(v)] = out
        return out

    def refuse(self, v, typ, path):
        self.rec['problems'].append({
            'at': v.at or self.rec['at'], 'rule': 'schema',
            'message': "wandb.sweep raises TypeError: Object of type %s is not JSON serializable (%s%s): no "
                       "sweep is made" % (typ, path, ' = ' + v.how if v.how else ''),
            'hint': 'make it a list of Python numbers: .tolist(), or [float(x) for x in ...]'
            if typ in ('ndarray', 'int64', 'float32', 'int32') else 'make it a list: list(...)'})
        raise NotKnown('%s is not JSON serializable' % path)

    def scalar(self, v):
        x = v.v
        if isinstance(x, bool):
            t, s = 'bool', 'true' if x else 'false'
        elif x is None:
            t, s = 'null', 'null'
        elif isinstance(x, int):
            t, s = 'int', str(x)
        elif isinstance(x, float):
            t, s = 'float', yaml_float(x)
        elif isinstance(x, str):
            t, s = 'str', x
        else:
            raise NotKnown('a value is not known')
        out = {'k': 'v', 'at': v.at or self.rec['at'], 't': t, 'v': s, 'q': v.quote or ''}
        if v.how:
            out['c'] = v.how
        return out


def inside(a, b):
    """Whether span a lies within span b (both [cell, line, col, end_line, end_col])."""
    return a[0] == b[0] and (a[1], a[2]) >= (b[1], b[2]) and (a[3], a[4]) <= (b[3], b[4])


def yaml_float(x):
    """PyYAML's SafeRepresenter.represent_float: what yaml.dump writes for a float."""
    if x != x:
        return '.nan'
    if x == float('inf'):
        return '.inf'
    if x == -float('inf'):
        return '-.inf'
    s = repr(x).lower()
    if '.' not in s and 'e' in s:
        s = s.replace('e', '.0e', 1)
    return s


def linspace(start, stop, n, endpoint):
    """numpy.linspace's values for float bounds: start + i * step, the last one stop itself."""
    div = (n - 1) if endpoint else n
    if n == 0:
        return []
    if div <= 0:
        return [start]
    delta = stop - start
    step = delta / div
    if step == 0:
        ys = [i / div * delta + start for i in range(n)]
    else:
        ys = [i * step + start for i in range(n)]
    if endpoint and n > 1:
        ys[-1] = stop
    return ys


def np_round(arr, d, at, how):
    if not isinstance(d, Lit) or not isinstance(d.v, int) or arr.cond:
        return Unknown('%s is not known' % how)
    out = []
    for it in arr.items:
        if not is_num(it):
            return Unknown('%s is not known' % how)
        if isinstance(it.v, int):
            out.append(Lit(it.v, at, how, it.np))
            continue
        # numpy's round: rint(x * 10**d) / 10**d (round half to even), as Python's round() of a float
        if d.v >= 0:
            f = 10.0 ** d.v
            r = round(it.v * f) / f
        else:
            f = 10.0 ** -d.v
            r = round(it.v / f) * f
        out.append(Lit(float(r), at, how, 'float64'))
    return Seq(out, at, how, 'ndarray')


def plain(v):
    return v


def computed(v, at, how):
    if isinstance(v, Lit):
        return Lit(v.v, v.at if v.how is None and v.at else at, v.how or how, v.np, v.quote)
    return v


def deep_copy(v, memo=None):
    memo = {} if memo is None else memo
    if id(v) in memo:
        return memo[id(v)]
    if isinstance(v, Map):
        m = Map(v.at, v.how)
        memo[id(v)] = m
        m.cond, m.loaded = v.cond, v.loaded
        for k, x in zip(v.keys, v.vals):
            m.keys.append(k)
            m.vals.append(deep_copy(x, memo))
        return m
    if isinstance(v, Seq):
        s = Seq([], v.at, v.how, v.kind)
        memo[id(v)] = s
        s.cond = v.cond
        s.items = [deep_copy(i, memo) for i in v.items]
        return s
    return v


def shallow_copy(v):
    if isinstance(v, Map):
        m = Map(v.at, v.how)
        m.keys, m.vals, m.cond, m.loaded = list(v.keys), list(v.vals), v.cond, v.loaded
        return m
    if isinstance(v, Seq):
        s = Seq(list(v.items), v.at, v.how, v.kind)
        s.cond = v.cond
        return s
    return v


def default_hp_space(at):
    """transformers' default_hp_space_wandb (src/transformers/trainer_utils.py), used when hyperparameter_search
    gets no hp_space: every node points at the call."""
    how = "transformers' default_hp_space_wandb"

    def lit(v):
        return Lit(v, at, how)

    def mp(pairs):
        m = Map(at, how)
        for k, v in pairs:
            m.set(lit(k), v)
        return m

    return mp([
        ('method', lit('random')),
        ('metric', mp([('name', lit('objective')), ('goal', lit('minimize'))])),
        ('parameters', mp([
            ('learning_rate', mp([('distribution', lit('uniform')), ('min', lit(1e-6)), ('max', lit(1e-4))])),
            ('num_train_epochs', mp([('distribution', lit('int_uniform')), ('min', lit(1)), ('max', lit(6))])),
            ('seed', mp([('distribution', lit('int_uniform')), ('min', lit(1)), ('max', lit(40))])),
            ('per_device_train_batch_size', mp([('values', Seq([lit(4), lit(8), lit(16), lit(32), lit(64)], at,
                                                                how))])),
        ])),
    ])


def hashable(v):
    return isinstance(v, (str, int, float, bool)) or v is None


def subscript_index(node):
    s = node.slice
    if type(s).__name__ == 'Index':    # python 3.8
        return s.value
    return s


def walk_body(body):
    for st in body:
        for n in ast.walk(st):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            yield n


def has_sweep_call(fn):
    for n in ast.walk(fn):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else '')
            if name in ('sweep', 'hyperparameter_search'):
                return True
    return False


BUILTINS = {'dict', 'list', 'tuple', 'set', 'range', 'int', 'float', 'str', 'bool', 'round', 'abs', 'min', 'max',
            'len', 'sum', 'sorted', 'reversed', 'zip', 'enumerate', 'print', 'open'}

BINOPS = {
    ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y, ast.Mult: lambda x, y: x * y,
    ast.Div: lambda x, y: x / y, ast.FloorDiv: lambda x, y: x // y, ast.Mod: lambda x, y: x % y,
    ast.Pow: lambda x, y: x ** y,
}

COMPARE = {
    ast.Eq: lambda x, y: x == y, ast.NotEq: lambda x, y: x != y, ast.Lt: lambda x, y: x < y,
    ast.LtE: lambda x, y: x <= y, ast.Gt: lambda x, y: x > y, ast.GtE: lambda x, y: x >= y,
    ast.Is: lambda x, y: x is y, ast.IsNot: lambda x, y: x is not y,
    ast.In: lambda x, y: x in y, ast.NotIn: lambda x, y: x not in y,
}

MATH = {'log': math.log, 'log10': math.log10, 'log2': math.log2, 'exp': math.exp, 'sqrt': math.sqrt,
        'pow': math.pow, 'floor': math.floor, 'ceil': math.ceil}


# ---- notebooks: IPython syntax that is not Python ----------------------------------------------

CELL_MAGICS_PYTHON = ('%%time', '%%timeit', '%%capture', '%%prun')


def python_of_cell(text):
    """The cell as Python: line magics (%x, !x, x?) blanked, keeping every line and column; None for a cell
    a cell magic makes something other than Python (%%bash, %%writefile ...)."""
    lines = text.split('\n')
    first = lines[0].lstrip() if lines else ''
    start = 0
    if first.startswith('%%'):
        if not first.split()[0] in CELL_MAGICS_PYTHON:
            return None
        start = 1
    out = []
    cont = False
    for i, line in enumerate(lines):
        s = line.strip()
        magic = i < start or cont or s.startswith(('%', '!')) or (s.endswith('?') and not s.startswith('#')) or \
            is_shell_assign(s)
        if magic:
            out.append(' ' * len(line.rstrip('\r')) + ('\r' if line.endswith('\r') else ''))
            cont = line.rstrip('\r').endswith('\\')
        else:
            out.append(line)
            cont = False
    return '\n'.join(out)


def is_shell_assign(s):
    """x = !ls, x = %time f(): IPython's assignment of a magic."""
    i = s.find('=')
    if i <= 0 or s[i - 1] in '=!<>' or s[i + 1:i + 2] == '=':
        return False
    rest = s[i + 1:].lstrip()
    return rest.startswith(('!', '%')) and s[:i].strip().replace('_', 'a').replace(',', '').replace(' ', '').isalnum()


def main():
    try:
        req = json.loads(sys.stdin.readline())
    except (ValueError, OSError):
        req = {}
    if not isinstance(req, dict):
        req = {}
    cells = req.get('cells') or []
    notebook = bool(req.get('notebook'))
    budget = int(req.get('budget') or 200000)
    numbers = req.get('numbers') or list(range(1, len(cells) + 1))
    trees = []
    notes = []
    texts = []
    blank = []          # [cell, line] of each line a notebook's IPython syntax took (blanked in the program)
    for i, text in enumerate(cells):
        code = python_of_cell(text) if notebook else text
        texts.append(code if code is not None else '')
        if notebook:
            old, new = text.split('\n'), (code or '').split('\n')
            blank.extend([i, n + 1] for n in range(len(old)) if code is None or new[n] != old[n])
        if code is None:
            continue
        try:
            trees.append((i, ast.parse(code)))
        except SyntaxError as e:
            if not notebook:
                print(json.dumps({'error': 'syntax error: %s' % e.msg, 'cell': i, 'line': e.lineno or 0}))
                return
            notes.append([i, e.lineno or 0, 'not read: syntax error: %s' % e.msg])
        except (MemoryError, RecursionError, ValueError) as e:
            msg = "python's parser ran out of memory (or nested too deeply): not parsed" \
                if isinstance(e, (MemoryError, RecursionError)) else '%s: %s' % (type(e).__name__, str(e)[:200])
            if not notebook:
                print(json.dumps({'error': msg, 'cell': i, 'line': 0}))
                return
            notes.append([i, 0, 'not read: ' + msg])
    r = Reader(texts, budget)
    r.notebook = notebook
    r.cell_numbers = numbers
    r.notes = notes
    r.returns = []
    try:
        r.run(trees)
    except Stop as e:
        r.notes.append([r.cell, 0, str(e)])
    except (RecursionError, MemoryError):
        r.notes.append([r.cell, 0, 'the evaluation went past its bounds: what was read before is kept'])
    for s in r.sweeps:
        if s['unknown'] and s.get('param') and r.module_sweep_dict(s):
            r.notes.append([s['at'][0], s['at'][1], s.pop('note')])
        s.pop('param', None)
    sys.stdout.write(json.dumps({'sweeps': r.sweeps, 'notes': r.notes, 'blank': blank}) + '\n')
    sys.stdout.flush()


main()
