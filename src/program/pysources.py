# pysources: where a program's values come from — argparse and HfArgumentParser (the sweep's values when
# its command passes ${args}, else their defaults), wandb.config (the sweep's values, else the defaults
# given to wandb.init or the fallback of .get), config files the program loads (read by the C side, each
# value with its own file:line:col), Hydra's composed config, os.path / pathlib on known parts, and the
# mapping types programs keep settings in (SimpleNamespace, EasyDict, ConfigDict ...).

CONFIG_SUFFIXES = ('.yaml', '.yml', '.json')
# external functions that read a config file by the path given: the literal reader's list
CONFIG_LOADERS = {'load', 'safe_load', 'full_load', 'load_config', 'read_config', 'load_yaml', 'read_yaml',
                  'from_yaml', 'from_json', 'parse_config', 'get_config', 'load_json', 'read_json',
                  'from_json_file'}
MAPPING_TYPES = {'SimpleNamespace', 'EasyDict', 'edict', 'ConfigDict', 'AttrDict', 'Munch', 'DotMap', 'Box',
                 'DictConfig', 'FrozenConfigDict', 'Namespace', 'munchify', 'AttrMap'}


class Parser(V):
    """An argparse.ArgumentParser: dest -> (flags, default value, action); open when a flag it accepts may be
    one the text does not show (a computed flag, a parent parser, subcommands, another prefix character)."""
    __slots__ = ('specs', 'open')

    def __init__(self, open_=False):
        self.specs = {}
        self.open = open_


class HfParser(V):
    __slots__ = ('classes', 'trl')

    def __init__(self, classes, trl=False):
        self.classes = classes
        self.trl = trl


class WandbConfig(V):
    """wandb.config: in a sweep's run, the sweep's values; the defaults given to wandb.init / update else."""
    __slots__ = ('defaults',)

    def __init__(self):
        self.defaults = D(kind='wandb')

    def read(self, ev, name, how):
        c = ev.c
        prev = c.out.wandb_reads.get(name, 0)
        c.out.wandb_reads[name] = max(prev, c.phase)

    def read_all(self, ev, how):
        self.read(ev, '*', how)
        cfg_took(ev, self.defaults)          # a loaded config given to wandb.init(config=...), every key

    def param(self, ev, name, default):
        c = ev.c
        if name in c.params:
            return P(name, c.params[name], default, ("the sweep's %s through wandb.config" % name,))
        # a nested sweep parameter (parameters: {optimizer: {parameters: {lr: ...}}}): a mapping of them
        prefix = name + '.'
        sub = c.params.under(prefix)
        if sub:
            d = D(kind='wandb')
            base = default if isinstance(default, D) else None
            if base is not None:
                d.items.update(base.items)
            for k in sub:
                put_path(d, k[len(prefix):], P(k, c.params[k], None, ("the sweep's %s through wandb.config" % k,)))
            return d
        return None

    def attr(self, ev, name, node, fr, fallback=None):
        if name in ('update', 'setdefaults', 'get', 'items', 'keys', 'values', 'as_dict', 'setdefault'):
            return Builtin('wandb.' + name, self)
        return self.item(ev, K(name), node, fr, fallback)

    def item(self, ev, key, node, fr, fallback=None):
        if not isinstance(key, K) or not isinstance(key.v, str):
            self.read_all(ev, 'a computed key')
            return UNK
        name = key.v
        self.read(ev, name, 'wandb.config.%s' % name)
        d = self.defaults.items.get(name)
        v = self.param(ev, name, d)
        if v is not None:
            return v
        if d is not None:
            cfg_took(ev, d)                  # a loaded config given to wandb.init(config=...)
            return with_why(d, 'wandb.config.%s (the sweep does not set it)' % name)
        if fallback is not None:
            return with_why(fallback, 'wandb.config.%s falls back (the sweep does not set it)' % name)
        return UNK

    def method(self, ev, m, a, kw, node, fr):
        if m == 'get':
            if not a:
                return UNK
            fb = a[1] if len(a) > 1 else K(None)
            return self.item(ev, a[0], node, fr, fb)
        if m in ('update', 'setdefaults', 'setdefault'):
            src = a[0] if a else D(dict(kw))
            if isinstance(src, Inst):
                src = D(src.attrs)
            if isinstance(src, D):
                for k, v in src.items.items():
                    self.defaults.items.setdefault(k, v) if m != 'update' else self.defaults.items.__setitem__(k, v)
            return K(None)
        if m in ('items', 'keys', 'values', 'as_dict'):
            d = self.as_dict(ev, node, fr)
            if m == 'as_dict':
                return d
            return ev.dict_call(m, d, [], {}, node, fr)
        return UNK

    def as_dict(self, ev, node, fr):
        """Every key: the sweep's parameters over the defaults (a whole-config read)."""
        c = ev.c
        self.read_all(ev, 'dict(wandb.config)')
        d = D(dict(self.defaults.items), kind='wandb')
        for k in c.params:
            top = k.split('.')[0]
            v = self.param(ev, top, self.defaults.items.get(top))
            if v is not None:
                d.items[top] = v
        return d

    def assign(self, name, v):
        self.defaults.items[name] = v


