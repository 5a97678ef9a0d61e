# pyvalues: the abstract values of the program evaluator (docs/program.md §2).
#
# First of the five files sweeplint concatenates into one script (pyvalues.py, pyeval.py, pysources.py,
# pysinks.py, pyread.py: src/program/pyread.c); they share one namespace and import nothing but ast, json, os, re, sys, time.
#
# A value is proven from the program's text or it is not given:
#   K(v)        a known constant (str, int, float, bool, None, or a tuple of those for a list literal),
#               with the place it is written (site) and the steps it took to get here (why)
#   U(why)      unknown
#   OneOf(...)  several known possibilities the text does not decide (an if on something unknown)
#   P(name)     a sweep parameter: its value is the sweep's, whatever it is in each run
#   M(p, cases) a function of one sweep parameter: for each of its values, a value (or UNSET: the
#               setting is not made for that value, as under `if cfg.use_lora:`)
#   D / L       a mapping / a list whose items are values (dict literals, loaded configs, namespaces)
# and the objects the evaluator models (modules, functions, classes, instances, external names).
import ast
import json
import os
import re
import sys
import time

MAX_ONEOF = 8          # more possibilities than this are unknown
MAX_ITEMS = 512        # a container literal with more items is unknown
MAX_STR = 4096         # a computed string longer than this is unknown
MAX_WHY = 6            # provenance steps kept per value (the first and the last ones)


class Stop(Exception):
    """The evaluation ran out of its operation budget or its depth: what was read so far is kept."""


class V(object):
    __slots__ = ()


class K(V):
    __slots__ = ('v', 'site', 'why')

    def __init__(self, v, site=None, why=()):
        self.v = v
        self.site = site
        self.why = why

    def __repr__(self):
        return 'K(%r)' % (self.v,)


class U(V):
    __slots__ = ('why',)

    def __init__(self, why=''):
        self.why = why

    def __repr__(self):
        return 'U(%s)' % self.why


UNK = U()


class _Unset(V):
    __slots__ = ()

    def __repr__(self):
        return 'UNSET'


UNSET = _Unset()


class OneOf(V):
    __slots__ = ('opts',)

    def __init__(self, opts):
        self.opts = opts

    def __repr__(self):
        return 'OneOf(%r)' % (self.opts,)


class P(V):
    """A sweep parameter: spec is the request's entry ({"values": [...]} or {"range": true})."""
    __slots__ = ('name', 'spec', 'default', 'why')

    def __init__(self, name, spec, default=None, why=()):
        self.name = name
        self.spec = spec
        self.default = default
        self.why = why

    def values(self):
        vs = self.spec.get('values')
        return vs if isinstance(vs, list) else None

    def __repr__(self):
        return 'P(%s)' % self.name


class M(V):
    """A function of sweep parameter `param`: cases maps pkey(x) to a value for each of its values xs."""
    __slots__ = ('param', 'xs', 'cases', 'cond')

    def __init__(self, param, xs, cases, cond=None):
        self.param = param
        self.xs = xs
        self.cases = cases
        self.cond = cond

    def at(self, x):
        return self.cases.get(pkey(x), UNK)

    def __repr__(self):
        return 'M(%s, %r)' % (self.param, self.cases)


class D(V):
    """A mapping of names to values: a dict literal, a loaded config, a namespace, a ConfigDict."""
    __slots__ = ('items', 'kind', 'site', 'open', 'tag')

    def __init__(self, items=None, kind='dict', site=None, open_=False):
        self.items = items if items is not None else {}
        self.kind = kind
        self.site = site
        self.open = open_      # keys may exist that are not listed (a missing key is unknown, not absent)
        self.tag = None        # a loaded config's mapping: (CfgReads, its dotted key, '' at the top)

    def __repr__(self):
        return 'D(%s, %r)' % (self.kind, list(self.items)[:8])


class L(V):
    __slots__ = ('items', 'site')

    def __init__(self, items, site=None):
        self.items = items
        self.site = site


class Mod(V):
    __slots__ = ('name', 'env', 'file', 'done')

    def __init__(self, name, env, file):
        self.name = name
        self.env = env
        self.file = file
        self.done = False


class Func(V):
    __slots__ = ('node', 'mod', 'closure', 'cls', 'entry', 'called', 'defaults', 'kw_defaults', 'mkind')

    def __init__(self, node, mod, closure=None, cls=None):
        self.node = node
        self.mod = mod
        self.closure = closure
        self.cls = cls
        self.entry = None      # how a framework calls it: ('hydra', info)
        self.called = False
        self.defaults = []     # evaluated where the function is defined, as Python does
        self.kw_defaults = []
        self.mkind = None      # 'classmethod' / 'staticmethod' (a method bound to its class / to nothing)


class Cls(V):
    __slots__ = ('node', 'mod', 'attrs', 'bases', 'fields', 'last')

    def __init__(self, node, mod, attrs, bases, fields):
        self.node = node
        self.mod = mod
        self.attrs = attrs
        self.bases = bases     # values: Cls for local classes, Ext for imported ones
        self.fields = fields   # dataclass fields: [(name, default value or None)], else None
        self.last = None       # the last instance made (for methods no call reaches)