def put_path(d, dotted, v):
    parts = dotted.split('.')
    for p in parts[:-1]:
        nxt = d.items.get(p)
        if not isinstance(nxt, D):
            nxt = D(kind=d.kind)
            d.items[p] = nxt
        d = nxt
    d.items[parts[-1]] = v


def wandb_of(ev):
    c = ev.c
    if not hasattr(c, 'wandb'):
        c.wandb = WandbConfig()
    return c.wandb


def parts_of(qual, name, base):
    """The dotted name a call resolves to (transformers.AutoModel.from_pretrained), else name / base."""
    if qual:
        return qual.split('.')
    return [x for x in (base, name) if x]


def import_module_value(ev, v, fr):
    """The module importlib.import_module(v) returns: the project's module when v is one known name, else an
    unknown value (a library module, or a name the sweep chooses among several: not followed)."""
    if isinstance(v, P):
        vs = v.values()
        v = K(vs[0]) if vs and len(vs) == 1 else v
    elif isinstance(v, M) and len(v.xs) == 1:
        v = v.at(v.xs[0])
    if not (isinstance(v, K) and isinstance(v.v, str) and v.v and not v.v.startswith('.')):
        return UNK
    mod = ev.load_module(v.v, fr)
    return mod if mod is not None else Ext(v.v)


def source_call(ev, name, base, qual, fv, args, kwargs, node, fr):
    """The value of a call that makes a source of settings, or None when this call is not one."""
    c = ev.c
    parts = parts_of(qual, name, base)
    last = parts[-1] if parts else name
    a = [v for _, v in args]
    kw = dict((k, v) for k, (_, v) in kwargs.items() if k)
    if last is None:
        return None
    if last in ('append', 'insert') and qual in ('sys.path.append', 'sys.path.insert'):
        if a:
            ev.add_sys_path(a[-1], fr)
        return K(None)
    if last in ('add_argument', 'set_defaults') and not isinstance(fv, Builtin):
        # on a parser the evaluation does not show (a function's parameter): its literals are still read
        if last == 'add_argument':
            add_argument(ev, None, node, args, kwargs, fr)
            c.out.argv_loose = True      # a flag of a parser the evaluation does not show
        else:
            for k, (vn, v) in kwargs.items():
                if k and isinstance(v, K) and is_setting_value(v.v) and vn is not None:
                    c.out.declare(k, v, 'argparse set_defaults(%s=...)' % k)
        return K(None)
    if last == 'import_module' and parts[:1] == ['importlib'] and a and not (len(a) > 1 or 'package' in kw):
        # importlib.import_module("engines." + method): the project's module of that name, when the name is
        # known (a constant, or a sweep parameter of one value: engines.FT for method: FT)
        return import_module_value(ev, a[0], fr)
    if last == 'ArgumentParser' or (last == 'ArgParser' and parts[:1] == ['configargparse']):
        return Parser(open_=last != 'ArgumentParser' or any(k in kw for k in ('parents', 'prefix_chars')))
    if last == 'dargparse' and parts[:1] == ['dargparser']:
        # dargparser's dargparse(dataclasses=(A, B)) fills each dataclass from the command line as
        # HfArgumentParser does (its fields' dArg(default=...) the defaults): a tuple of instances, one
        # instance for one class (dargparser/dargparser.py dargparse)
        classes = kw.get('dataclasses', a[0] if a else None)
        items = classes.items if isinstance(classes, L) else [classes] if classes is not None else []
        outs = [hf_instance(ev, cls, None) for cls in items]
        return outs[0] if isinstance(classes, Cls) and len(outs) == 1 else L(outs)
    if last in ('HfArgumentParser', 'TrlParser'):
        classes = a[0] if a else kw.get('dataclass_types')
        items = classes.items if isinstance(classes, L) else [classes] if classes is not None else []
        return HfParser(items, trl=last == 'TrlParser')
    if last == 'init' and (parts[:-1] == ['wandb'] or base == 'wandb'):
        w = wandb_of(ev)
        cfg = kw.get('config')
        if cfg is not None:
            if isinstance(cfg, Inst):
                cfg = D(cfg.attrs)
            if isinstance(cfg, D):
                for k, v in cfg.items.items():
                    w.defaults.items.setdefault(k, v)
        return Ext('wandb.Run', True, w)
    if last == 'agent' and (parts[:-1] == ['wandb'] or base == 'wandb'):
        f = kw.get('function')
        if f is None and len(a) > 1:
            f = a[1]
        if isinstance(f, Func):
            ev.call_func(f, None, [], {}, node, fr)
        return K(None)
    if last in ('Fire', 'run') and (parts[:-1] in (['fire'], ['typer']) or base in ('fire', 'typer')):
        f = a[0] if a else None
        if isinstance(f, Func):
            ev.call_func(f, None, [], cli_kwargs(ev, f), node, fr)
        return K(None)
    if last in MAPPING_TYPES:
        d = D(kind='ns')
        for x in a[:1]:
            if isinstance(x, WandbConfig):
                x = x.as_dict(ev, node, fr)
            if isinstance(x, Inst):
                x = D(x.attrs)
            if isinstance(x, D):
                d.items.update(x.items)
                d.open = x.open
            else:
                d.open = True
        d.items.update(kw)
        if None in kwargs:
            d.open = True
        return d
    if last in ('deepcopy', 'copy') and a and (parts[:-1] == ['copy'] or base == 'copy'):
        return a[0]
    # config files
    if parts[:-1] in (['OmegaConf'], ['omegaconf', 'OmegaConf']) or base == 'OmegaConf':
        return omegaconf_call(ev, last, a, kw, args, node, fr)
    if last in ('safe_load', 'load', 'full_load', 'unsafe_load') and \
            (parts[:-1] in (['yaml'], ['json'], ['toml'], ['tomllib'], ['ruamel', 'yaml']) or
             base in ('yaml', 'json', 'toml', 'tomllib')):
        if a and isinstance(a[0], Ext) and a[0].qual == 'open()' and a[0].data is not None:
            return load_config(ev, a[0].data, '%s.%s(open(...))' % (base or parts[0], last), node, fr)
        if a and isinstance(a[0], K) and isinstance(a[0].v, str) and base == 'yaml' and '\n' in a[0].v:
            return UNK
        return UNK
    if last == 'loads' and base in ('json', 'yaml'):
        return UNK
    if last in ('parse_yaml_file', 'parse_json_file'):
        return None                       # a parser method: parser_call
    # os.path and pathlib
    if parts[:-1] in (['os', 'path'], ['path'], ['osp'], ['op']) or base in ('path', 'osp'):
        return path_call(ev, last, a, node, fr)
    if last in ('getenv',) or (last == 'get' and base == 'environ'):
        return U('an environment variable')
    if last == 'getcwd':
        return U('the working folder')
    if last in ('Path', 'PurePath', 'PosixPath') and (not parts[:-1] or parts[:-1] == ['pathlib']):
        if a and all(isinstance(x, K) and isinstance(x.v, str) for x in a):
            return Ext('pathlib.Path()', True, os.path.join(*[x.v for x in a]))
        if a and isinstance(a[0], Ext) and a[0].qual == 'pathlib.Path()':
            return a[0]
        return Ext('pathlib.Path()', True, None)
    if last == 'main' and base == 'hydra':
        return None
    if last in ('initialize', 'initialize_config_dir', 'compose') and (base == 'hydra' or 'hydra' in parts[:-1]
                                                                         or not parts[:-1]):
        info = {'config_path': kw_str(kw, 'config_path') or kw_str(kw, 'config_dir'),
                'config_name': kw_str(kw, 'config_name'), 'line': node.lineno, 'fid': fr.fid}
        c.out.hydra_call(info)
        if last == 'compose':
            cfg = c.out.hydra_values(ev, c.out.hydra)
            return cfg if cfg is not None else U('the Hydra config is not composed')
        return Ext('hydra.' + last + '()', True)
    # a function of some library that reads a config file by a literal path (load_config("cfg.yaml"))
    if last in CONFIG_LOADERS and a and isinstance(a[0], K) and isinstance(a[0].v, str) and \
            a[0].v.endswith(CONFIG_SUFFIXES):
        return load_config(ev, a[0], '%s("%s")' % ((base + '.' if base else '') + last, a[0].v), node, fr)
    return None