class Inst(V):
    __slots__ = ('cls', 'attrs')

    def __init__(self, cls, attrs=None):
        self.cls = cls
        self.attrs = attrs if attrs is not None else {}


class Bound(V):
    __slots__ = ('self_', 'func')

    def __init__(self, self_, func):
        self.self_ = self_
        self.func = func


class Ext(V):
    """A name from a module that is not the project's (transformers.AutoModel), or an object it made."""
    __slots__ = ('qual', 'made', 'data')

    def __init__(self, qual, made=False, data=None):
        self.qual = qual
        self.made = made       # an instance: the result of calling qual
        self.data = data       # what a sink keeps on the object (a LoraConfig's keywords ...)

    def __repr__(self):
        return 'Ext(%s%s)' % (self.qual, '()' if self.made else '')


class Builtin(V):
    __slots__ = ('name', 'self_')

    def __init__(self, name, self_=None):
        self.name = name
        self.self_ = self_


def pkey(x):
    """A hashable key for a sweep value that keeps True and 1 apart."""
    if isinstance(x, (list, tuple)):
        return ('list', json.dumps(x, sort_keys=True, default=str))
    if isinstance(x, dict):
        return ('dict', json.dumps(x, sort_keys=True, default=str))
    return (type(x).__name__, x)


def is_scalar(v):
    return v is None or isinstance(v, (str, int, float, bool))


def const_key(v):
    """Identity of a known value across sites, for telling possibilities apart."""
    if isinstance(v, K):
        return pkey(v.v)
    if v is UNSET:
        return ('unset',)
    return ('obj', id(v))


def with_why(v, step):
    """v with one more provenance step (K, P and M carry them; other values are returned as they are).
    A step is text, or a tuple rendered when it is shown (render_step in pyeval.py): most never are."""
    if isinstance(v, K):
        w = v.why + (step,)
        if len(w) > MAX_WHY:
            w = w[:2] + w[-(MAX_WHY - 2):]
        return K(v.v, v.site, w)
    if isinstance(v, P):
        w = v.why + (step,)
        if len(w) > MAX_WHY:
            w = w[:2] + w[-(MAX_WHY - 2):]
        return P(v.name, v.spec, v.default, w)
    return v


def one_of(vals):
    """The join of several possibilities: the value when they agree, OneOf when they are a few constants."""
    opts = []
    seen = set()
    for v in vals:
        for o in (v.opts if isinstance(v, OneOf) else (v,)):
            k = const_key(o)
            if k in seen:
                continue
            seen.add(k)
            opts.append(o)
    if len(opts) == 1:
        return opts[0]
    if not opts or len(opts) > MAX_ONEOF:
        return UNK
    if all(isinstance(o, (K, _Unset)) for o in opts):
        return OneOf(opts)
    e = modules_one_of(opts)       # branches that hold modules: all of them (pymodules.py)
    if e is not None:
        return e
    # objects of one kind (two LoraConfigs under if/else) are not a constant: unknown unless identical
    return UNK


def choice_object(v):
    """A LoraConfig / BitsAndBytesConfig object (pysinks.py make_object): its kind, else None."""
    if isinstance(v, Ext) and isinstance(v.data, dict):
        return v.data.get('kind')
    return None


def choice_table(d):
    """The table a mapping of two or more configs of one kind is ({"4bits": BitsAndBytesConfig(...),
    "8bits": BitsAndBytesConfig(...)}: alternatives the program picks one of), else None."""
    if not isinstance(d, D):
        return None
    for v in d.items.values():
        t = v.data.get('table') if choice_object(v) else None
        if t is not None:
            return t
    return None


def param_values(v):
    """The (param, values) a value depends on when it is a P with listed values or an M; else None."""
    if isinstance(v, M):
        return v.param, v.xs
    if isinstance(v, P):
        xs = v.values()
        if xs is not None:
            return v.name, xs
    return None


def at_param(v, name, x):
    """v in the runs where sweep parameter `name` is x."""
    if isinstance(v, M):
        return v.at(x) if v.param == name else v   # another parameter's map: it still depends on that one
    if isinstance(v, P):
        if v.name == name:
            return K(x, None, v.why + (('param', name, x),))
        return v
    return v


def lift(fn, *vals):
    """fn over values that may depend on one sweep parameter (P with values, M): an M, else fn(*vals)."""
    dep = None
    for v in vals:
        pv = param_values(v)
        if pv is None:
            if isinstance(v, P):
                return UNK          # a range parameter: no value per run is known
            continue
        if dep is not None and dep[0] != pv[0]:
            return UNK              # two parameters: not one function
        dep = pv
    if dep is None:
        return fn(*vals)
    name, xs = dep
    cases = {}
    for x in xs:
        cases[pkey(x)] = fn(*[at_param(v, name, x) for v in vals])
    return M(name, xs, cases)


def shown(x):
    if isinstance(x, str):
        return '"%s"' % x
    return json.dumps(x) if not isinstance(x, float) or x == x else 'nan'