def kw_str(kw, key):
    v = kw.get(key)
    return v.v if isinstance(v, K) and isinstance(v.v, str) else None


def cli_kwargs(ev, f):
    """fire.Fire(main) / typer.run(main): the sweep's ${args} are the function's keyword arguments."""
    c = ev.c
    out = {}
    if c.args_mode != 'hyphens':
        return out
    a = f.node.args
    for p in list(a.args) + list(a.kwonlyargs):
        for name in (p.arg, p.arg.replace('_', '-')):
            if name in c.params:
                out[p.arg] = (None, P(name, c.params[name], None, ("the sweep's %s through ${args}" % name,)))
    return out


def path_call(ev, last, a, node, fr):
    def strs():
        return all(isinstance(x, K) and isinstance(x.v, str) for x in a)
    if last == 'join' and a:
        def j(*xs):
            if all(isinstance(x, K) and isinstance(x.v, str) for x in xs):
                r = os.path.join(*[x.v for x in xs])
                return K(r, ev.c.site(fr.fid, node), ()) if len(r) <= MAX_STR else UNK
            return UNK
        return lift(j, *a)
    if not a or not strs():
        return UNK
    p = a[0].v
    if last == 'dirname':
        return K(os.path.dirname(p))
    if last == 'basename':
        return K(os.path.basename(p))
    if last in ('abspath', 'realpath', 'normpath', 'expanduser'):
        return K(os.path.normpath(p), a[0].site, a[0].why) if (os.path.isabs(p) or last != 'expanduser') else UNK
    if last in ('exists', 'isfile', 'isdir'):
        return UNK
    if last == 'splitext':
        return K(list(os.path.splitext(p)))
    return UNK


def source_open(ev, a, node, fr):
    p = a[0] if a else None
    if isinstance(p, Ext) and p.qual == 'pathlib.Path()' and isinstance(p.data, str):
        p = K(p.data)
    if isinstance(p, K) and isinstance(p.v, str):
        return Ext('open()', True, p)
    return Ext('open()', True, None)


def omegaconf_call(ev, last, a, kw, args, node, fr):
    c = ev.c
    if last == 'load' and a:
        p = a[0]
        if isinstance(p, Ext) and p.qual == 'pathlib.Path()' and isinstance(p.data, str):
            p = K(p.data)
        return load_config(ev, p, 'OmegaConf.load', node, fr)
    if last in ('create', 'structured', 'to_container', 'to_object', 'masked_copy'):
        x = a[0] if a else D(kind='config')
        if isinstance(x, U) and last == 'create':
            return D(kind='config', open_=True)   # a config whose contents are not known; writes are kept
        if isinstance(x, WandbConfig):
            return x.as_dict(ev, node, fr)
        if isinstance(x, Inst):
            return D(dict(x.attrs), kind='config')
        if isinstance(x, Cls) and x.fields is not None:
            return D(dict((n, d if d is not None else UNK) for n, d in x.fields), kind='config')
        return x if isinstance(x, D) else UNK
    if last in ('merge', 'unsafe_merge'):
        out = D(kind='config')
        for x in a:
            if isinstance(x, WandbConfig):
                x = x.as_dict(ev, node, fr)
            if isinstance(x, Inst):
                x = D(x.attrs)
            if isinstance(x, D):
                merge_into(out, x)
            else:
                out.open = True
        return out
    if last in ('from_cli', 'from_dotlist'):
        d = D(kind='config', open_=True)
        if last == 'from_cli' and c.args_mode in ('no_hyphens', 'hyphens'):
            for k, spec in c.params.items():
                put_path(d, k, P(k, spec, None, ("the sweep's %s on the command line" % k,)))
        return d
    if last == 'select' and len(a) >= 2 and isinstance(a[1], K) and isinstance(a[1].v, str):
        v = a[0]
        for part in a[1].v.split('.'):
            v = ev.get_attr(v, part, node, fr)
        return v
    return UNK


def merge_into(dst, src):
    for k, v in src.items.items():
        old = dst.items.get(k)
        if isinstance(old, D) and isinstance(v, D):
            merge_into(old, v)
        else:
            dst.items[k] = D(dict(v.items), v.kind, v.site, v.open) if isinstance(v, D) else v
    dst.open = dst.open or src.open


def load_config(ev, pathv, how, node, fr, dest=None):
    """A YAML/JSON file the program loads: the C side reads it (each value keeps its file:line:col)."""
    c = ev.c
    if not isinstance(pathv, K) or not isinstance(pathv.v, str) or not pathv.v:
        if isinstance(pathv, (P, M)):
            c.note('%s loads a file the sweep chooses: not read here' % how, fr.fid, node)
        return U('a config file whose path is not known')
    path = pathv.v
    where = c.where(fr.fid, node)
    c.out.config_file(path, node.lineno, '%s("%s")' % (how, path) if '(' not in how else how, dest, fr.fid)
    key = (path, c.files[fr.fid])
    if key in c.config_cache:
        return c.config_cache[key]
    reply = c.reply('config', {'path': path, 'from': c.files[fr.fid]})
    reads = CfgReads()
    c.out.config_reads(path, dest, reads)
    d = config_from_reply(ev, reply, '%s at %s' % (how, where), reads)
    c.config_cache[key] = d
    return d


class CfgReads:
    """The keys of one loaded config the program takes (docs/program.md "Configs the program loads"): every
    dotted key it reads a value or a sub-mapping at, '' when it takes the mapping whole (hands it to code the
    text does not show, iterates it, copies it, expands it with **)."""
    __slots__ = ('keys',)

    def __init__(self):
        self.keys = set()


def tag_config(d, reads, prefix=''):
    d.tag = (reads, prefix)
    for k, v in d.items.items():
        if isinstance(v, D) and v.tag is None:
            tag_config(v, reads, prefix + '.' + k if prefix else k)


def cfg_took(ev, v, depth=0):
    """v taken whole: a loaded config's mapping (its key and everything under it) or one of its values."""
    if isinstance(v, D) and v.tag is not None:
        v.tag[0].keys.add(v.tag[1])
    elif isinstance(v, K) and v.site is not None and v.site[0] == 'cfg':
        r = ev.c.config_reads.get(v.site[1])
        if r is not None:
            r.keys.add(v.site[2])
    elif isinstance(v, (L, OneOf, D)) and ev.c.config_reads:
        # a list or mapping of the program's that may hold one: looked into 3 levels deep, 64 items each
        # (bounded per call); past that, every config counts as taken whole
        xs = v.items if isinstance(v, L) else v.opts if isinstance(v, OneOf) else v.items
        if depth >= 3 or len(xs) > 64:
            ev.c.out.config_whole = True
            return
        for x in (xs.values() if isinstance(xs, dict) else xs):
            cfg_took(ev, x, depth + 1)


def cfg_key(d, key):
    """The key of a loaded config's mapping d read: its dotted key recorded."""
    if d.tag is not None and isinstance(key, str):
        d.tag[0].keys.add(d.tag[1] + '.' + key if d.tag[1] else key)


def config_from_reply(ev, reply, how, reads=None):
    c = ev.c
    if not reply or reply.get('error') or not reply.get('configs'):
        return U((reply or {}).get('error') or 'not read')
    d = D(kind='config')
    for cf in reply['configs']:
        cid = len(c.configs)
        c.configs.append(cf.get('display') or '?')
        if reads is not None:
            c.config_reads[cid] = reads
        for key, val in cf.get('values') or []:
            if not isinstance(key, str):
                continue
            v = K(val, ('cfg', cid, key), ('%s in %s (%s)' % (key, cf.get('display') or '?', how),)) \
                if is_scalar(val) or isinstance(val, list) else U('a nested value')
            put_path(d, key, v)
    if reads is not None:
        tag_config(d, reads)
    return d


def hydra_values(ev, info):
    """The Hydra config a @hydra.main function receives: composed by the C side, with the sweep's overrides."""
    c = ev.c
    if not info or not info.get('config_name'):
        return None
    if getattr(c, 'hydra_cfg', None) is not None:
        return c.hydra_cfg
    reply = c.reply('hydra', {'config_path': info.get('config_path'), 'config_name': info.get('config_name'),
                              'from': c.files[info.get('fid', 0)], 'line': info.get('line') or 0})
    d = config_from_reply(ev, reply, 'Hydra composition')
    if not isinstance(d, D):
        d = D(kind='config', open_=True)
    groups = set((reply or {}).get('groups') or [])
    if c.args_mode in ('no_hyphens', 'hyphens'):
        for k, spec in c.params.items():
            if k in groups or k.lstrip('+~') in groups:
                continue
            put_path(d, k.lstrip('+~'), P(k, spec, None, ("the sweep's %s as a Hydra override" % k,)))
    c.hydra_cfg = d
    return d


def cmd_value(ev, at, text):
    """A literal option of the command (or a shell script's python line), typed as argparse would leave it."""
    return K(text, ('cmd', at, None))


def argparse_value(ev, parser_specs, dest, flags, default, action=None):
    """args.dest: the sweep's value when ${args} passes a parameter named by one of its flags; a literal
    option of the command (a bare --flag for store_true / store_false); else the default."""
    c = ev.c
    names = [f.lstrip('-') for f in flags if f.startswith('-')]
    if c.args_mode == 'hyphens':
        for n in names:
            if n in c.params:
                return P(n, c.params[n], default, ("the sweep's %s through ${args}" % n,))
    for key, text, at in c.argv:
        if key in names:
            lv = argv_value(ev, at, text, default, action, 'passed as --%s by the launching program' % key)
            if lv is not None:
                return lv         # a value the program that launches this one computes (pylaunch.py)
            if text is None:
                if action in ('store_true', 'store_false'):
                    return K(action == 'store_true', ('cmd', at, None), ('flag --%s of the command' % key,))
                continue
            # the command names the file: the config the default names is not the one loaded (-c big.yaml)
            c.out.configs = [cf for cf in c.out.configs if cf['dest'] != dest]
            return with_why(cmd_value(ev, at, text), 'option --%s of the command' % key)
    if isinstance(default, K) and flags and flags[0].startswith('-'):
        return with_why(default, 'argparse default of %s' % next((f for f in flags if f.startswith('--')), flags[0]))
    return default


def parser_call(ev, n, obj, args, kwargs, node, fr):
    c = ev.c
    m = n.split('.', 1)[1]
    a = [v for _, v in args]
    kw = dict((k, v) for k, (_, v) in kwargs.items() if k)
    if isinstance(obj, Parser):
        if m in ('add_argument_group', 'add_mutually_exclusive_group', 'add_subparsers', 'add_parser'):
            if m in ('add_subparsers', 'add_parser'):
                obj.open = True      # a subcommand's flags
            return obj
        if m == 'add_argument':
            # the Action it returns: its dest and default (a wrapper keeps them: self._args[a.dest] = a.default)
            return add_argument(ev, obj, node, args, kwargs, fr) or K(None)
        if m == 'set_defaults':
            for k, (vn, v) in kwargs.items():
                if not k:
                    continue
                if isinstance(v, K) and is_setting_value(v.v) and vn is not None:
                    c.out.declare(k, v, 'argparse set_defaults(%s=...)' % k)
                spec = obj.specs.get(k)
                obj.specs[k] = (spec[0] if spec else [], v, spec[2] if spec else None)
            return K(None)
        if m in ('parse_args', 'parse_known_args', 'parse_intermixed_args'):
            if c.phase == 2:
                # parse_args() of sys.argv, where a call reaches: it refuses a flag no argument defines
                if m == 'parse_args' and not a and 'args' not in kw:
                    c.out.argv_parsers.append(obj)
                else:
                    c.out.argv_loose = True
            ns = D(kind='namespace')
            for dest, (flags, default, action) in obj.specs.items():
                ns.items[dest] = argparse_value(ev, obj.specs, dest, flags, default, action)
            return L([ns, UNK]) if m == 'parse_known_args' else ns
        return UNK
    if isinstance(obj, HfParser):
        if m in ('parse_args_into_dataclasses', 'parse_args_and_config', 'parse_yaml_file', 'parse_json_file',
                 'parse_dict', 'parse_known_args'):
            conf = None
            if m in ('parse_yaml_file', 'parse_json_file') and a:
                conf = load_config(ev, a[0], 'HfArgumentParser.%s' % m, node, fr)
            elif m == 'parse_dict' and a and isinstance(a[0], D):
                conf = a[0]
            elif obj.trl or m == 'parse_args_and_config':
                for key, text, at in c.argv:
                    if key == 'config' and text is not None:
                        conf = load_config(ev, with_why(cmd_value(ev, at, text), 'option --config of the command'),
                                           'TrlParser --config', node, fr)
            outs = [hf_instance(ev, cls, conf) for cls in obj.classes]
            if m == 'parse_args_and_config' or (m == 'parse_args_into_dataclasses' and
                                                  kw.get('return_remaining_strings') is not None):
                outs.append(UNK)
            return L(outs)
        return UNK
    return UNK


def hf_instance(ev, cls, conf):
    """One dataclass HfArgumentParser fills: the sweep's values (${args}), a config file's, the defaults."""
    c = ev.c
    if isinstance(cls, Cls) and cls.fields is not None:
        inst = Inst(cls)
        for name, d in cls.fields:
            v = d if d is not None else UNK
            if isinstance(conf, D) and name in conf.items:
                v = conf.items[name]
            inst.attrs[name] = argparse_value(ev, None, name, ['--' + name], v)
        cls.last = inst
        return inst
    # an external dataclass (TrainingArguments, SFTConfig, ModelConfig): what the sweep and the config give
    d = D(kind='args', open_=True)
    if isinstance(conf, D):
        d.items.update(conf.items)
    if c.args_mode == 'hyphens':
        for k, spec in c.params.items():
            d.items[k] = P(k, spec, d.items.get(k), ("the sweep's %s through ${args}" % k,))
    for key, text, at in c.argv:
        lv = argv_value(ev, at, text, d.items.get(key, UNK), 'store_true',
                        'passed as --%s by the launching program' % key)
        d.items[key] = lv if lv is not None else \
            cmd_value(ev, at, text) if text is not None else K(True, ('cmd', at, None))
    if isinstance(cls, Ext):
        d.kind = 'args:' + cls.qual.split('.')[-1]
    return d


def add_argument(ev, parser, node, args, kwargs, fr):
    """parser.add_argument(...): its default is a declaration (the literal reader's), and the parser's."""
    c = ev.c
    flags = [v.v for _, v in args if isinstance(v, K) and isinstance(v.v, str)]
    if not flags or len(flags) != len(args):
        if parser is not None:
            parser.open = True       # a flag the text does not show
        if not flags:
            return
    kw = dict((k, v) for k, v in kwargs.items() if k)
    dest = None
    if 'dest' in kw:
        dv = kw['dest'][1]
        if not (isinstance(dv, K) and isinstance(dv.v, str)):
            if parser is not None:
                parser.specs['\0%d' % len(parser.specs)] = (flags, K(None), None)
            return
        dest = dv.v
    if dest is None:
        longs = [f for f in flags if f.startswith('--')]
        shorts = [f for f in flags if f.startswith('-') and not f.startswith('--')]
        name = longs[0][2:] if longs else shorts[0][1:] if shorts else flags[0]
        dest = name.replace('-', '_')
    shown_flag = next((f for f in flags if f.startswith('--')), flags[0])
    action = None
    if 'action' in kw:
        av = kw['action'][1]
        action = av.v if isinstance(av, K) else '?'
    default = None
    how = 'argparse default of %s' % shown_flag
    if 'default' in kw:
        dn, dv = kw['default']
        if isinstance(dv, K) and is_setting_value(dv.v):
            c.out.declare(dest, dv, how, node=dn if dv.site is None else None)
            default = dv
            if isinstance(dv.v, str) and dv.v.endswith(CONFIG_SUFFIXES) and ('config' in dest or 'cfg' in dest):
                c.out.config_file(dv.v, dn.lineno, how, dest, fr.fid)
        else:
            if not isinstance(dv, K):
                c.note('argparse default of %s is computed: not read' % shown_flag, fr.fid, dn)
            default = dv
    elif action in ('store_true', 'store_false'):
        default = K(action == 'store_false', c.site(fr.fid, node))
        c.out.declare(dest, default, 'argparse %s flag %s (default)' % (action, shown_flag))
    else:
        default = K(None)
    if parser is not None:
        parser.specs[dest] = (flags, default, action)
    return D({'dest': K(dest), 'default': default}, kind='action')


def ext_attr(ev, obj, name, node, fr):
    """An attribute of an external name or object: wandb.config, sys.argv, torch.bfloat16, a Path's parent."""
    c = ev.c
    q = obj.qual
    v = module_ext_attr(obj, name)        # a tokenizer encoding's vocabulary (pymodules.py)
    if v is not None:
        return v
    if (q, name) in c.ext_attrs:
        return c.ext_attrs[(q, name)]
    if name == 'config' and (q in ('wandb', 'wandb.run', 'wandb.Run') or (obj.made and q == 'wandb.Run')):
        c.out.wandb_bound = max(c.out.wandb_bound, c.phase)
        return wandb_of(ev)
    if q == 'sys' and name == 'argv':
        return L([K(os.path.basename(c.files[0]))] + [K(w) for w in c.words])
    if q == 'builtins.type' and obj.made and name == '__name__':
        return K('type')
    if q.startswith('builtins.') and not obj.made and name == '__name__':
        return K(q[9:])
    if q in ('torch', 'th') and name in DTYPES:
        return K(name, c.site(fr.fid, node))
    if q == 'pathlib.Path()' and isinstance(obj.data, str):
        p = obj.data
        if name == 'parent':
            return Ext(q, True, os.path.dirname(p))
        if name == 'name':
            return K(os.path.basename(p))
        if name == 'stem':
            return K(os.path.splitext(os.path.basename(p))[0])
        if name in ('resolve', 'absolute', 'expanduser'):
            return Builtin('path.same', obj)
        if name == 'joinpath':
            return Builtin('path.join', obj)
    if q == 'open()' and name in ('read', 'readlines'):
        return UNK
    if q in ('add_argument', ) or name == 'add_argument':
        return Ext(q + '.' + name, obj.made)
    return Ext(q + '.' + name, obj.made)


Evaluator.ext_attr = ext_attr
