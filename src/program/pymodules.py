# pymodules: a custom nn.Module the program builds, read as a layer list (docs/program.md "Custom
# modules"; the format is docs/cli.md's role `modules`, counted by src/memory/modules.c).
#
# Fifth of the seven files sweeplint concatenates (after pysinks.py, before pylaunch.py). The evaluator
# already runs a local class's __init__ with the values given; this file makes what torch.nn's
# constructors return abstract values of their own (Layer: nn.Linear(d, 4 * d) with its arguments as
# values, containers with their children, nn.Parameter of a tensor's shape), keeps sizes computed from
# sweep parameters as expressions (Sym: `d_model * 4`, `hidden // heads` of two parameters, which a value
# map of one parameter cannot hold), repeats (Rep: `[Block() for _ in range(n)]`), and at the end writes
# the model the program trains as `sweeplint_modules`: each size a number, `{expr}` of the sweep
# parameters it is computed from (counted per combination by the C side), or the largest of a few
# possibilities with the list marked `<=` (an upper bound). What the list cannot state is refused, with
# a note: a size that is not known (a vocabulary counted from the data), a library model inside the
# module (from_pretrained, timm), a torch.nn class modules.c does not count, a forward that runs a
# submodule several times in a loop (its activations repeat), or a hand-written attention whose heads are
# not read. A program that loads a pretrained model is not given a layer list (the model is that one).

# torch.nn classes whose positional signature is read: torch's own argument names, in order
# (torch/nn/modules/linear.py, sparse.py, conv.py, normalization.py, batchnorm.py, activation.py,
# transformer.py, rnn.py); the names modules.c reads come first in its positional order, the rest are
# written as keywords.
NN_SIGNATURES = {
    'Linear': ('in_features', 'out_features', 'bias'),
    'LazyLinear': ('out_features', 'bias'),
    'Embedding': ('num_embeddings', 'embedding_dim', 'padding_idx'),
    'Conv1d': ('in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'groups', 'bias'),
    'Conv2d': ('in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'groups', 'bias'),
    'Conv3d': ('in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'groups', 'bias'),
    'LayerNorm': ('normalized_shape', 'eps', 'elementwise_affine', 'bias'),
    'RMSNorm': ('normalized_shape', 'eps', 'elementwise_affine'),
    'BatchNorm1d': ('num_features', 'eps', 'momentum', 'affine'),
    'BatchNorm2d': ('num_features', 'eps', 'momentum', 'affine'),
    'GroupNorm': ('num_groups', 'num_channels', 'eps', 'affine'),
    'MultiheadAttention': ('embed_dim', 'num_heads', 'dropout', 'bias', 'add_bias_kv', 'add_zero_attn', 'kdim',
                           'vdim'),
    'TransformerEncoderLayer': ('d_model', 'nhead', 'dim_feedforward', 'dropout', 'activation', 'layer_norm_eps',
                                'batch_first', 'norm_first', 'bias'),
    'TransformerDecoderLayer': ('d_model', 'nhead', 'dim_feedforward', 'dropout', 'activation', 'layer_norm_eps',
                                'batch_first', 'norm_first', 'bias'),
    'LSTM': ('input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first', 'dropout', 'bidirectional',
             'proj_size'),
    'GRU': ('input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first', 'dropout', 'bidirectional'),
    'RNN': ('input_size', 'hidden_size', 'num_layers', 'nonlinearity', 'bias', 'batch_first', 'dropout',
            'bidirectional'),
}
# what modules.c reads of each: (positional names, keyword names)
NN_WRITTEN = {
    'Linear': (('in_features', 'out_features'), ('bias',)),
    'LazyLinear': (('out_features',), ('bias',)),
    'Embedding': (('num_embeddings', 'embedding_dim'), ()),
    'Conv1d': (('in_channels', 'out_channels', 'kernel_size'), ('groups', 'bias')),
    'Conv2d': (('in_channels', 'out_channels', 'kernel_size'), ('groups', 'bias')),
    'Conv3d': (('in_channels', 'out_channels', 'kernel_size'), ('groups', 'bias')),
    'LayerNorm': (('normalized_shape',), ('elementwise_affine', 'bias')),
    'RMSNorm': (('normalized_shape',), ('elementwise_affine',)),
    'BatchNorm1d': (('num_features',), ('affine',)),
    'BatchNorm2d': (('num_features',), ('affine',)),
    'GroupNorm': (('num_groups', 'num_channels'), ('affine',)),
    'MultiheadAttention': (('embed_dim', 'num_heads'), ('bias', 'add_bias_kv', 'kdim', 'vdim')),
    'TransformerEncoderLayer': (('d_model', 'nhead'), ('dim_feedforward', 'bias')),
    'TransformerDecoderLayer': (('d_model', 'nhead'), ('dim_feedforward', 'bias')),
    'LSTM': (('input_size', 'hidden_size'), ('num_layers', 'bias', 'bidirectional')),
    'GRU': (('input_size', 'hidden_size'), ('num_layers', 'bias', 'bidirectional')),
    'RNN': (('input_size', 'hidden_size'), ('num_layers', 'bias', 'bidirectional')),
}
# defaults torch gives the sizes modules.c reads (transformer.py: dim_feedforward=2048)
NN_DEFAULTS = {('TransformerEncoderLayer', 'dim_feedforward'): 2048,
               ('TransformerDecoderLayer', 'dim_feedforward'): 2048}
# torch.nn classes without parameters that act on the previous output (modules.c keeps one tensor each)
NN_WIDTHLESS = {'ReLU', 'GELU', 'Tanh', 'Sigmoid', 'SiLU', 'Mish', 'LeakyReLU', 'ELU', 'Softmax', 'LogSoftmax',
                'Dropout', 'Dropout1d', 'Dropout2d', 'Identity', 'Flatten', 'MaxPool1d', 'MaxPool2d', 'AvgPool1d',
                'AvgPool2d', 'AdaptiveAvgPool1d', 'AdaptiveAvgPool2d', 'AdaptiveMaxPool1d', 'AdaptiveMaxPool2d',
                'Softplus', 'Hardtanh'}
# torch.nn classes without parameters that hold nothing for the list (losses, reshapes, distances)
NN_NOTHING = {'Unflatten', 'CosineSimilarity', 'PairwiseDistance', 'Upsample', 'PixelShuffle', 'PixelUnshuffle',
              'ZeroPad2d', 'ConstantPad1d', 'ConstantPad2d', 'ReflectionPad1d', 'ReflectionPad2d', 'ChannelShuffle',
              'Module', 'Softmax2d', 'Hardswish', 'Hardsigmoid', 'GLU', 'Softsign', 'Tanhshrink', 'Threshold',
              'ReLU6', 'CELU', 'SELU', 'LogSigmoid', 'Softmin', 'AlphaDropout', 'Dropout3d', 'FeatureAlphaDropout'}
NN_CONTAINERS = {'Sequential', 'ModuleList', 'ModuleDict', 'TransformerEncoder', 'TransformerDecoder', 'Transformer',
                 'Parameter', 'ParameterList'}
# methods and wrappers that return the module they are given
SAME_MODULE = {'to', 'cuda', 'cpu', 'train', 'eval', 'float', 'half', 'bfloat16', 'double', 'requires_grad_',
               'compile', 'DataParallel', 'DistributedDataParallel', 'DDP'}
TENSOR_MAKERS = {'zeros', 'ones', 'randn', 'rand', 'empty', 'full', 'Tensor', 'FloatTensor', 'zeros_like'}
# a local class is a custom module when its external bases are these (a LightningModule holds no weights
# of its own); a subclass of a library model (MistralForCausalLM) is not: the library builds its layers
MODULE_BASES = {'torch.nn.Module', 'nn.Module', 'Module', 'torch.nn.modules.module.Module',
                'pytorch_lightning.LightningModule', 'pl.LightningModule', 'lightning.LightningModule',
                'lightning.pytorch.LightningModule', 'L.LightningModule', 'LightningModule'}
# objects a module may hold that have no parameters (not library models)
PARAMLESS_WORDS = re.compile(r'(Loss|Metric|Accuracy|F1Score|Tokenizer|Config|Rearrange|Reduce|Scheduler|'
                             r'Optimizer|Dataset|Loader|Processor|Generator|Logger|Timer)$')
# libraries whose objects hold no parameters a module would train (devices, arrays, tensors, metrics,
# tokenizers, loggers); an object of any other library held by a module refuses the list
PARAMLESS_LIBS = {'torch', 'th', 'np', 'numpy', 'math', 'os', 're', 'json', 'wandb', 'logging', 'collections',
                  'functools', 'itertools', 'random', 'time', 'datetime', 'pathlib', 'typing', 'einops',
                  'torchmetrics', 'tiktoken', 'tokenizers', 'sentencepiece', 'omegaconf', 'hydra', 'copy',
                  'dataclasses', 'argparse', 'pandas', 'pd', 'scipy', 'sklearn'}
# calls whose result is no module even when its value is not known
BENIGN_CALLS = {'int', 'float', 'str', 'bool', 'len', 'max', 'min', 'round', 'sum', 'abs', 'getattr', 'dict', 'list',
                'tuple', 'set', 'range', 'get', 'sqrt', 'log', 'ceil', 'floor', 'pow', 'isinstance', 'hasattr',
                'deepcopy', 'copy', 'device', 'tensor', 'arange', 'zeros', 'ones', 'randn', 'rand', 'empty', 'full',
                'linspace', 'exp', 'sin', 'cos', 'tril', 'triu', 'register_buffer', 'format', 'join', 'split',
                'compile', 'partial', 'lower', 'upper', 'replace', 'strip', 'items', 'keys', 'values', 'pop',
                'setdefault', 'float32', 'get_tokenizer', 'get_encoding', 'precompute_freqs_cis', 'precompute_rope',
                'create_block_mask', 'Generator', 'Path'}
HEAD_ATTRS = ('n_head', 'n_heads', 'num_heads', 'nhead', 'nheads', 'heads', 'head_num', 'num_attention_heads',
              'n_attn_heads', 'attn_heads', 'h')
# tiktoken's encodings: n_vocab = max_token_value + 1 (openai/tiktoken@6cc3a46c8dd43a913612b9c839a51936a2c6bd41
# tiktoken/core.py; explicit_n_vocab and special tokens of tiktoken_ext/openai_public.py)
TIKTOKEN_VOCAB = {'gpt2': 50257, 'r50k_base': 50257, 'p50k_base': 50281, 'p50k_edit': 50284,
                  'cl100k_base': 100277}
MAX_SYM = 64           # nodes of a size's expression
MAX_RENDER = 16000     # characters of a layer list
MAX_ENUM = 256         # assignments of listed sweep values a test over sizes is decided on


class Sym(V):
    """An integer computed from sweep parameters: e is ('k', n) | ('p', name) | ('m', name, [(x, n)...]) |
    (op, a, b) with op in + - * // % | ('max', [e...]) (one of a few possibilities: an upper bound)."""
    __slots__ = ('e',)

    def __init__(self, e):
        self.e = e


class Tensor(V):
    """A tensor the program makes with a known shape (torch.zeros(1, n, d)): its sizes as values."""
    __slots__ = ('shape',)

    def __init__(self, shape):
        self.shape = shape


class Layer(V):
    """What a torch.nn constructor returned: kind, its arguments by torch's names, children (containers)."""
    __slots__ = ('kind', 'kw', 'items', 'times', 'site', 'refused')

    def __init__(self, kind, kw=None, items=None, times=None, site=None, refused=None):
        self.kind = kind
        self.kw = kw or {}
        self.items = items
        self.times = times
        self.site = site
        self.refused = refused   # why this module cannot be written (a library model, an unread argument)


class Rep(V):
    """A module repeated: `[Block() for _ in range(n)]`, or appended in `for _ in range(n)`."""
    __slots__ = ('item', 'times')

    def __init__(self, item, times):
        self.item = item
        self.times = times


class Either(V):
    """One of several modules the program does not decide (`self.shortcut = nn.Sequential()` replaced under
    an unknown condition): the layer list holds them all, an upper bound."""
    __slots__ = ('opts',)

    def __init__(self, opts):
        self.opts = opts


def modules_one_of(opts):
    """The join of branches whose values are modules (or None): Either, else None (pyvalues.one_of)."""
    if not any(isinstance(o, (Layer, Inst, Rep, Either)) for o in opts):
        return None
    out = []
    for o in opts:
        if isinstance(o, Either):
            out.extend(o.opts)
        elif isinstance(o, (Layer, Inst, Rep)) or o is UNSET or (isinstance(o, K) and o.v is None):
            out.append(o)
        else:
            return None
    return Either(out[:MAX_ONEOF])


# ---- sizes as expressions -----------------------------------------------------------------------------

def sym_of(v):
    """The expression of an integer value (known, a sweep parameter, a value map, Sym), or None."""
    if isinstance(v, Sym):
        return v.e
    if isinstance(v, K):
        x = v.v
        if isinstance(x, bool):
            return ('k', int(x))
        if isinstance(x, int):
            return ('k', x)
        if isinstance(x, float) and x == x and abs(x) < 1 << 53 and x == int(x):
            return ('k', int(x))
        return None
    if isinstance(v, P):
        return ('p', v.name)
    if isinstance(v, M):
        cases = []
        for x in v.xs:
            cv = v.at(x)
            e = sym_of(cv) if isinstance(cv, K) else None
            if e is None or e[0] != 'k' or not is_scalar(x) or x is None:
                return None
            cases.append((x, e[1]))
        return ('m', v.param, cases)
    if isinstance(v, OneOf):
        es = [sym_of(o) for o in v.opts]
        if all(e is not None for e in es):
            return ('max', es)
    return None


def sym_size(e):
    if e[0] in ('k', 'p', 'm'):
        return 1
    if e[0] == 'max':
        return 1 + sum(sym_size(x) for x in e[1])
    return 1 + sym_size(e[1]) + sym_size(e[2])


SYM_OPS = {ast.Add: '+', ast.Sub: '-', ast.Mult: '*', ast.FloorDiv: '//', ast.Mod: '%', ast.Div: '//'}


def sym_binop(op, a, b):
    """a op b as an expression when a value of the evaluator's own cannot hold it (two parameters, a range
    parameter); a tensor times a number is that tensor. None when it is neither."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        if isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return a if isinstance(a, Tensor) else b
        return None
    o = SYM_OPS.get(type(op))
    if o is None:
        return None
    if not any(isinstance(x, (P, M, Sym, OneOf)) for x in (a, b)):
        return None
    ea, eb = sym_of(a), sym_of(b)
    if ea is None or eb is None:
        return None
    e = (o, ea, eb)
    return Sym(e) if sym_size(e) <= MAX_SYM else None


def sym_params(e, out):
    if e[0] in ('p', 'm'):
        out.add(e[1])
    elif e[0] == 'max':
        for x in e[1]:
            sym_params(x, out)
    elif e[0] != 'k':
        sym_params(e[1], out)
        sym_params(e[2], out)
    return out


def sym_eval(e, env):
    """The value of e when each parameter is env[name]; None when it has none (a value map's missing case)."""
    k = e[0]
    if k == 'k':
        return e[1]
    if k == 'p':
        x = env.get(e[1])
        if isinstance(x, bool):
            return int(x)
        if isinstance(x, float) and x == int(x):
            return int(x)
        return x if isinstance(x, int) else None
    if k == 'm':
        x = env.get(e[1])
        for w, n in e[2]:
            if pkey(w) == pkey(x):
                return n
        return None
    if k == 'max':
        vs = [sym_eval(x, env) for x in e[1]]
        return None if any(v is None for v in vs) else max(vs)
    a, b = sym_eval(e[1], env), sym_eval(e[2], env)
    if a is None or b is None:
        return None
    if k == '+':
        return a + b
    if k == '-':
        return a - b
    if k == '*':
        return a * b
    if b == 0:
        return None
    return a // b if k == '//' else a % b


def sym_compare(ev, op, a, b):
    """A comparison of sizes over listed sweep values: decided when every assignment of the values of the
    parameters it reads (at most MAX_ENUM) gives the same answer (`if d_model % heads != 0:` with d_model in
    [128, 256] and heads in [4, 8]: never). None when it is not decided."""
    if not any(isinstance(x, (P, M, Sym)) for x in (a, b)):
        return None
    ea, eb = sym_of(a), sym_of(b)
    if ea is None or eb is None or not isinstance(op, (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        return None
    try:
        return decide(ev, op, ea, eb)
    except (ArithmeticError, ValueError, TypeError):
        return None


def decide(ev, op, ea, eb):
    names = sorted(sym_params(eb, sym_params(ea, set())))
    if not names:
        return None
    lists = []
    total = 1
    for n in names:
        xs = (ev.c.params.get(n) or {}).get('values')
        if not isinstance(xs, list) or not xs:
            return None
        total *= len(xs)
        if total > MAX_ENUM:
            return None
        lists.append(xs)
    seen = set()
    idx = [0] * len(names)
    for _ in range(total):
        env = dict((n, lists[i][idx[i]]) for i, n in enumerate(names))
        x, y = sym_eval(ea, env), sym_eval(eb, env)
        if x is None or y is None:
            return None
        r = compare_const(op, K(x), K(y))
        if not isinstance(r, K):
            return None
        seen.add(bool(r.v))
        if len(seen) > 1:
            return None
        for i in range(len(idx) - 1, -1, -1):
            idx[i] += 1
            if idx[i] < len(lists[i]):
                break
            idx[i] = 0
    return K(seen.pop()) if seen else None


def name_text(n):
    return n if re.match(r'^[A-Za-z_][A-Za-z0-9_.]*$', n) and n not in ('max', 'min', 'True', 'False') \
        else '`%s`' % n


def key_text(x):
    if isinstance(x, bool):
        return 'True' if x else 'False'
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, str) and not re.search(r"['`{}\[\]\n]", x):
        return "'%s'" % x
    return None


def sym_text(e, top=True):
    """e in moddims.c's grammar; None when a key cannot be written."""
    k = e[0]
    if k == 'k':
        return str(e[1])
    if k == 'p':
        return name_text(e[1])
    if k == 'm':
        parts = []
        for x, n in e[2]:
            kt = key_text(x)
            if kt is None:
                return None
            parts.append('%s: %d' % (kt, n))
        return '%s[%s]' % (name_text(e[1]), ', '.join(parts))
    if k == 'max':
        xs = [sym_text(x, True) for x in e[1]]
        return None if any(x is None for x in xs) else 'max(%s)' % ', '.join(xs)
    a, b = sym_text(e[1], False), sym_text(e[2], False)
    if a is None or b is None:
        return None
    s = '%s %s %s' % (a, k, b)
    return s if top else '(%s)' % s


# ---- the evaluator's hooks ----------------------------------------------------------------------------

def nn_class(qual):
    """The torch.nn class a qualified name names, or None."""
    if not qual:
        return None
    for pre in ('torch.nn.modules.', 'torch.nn.', 'nn.'):
        if qual.startswith(pre):
            last = qual.split('.')[-1]
            return last if last[:1].isupper() else None
    return None


def module_call(ev, name, base, qual, fv, args, kwargs, node, fr, made):
    """A call that makes or passes on a module: torch.nn's classes, nn.Parameter, torch.zeros(shape), a
    module's .to()/.cuda() and wrappers that return the module; None for any other call."""
    c = ev.c
    if qual and qual.split('.')[0] in ('torch', 'th') and name in TENSOR_MAKERS and qual.count('.') == 1:
        return tensor_of(args, kwargs)
    if qual in ('tiktoken.get_encoding', 'tiktoken.encoding_for_model') and args and isinstance(args[0][1], K):
        enc = args[0][1].v
        if name == 'encoding_for_model':
            enc = 'gpt2' if enc == 'gpt2' else None
        if enc in TIKTOKEN_VOCAB:
            return Ext('tiktoken.Encoding', True, ('tiktoken', enc))
        return None
    if name in SAME_MODULE:
        # model.to(device) / torch.compile(model) / DDP(model): the same module
        if args and isinstance(args[0][1], (Inst, Layer)) and name in ('compile', 'DataParallel',
                                                                        'DistributedDataParallel', 'DDP'):
            return args[0][1]
        f = node.func if node is not None else None
        if isinstance(f, ast.Attribute) and isinstance(f.value, (ast.Name, ast.Attribute)) and pure_chain(f.value):
            obj = ev.ev(f.value, fr)
            if isinstance(obj, (Inst, Layer)):
                return obj
        return None
    cls = nn_class(qual)
    if cls is None or cls == 'Module':
        return None
    lay = nn_layer(ev, cls, args, kwargs, node, fr)
    if lay is not None:
        record_module(c, lay, node, fr)
    return lay


def module_ext_attr(obj, name):
    """enc.n_vocab of a tiktoken encoding the program names (its size), else None."""
    if isinstance(obj.data, tuple) and obj.data[:1] == ('tiktoken',) and name in ('n_vocab', 'max_token_value'):
        n = TIKTOKEN_VOCAB[obj.data[1]]
        return K(n if name == 'n_vocab' else n - 1)
    return None


def module_isinstance(x, cls):
    """isinstance(x, nn.Module) of a module the evaluator built or of a plain value; else None."""
    q = cls.qual if isinstance(cls, Ext) else None
    if q not in MODULE_BASES:
        return None
    if isinstance(x, (Layer, Rep)):
        return K(True)
    if isinstance(x, Inst):
        return K(bool(ev_module_class(x.cls)))
    if isinstance(x, (K, D, L)):
        return K(False)
    return None


def ev_module_class(cls, depth=0):
    for b in cls.bases:
        if isinstance(b, Ext) and b.qual in MODULE_BASES:
            return True
        if isinstance(b, Cls) and depth < 8 and ev_module_class(b, depth + 1):
            return True
    return False


def pure_chain(n):
    while isinstance(n, ast.Attribute):
        n = n.value
    return isinstance(n, ast.Name)


def tensor_of(args, kwargs):
    dims = [v for _, v in args if not isinstance(v, (D,))]
    if 'size' in kwargs:
        dims = [kwargs['size'][1]]
    if len(dims) == 1:
        v = dims[0]
        if isinstance(v, L):
            dims = v.items
        elif isinstance(v, K) and isinstance(v.v, list):
            dims = [K(x) for x in v.v]
    if not dims or len(dims) > 8:
        return None
    return Tensor(dims)


def bind_torch(cls, args, kwargs):
    sig = NN_SIGNATURES.get(cls, ())
    kw = {}
    for i, (_, v) in enumerate(args):
        if i < len(sig):
            kw[sig[i]] = v
    for k, (_, v) in kwargs.items():
        if k:
            kw[k] = v
    return kw


def nn_layer(ev, cls, args, kwargs, node, fr):
    c = ev.c
    site = (fr.fid, node)
    if None in kwargs and cls in NN_WRITTEN:
        return Layer(cls, site=site, refused='nn.%s(**...) whose keywords are not all known' % cls)
    if cls in NN_WRITTEN:
        kw = bind_torch(cls, args, kwargs)
        p = kw.get('proj_size')
        if p is not None and not (isinstance(p, K) and p.v == 0):
            # LSTM's projection (weight_hr, proj_size-wide states: torch/nn/modules/rnn.py RNNBase.__init__)
            return Layer(cls, site=site, refused='nn.LSTM with proj_size, whose projection sweeplint does not count')
        return Layer(cls, kw, site=site)
    if cls in NN_WIDTHLESS or cls in NN_NOTHING or cls.endswith('Loss'):
        return Layer(cls, site=site)
    if cls == 'Sequential':
        items = []
        for _, v in args:
            if isinstance(v, L):
                items.extend(v.items)
            else:
                items.append(v)
        return Layer('Sequential', items=items, site=site)
    if cls in ('ModuleList', 'ParameterList'):
        v = args[0][1] if args else kwargs.get('modules', (None, L([])))[1]
        if isinstance(v, K) and v.v == []:
            v = L([])
        if isinstance(v, Rep):
            return Layer('ModuleList', items=[v], site=site)
        if isinstance(v, L):
            return Layer('ModuleList', items=list(v.items), site=site)
        return Layer('ModuleList', site=site, refused='nn.%s of a list that is not read' % cls)
    if cls == 'ModuleDict':
        v = args[0][1] if args else None
        if v is None or (isinstance(v, K) and v.v == {}):
            return Layer('ModuleList', items=[], site=site)
        if isinstance(v, D) and not v.open:
            return Layer('ModuleList', items=list(v.items.values()), site=site)
        return Layer('ModuleList', site=site, refused='nn.ModuleDict of a mapping that is not read')
    if cls in ('TransformerEncoder', 'TransformerDecoder'):
        kw = bind_list(args, kwargs, ('encoder_layer' if cls == 'TransformerEncoder' else 'decoder_layer',
                                      'num_layers', 'norm'))
        layer = kw.get('encoder_layer', kw.get('decoder_layer'))
        n = kw.get('num_layers')
        items = [Rep(layer, n)]
        if isinstance(kw.get('norm'), (Layer, Inst)):
            items.append(kw['norm'])
        return Layer('Sequential', items=items, site=site)
    if cls == 'Transformer':
        kw = bind_list(args, kwargs, ('d_model', 'nhead', 'num_encoder_layers', 'num_decoder_layers',
                                      'dim_feedforward'))
        d = kw.get('d_model', K(512))
        h = kw.get('nhead', K(8))
        ff = kw.get('dim_feedforward', K(2048))
        enc = Layer('TransformerEncoderLayer', {'d_model': d, 'nhead': h, 'dim_feedforward': ff})
        dec = Layer('TransformerDecoderLayer', {'d_model': d, 'nhead': h, 'dim_feedforward': ff})
        return Layer('Sequential', items=[Rep(enc, kw.get('num_encoder_layers', K(6))), Layer('LayerNorm', {
            'normalized_shape': d}), Rep(dec, kw.get('num_decoder_layers', K(6))), Layer('LayerNorm', {
                'normalized_shape': d})], site=site)
    if cls == 'Parameter':
        t = args[0][1] if args else kwargs.get('data', (None, None))[1]
        if isinstance(t, Tensor):
            return Layer('Parameter', {'shape': t.shape}, site=site)
        return Layer('Parameter', site=site, refused='nn.Parameter of a tensor whose shape is not read')
    return Layer(cls, site=site, refused='nn.%s, a class whose parameters sweeplint does not count' % cls)


def bind_list(args, kwargs, names):
    kw = {}
    for i, (_, v) in enumerate(args):
        if i < len(names):
            kw[names[i]] = v
    for k, (_, v) in kwargs.items():
        if k:
            kw[k] = v
    return kw


def module_instance(ev, inst, node, fr):
    """An instance of a local class made: kept when the class is an nn.Module's (pymodules.py roots)."""
    if ev.ext_bases(inst.cls):
        record_module(ev.c, inst, node, fr)


def record_module(c, m, node, fr):
    mods = getattr(c, 'nn_made', None)
    if mods is None:
        mods = c.nn_made = []
    if len(mods) < 4096:
        mods.append((m, fr.fid, node, c.phase, fr.guard))


def repeat_of(ev, node, fr):
    """`[X for _ in range(n)]` (X not reading the loop's name, n any size): Rep(X, n) in a list; a known n of
    at most 64 is unrolled by the evaluator's own loop. None when it is not that shape."""
    if len(node.generators) != 1:
        return None
    g = node.generators[0]
    if g.ifs or not isinstance(g.iter, ast.Call) or callee_name(g.iter.func)[0] != 'range' or \
            len(g.iter.args) not in (1, 2) or g.iter.keywords:
        return None
    if len(g.iter.args) == 2 and not (isinstance(g.iter.args[0], ast.Constant) and g.iter.args[0].value == 0):
        return None
    names = set(x.id for x in ast.walk(g.target) if isinstance(x, ast.Name))
    uses = any(isinstance(x, ast.Name) and x.id in names for x in ast.walk(node.elt))
    n = ev.ev(g.iter.args[-1], fr)
    if uses:
        return None
    item = ev.ev(node.elt, fr)
    return L([Rep(item, n)])


def loop_times(ev, st, fr):
    """`for _ in range(n):` whose body does not read the loop's name: n (any size value), else None."""
    it = st.iter
    if not (isinstance(it, ast.Call) and callee_name(it.func)[0] == 'range' and len(it.args) in (1, 2) and
            not it.keywords):
        return None
    if len(it.args) == 2 and not (isinstance(it.args[0], ast.Constant) and it.args[0].value == 0):
        return None
    names = set(x.id for x in ast.walk(st.target) if isinstance(x, ast.Name))
    if any(isinstance(x, ast.Name) and x.id in names for b in st.body for x in ast.walk(b)):
        return None
    n = ev.ev(it.args[-1], fr)
    return n if sym_of(n) is not None else None


def modules_append(ev, obj, item):
    """list.append / ModuleList.append of a module inside `for _ in range(n)`: the item repeated n times
    (an unknown number of times in any other loop: the count is unknown, and the list is refused)."""
    rep = getattr(ev.c, 'nn_repeat', None)
    if rep is not None and rep[0] == ev.c.depth and isinstance(item, (Layer, Inst, Rep)):
        return Rep(item, rep[1])
    return item


def module_loop(ev, st, fr):
    """A `for` loop that may append modules: `for _ in range(n)` runs its body once with what it appends
    repeated n times; `for i in range(N)` whose body reads i is unrolled in a method of an nn.Module class
    (N known, at most 64); any other loop runs as the evaluator runs it, and what it appends is repeated an unknown
    number of times (such a list is refused). Returns True when it ran the loop, False when the
    evaluator's own loop should. The repetition applies to appends of the same call (c.depth): a module
    made inside the body repeats its own loops only."""
    c = ev.c
    if getattr(c, 'nn_in_loop', None) is st or not loop_appends_modules(st):
        return False
    times = loop_times(ev, st, fr)
    outer = getattr(c, 'nn_repeat', None)
    if outer is not None and outer[0] != c.depth:
        outer = None
    in_module = fr.func is not None and fr.func.cls is not None and bool(ev.ext_bases(fr.func.cls))
    if times is None and isinstance(st.iter, ast.Call) and callee_name(st.iter.func)[0] == 'range' and in_module:
        bounds = [ev.ev(a, fr) for a in st.iter.args]
        if all(isinstance(b, K) and isinstance(b.v, int) and not isinstance(b.v, bool) for b in bounds) and \
                0 < len(bounds) <= 3:
            try:
                xs = list(range(*[b.v for b in bounds]))
            except ValueError:
                xs = None
            if xs is not None and len(xs) <= MAX_UNROLL:
                for x in xs:
                    if fr.dead:
                        break
                    ev.assign(st.target, K(x), None, fr)
                    ev.block(st.body, fr)
                    if fr.dead == 'loop':
                        fr.dead = None
                ev.block(st.orelse, fr)
                return True
    if times is None:
        times = U('the iterations of the loop at %s' % c.where(fr.fid, st))
    if outer is not None:
        eo, et = sym_of(outer[1]), sym_of(times)
        times = Sym(('*', eo, et)) if eo is not None and et is not None else U('loops nested')
    saved = getattr(c, 'nn_repeat', None)
    saved_loop = getattr(c, 'nn_in_loop', None)
    c.nn_repeat = (c.depth, times)
    try:
        if isinstance(times, U):
            c.nn_in_loop = st
            ev.exec_for(st, fr)                 # the evaluator's own loop, its appends repeated unknown times
            return True
        ev.assign(st.target, UNK, None, fr)
        ev.loop_once(st.body, fr)
    finally:
        c.nn_repeat = saved
        c.nn_in_loop = saved_loop
    ev.block(st.orelse, fr)
    return True


def loop_appends_modules(st):
    """Whether a loop's body appends to a list or adds a module (the only loops module_loop runs)."""
    for b in st.body:
        for x in ast.walk(b):
            if isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and \
                    x.func.attr in ('append', 'extend', 'add_module'):
                return True
    return False


def modules_list_call(ev, m, lay, a, node, fr):
    """ModuleList.append / .extend / Sequential.add_module on a Layer container."""
    if lay.items is None:
        return K(None)
    if m == 'append' and a:
        lay.items.append(modules_append(ev, lay, a[0]))
    elif m == 'add_module' and len(a) > 1:
        lay.items.append(modules_append(ev, lay, a[1]))
    elif m == 'extend' and a:
        if isinstance(a[0], L):
            lay.items.extend(modules_append(ev, lay, x) for x in a[0].items)
        else:
            lay.refused = 'a module list extended with a list that is not read'
    return K(None)


def module_property(ev, obj, name, node, fr):
    """obj.name of a method decorated @property (a config's derived size): the method's value; a module's
    .to / .cuda / .train (...) return the module itself."""
    if name in SAME_MODULE and ev.find_method(obj.cls, name) is None and ev_module_class(obj.cls):
        return Builtin('path.same', obj)
    f = ev.find_method(obj.cls, name)
    if f is None or not any((isinstance(d, ast.Name) and d.id in ('property', 'cached_property')) or
                            (isinstance(d, ast.Attribute) and d.attr == 'cached_property')
                            for d in f.node.decorator_list):
        return None
    return ev.call_func(f, obj, [], {}, node, fr)


# ---- the layer list ----------------------------------------------------------------------------------

class Refused(Exception):
    pass


def library_object(v):
    """An object a library call made that may hold parameters (not an attribute read off one, unless of a
    pretrained model)."""
    if not (isinstance(v, Ext) and v.made):
        return False
    if not v.qual.endswith('()') and 'from_pretrained' not in v.qual and 'create_model' not in v.qual:
        return False
    return not paramless_ext(v.qual)


def paramless_ext(qual):
    """Whether an object an external call made holds no parameters (a device, a tensor, a metric, a
    tokenizer), by its library and its name; torch.nn and torchvision/timm/transformers models do."""
    parts = (qual or '').rstrip('()').split('.')
    last = parts[-1] if parts else ''
    if PARAMLESS_WORDS.search(last):
        return True
    if 'from_pretrained' in qual or 'create_model' in qual or (len(parts) > 1 and parts[1] in ('nn', 'hub')):
        return False
    return parts[0] in PARAMLESS_LIBS


def ties_weights(cls):
    """A method of the class assigns one module's weight (or bias) to another's: `a.weight = b.weight`."""
    for n in ast.walk(cls.node):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Attribute) and n.value.attr in ('weight', 'bias') \
                and any(isinstance(t, ast.Attribute) and t.attr == n.value.attr for t in n.targets):
            return True
    return False


def is_module_class(ev, cls):
    bases = ev.ext_bases(cls)
    return bool(bases) and all(b.qual in MODULE_BASES for b in bases)


class Writer(object):
    """The layer list of a module tree (docs/cli.md role `modules`), its sizes as numbers or {expr}."""

    def __init__(self, ev):
        self.ev = ev
        self.c = ev.c
        self.bound = False     # a size is the largest of a few possibilities
        self.seen = set()      # modules registered twice (self.blocks = self.decoder.blocks) count once
        self.depth = 0

    def size(self, v, what, activations=False):
        """A size as written: a number, or {expr}; the largest of a few possibilities makes the list a bound
        unless it only sizes what the forward keeps (activations are an upper bound anyway)."""
        e = sym_of(v)
        if e is None:
            why = v.why if isinstance(v, U) and v.why else 'not known'
            raise Refused('%s is %s' % (what, why if why != 'not known' else 'not known'))
        if e[0] == 'k':
            if e[1] < 0:
                raise Refused('%s is negative' % what)
            return str(e[1])
        t = sym_text(e)
        if t is None:
            raise Refused('%s depends on a sweep value that cannot be written' % what)
        if 'max(' in t and not activations:
            self.bound = True
        return '{%s}' % t

    def flag(self, v, what):
        if isinstance(v, K) and isinstance(v.v, bool):
            return 'True' if v.v else 'False'
        if isinstance(v, K) and v.v is None:
            return None
        raise Refused('%s is not a known True/False' % what)

    def items(self, v, where):
        """The items of one module value: a list of strings."""
        self.depth += 1
        if self.depth > 24:
            raise Refused('modules nested too deeply')
        try:
            return self._items(v, where)
        finally:
            self.depth -= 1

    def _items(self, v, where):
        if isinstance(v, Rep):
            # copies (TransformerEncoder deep-copies its layer; a comprehension makes one per item): the
            # item counts in full even when the module also holds it (self.layer = ...; Encoder(self.layer, n))
            it = v.item
            inner = self.layer(it, where) if isinstance(it, Layer) else self.instance(it) if isinstance(it, Inst) \
                else self.items(it, where)
            if not inner:
                return []
            n = self.size(v.times, 'the repeat count of %s' % where)
            if n == '1':
                return inner
            if n == '0':
                return []
            return ['%s*[%s]' % (n, '; '.join(inner))]
        if isinstance(v, Layer):
            if id(v) in self.seen:
                return []
            self.seen.add(id(v))
            return self.layer(v, where)
        if isinstance(v, Inst):
            if id(v) in self.seen:
                return []
            self.seen.add(id(v))
            return self.instance(v)
        if isinstance(v, (Either, M)):
            # several modules the program does not decide (or one per sweep value): all of them, a bound
            opts = v.opts if isinstance(v, Either) else [v.at(x) for x in v.xs]
            out = []
            for o in opts:
                if o is UNSET or (isinstance(o, K) and o.v is None):
                    continue
                out.extend(self.items(o, where))
            self.bound = True
            return out
        raise Refused('%s is not read' % where)

    def layer(self, lay, where):
        if lay.refused:
            raise Refused(lay.refused)
        k = lay.kind
        if lay.items is not None:
            out = []
            for i, it in enumerate(lay.items):
                out.extend(self.items(it, '%s[%d]' % (where, i)))
            return out
        if k in NN_WIDTHLESS:
            return ['%s()' % k]
        if k in NN_NOTHING or k.endswith('Loss'):
            return []
        if k == 'Parameter':
            shape = lay.kw.get('shape') or []
            n = K(1)
            for d in shape:
                n = self.mul(n, d)
            return ['Parameter(%s)' % self.size(n, 'the shape of an nn.Parameter')]
        pos, kws = NN_WRITTEN[k]
        args = []
        for name in pos:
            v = lay.kw.get(name)
            if v is None:
                d = NN_DEFAULTS.get((k, name))
                if d is None:
                    raise Refused('nn.%s without %s' % (k, name))
                v = K(d)
            if name == 'normalized_shape':
                v = self.shape_product(v)
            args.append(self.size(v, 'nn.%s %s' % (k, name)))
        for name in kws:
            v = lay.kw.get(name)
            if v is None:
                d = NN_DEFAULTS.get((k, name))
                if d is None:
                    continue
                v = K(d)
            if name in ('bias', 'bidirectional', 'elementwise_affine', 'affine', 'add_bias_kv'):
                f = self.flag(v, 'nn.%s %s' % (k, name))
                if f is not None:
                    args.append('%s=%s' % (name, f))
            elif not (isinstance(v, K) and v.v is None):
                args.append('%s=%s' % (name, self.size(v, 'nn.%s %s' % (k, name))))
        if k in ('Conv1d', 'Conv2d', 'Conv3d'):
            ks = lay.kw.get('kernel_size')
            if isinstance(ks, K) and isinstance(ks.v, list) and len(ks.v) == 2 and \
                    all(isinstance(x, int) and not isinstance(x, bool) for x in ks.v):
                args[2] = '%dx%d' % (ks.v[0], ks.v[1])
        return ['%s(%s)' % (k, ', '.join(args))]

    def shape_product(self, v):
        if isinstance(v, (L,)):
            n = K(1)
            for x in v.items:
                n = self.mul(n, x)
            return n
        if isinstance(v, K) and isinstance(v.v, list):
            n = 1
            for x in v.v:
                if not isinstance(x, int) or isinstance(x, bool):
                    raise Refused('a normalized shape that is not sizes')
                n *= x
            return K(n)
        return v

    def mul(self, a, b):
        if isinstance(a, K) and isinstance(b, K) and isinstance(a.v, int) and isinstance(b.v, int) and \
                not isinstance(a.v, bool) and not isinstance(b.v, bool):
            return K(a.v * b.v)
        ea, eb = sym_of(a), sym_of(b)
        if ea is None or eb is None:
            raise Refused('a size of a parameter\'s shape is not known')
        return Sym(('*', ea, eb))

    def instance(self, inst):
        cls = inst.cls
        name = cls.node.name
        if not is_module_class(self.ev, cls):
            raise Refused('%s is a library class\'s subclass (%s): its layers are the library\'s' % (
                name, ', '.join(b.qual for b in self.ev.ext_bases(cls))))
        out = []
        self.unread_calls(inst)
        if ties_weights(cls):
            # `self.head.weight = self.emb.weight` (GPT-style weight tying): one tensor registered twice,
            # which named_parameters() yields once; both layers are written, so the count is a bound
            self.bound = True
        for attr, v in inst.attrs.items():
            if isinstance(v, (Layer, Inst, Rep, Either)):
                if isinstance(v, Inst) and not is_module_class(self.ev, v.cls):
                    continue           # a plain object (a config) held by the module
                out.extend(self.items(v, '%s.%s' % (name, attr)))
            elif isinstance(v, M) and any(isinstance(v.at(x), (Layer, Inst, Rep, Either)) for x in v.xs):
                out.extend(self.items(v, '%s.%s' % (name, attr)))
            elif library_object(v):
                raise Refused('%s.%s is a library object (%s): its parameters are not read' % (name, attr, v.qual))
            elif isinstance(v, OneOf) and any(library_object(o) for o in v.opts):
                raise Refused('%s.%s may be a library object: its parameters are not read' % (name, attr))
        out.extend(self.forward_extras(inst, out))
        return out

    def unread_calls(self, inst):
        """`self.x = f(...)` in __init__ whose value is not known: it may be a module (a helper that builds
        one, a library model chosen by name), so the list is refused rather than missing it."""
        init = self.ev.find_method(inst.cls, '__init__')
        if init is None:
            return
        for n in ast.walk(init.node):
            if not (isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)):
                continue
            for t in n.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == 'self':
                    v = inst.attrs.get(t.attr)
                    callee = callee_name(n.value.func)[0] or ''
                    if isinstance(v, U) and callee not in BENIGN_CALLS and not PARAMLESS_WORDS.search(callee):
                        raise Refused('%s.%s = %s(...) is not read (it may hold parameters)' % (
                            inst.cls.node.name, t.attr, callee or '...'))

    # -- what a hand-written forward keeps beyond its layers -------------------------------------------
    def forward_extras(self, inst, written):
        """Attention a hand-written forward computes (the s x s scores of eager attention, SDPA's
        logsumexp) and the tensors its own arithmetic keeps; refused when it runs a submodule in a loop
        that is not over its layers (a weight-shared recurrence: its activations repeat)."""
        f = self.ev.find_method(inst.cls, 'forward')
        if f is None:
            return []
        nodes = list(ast.walk(f.node))
        # the local classes it calls in its forward (an attention helper made in forward): one level
        for n in list(nodes):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                v = f.mod.env.get(n.func.id)
                if isinstance(v, Cls) and v is not inst.cls:
                    g = self.ev.find_method(v, 'forward')
                    if g is not None:
                        nodes.extend(ast.walk(g.node))
        for n in nodes:
            if isinstance(n, (ast.For, ast.While)):
                it = getattr(n, 'iter', None)
                # over its own layers (for blk in self.blocks): each runs once; anything else repeats them
                over_self = it is not None and any(
                    isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name) and x.value.id == 'self' and
                    isinstance(inst.attrs.get(x.attr), (Layer, Rep, L, Either)) and
                    not (isinstance(inst.attrs.get(x.attr), Layer) and inst.attrs.get(x.attr).items is None)
                    for x in ast.walk(it))
                calls_sub = any(isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and
                                isinstance(x.func.value, ast.Name) and x.func.value.id == 'self' and
                                isinstance(inst.attrs.get(x.func.attr), (Layer, Inst))
                                for b in n.body for x in ast.walk(b))
                if calls_sub and not over_self:
                    raise Refused('%s.forward runs a submodule in a loop: its activations repeat' %
                                  inst.cls.node.name)
        names = set()
        for n in nodes:
            if isinstance(n, ast.Call):
                nm = callee_name(n.func)[0]
                if nm:
                    names.add(nm)
                if isinstance(n.func, ast.Call):        # nn.Softmax(dim=-1)(x)
                    nm2 = callee_name(n.func.func)[0]
                    if nm2:
                        names.add(nm2)
        transposed = any(isinstance(x, ast.Attribute) and x.attr in ('transpose', 'mT', 'T', 'permute', 'swapaxes')
                         for n in nodes if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult)
                         for x in ast.walk(n))
        transposed |= any(isinstance(n, ast.Call) and callee_name(n.func)[0] in ('matmul', 'bmm', 'baddbmm') and
                          any(isinstance(x, ast.Attribute) and x.attr in ('transpose', 'mT', 'T', 'permute')
                              for a in n.args for x in ast.walk(a)) for n in nodes)
        softmax = bool(names & {'softmax', 'Softmax'})
        # an einsum beside a softmax is taken as attention too (its heads must then be read)
        eager = softmax and (transposed or 'einsum' in names)
        sdpa = bool(names & {'scaled_dot_product_attention', 'flash_attn_func', 'flash_attn_qkvpacked_func',
                             'memory_efficient_attention', 'flex_attention'})
        out = []
        w = self.width(inst)
        if sdpa or eager:
            heads = self.heads(inst, nodes)
            out.append('%s(%s)' % ('EagerAttention' if eager else 'SDPA', heads))
            # q, k, v and the attention's output, and the rotated copies of q and k (RoPE)
            d = self.width(inst, inputs=True) or w
            if d is not None:
                out.append('Kept(%s)' % self.size(scaled(6, d), '%s\'s width' % inst.cls.node.name,
                                                  activations=True))
        # each elementwise operation of its own keeps one tensor (its input) at most the module's width
        ops = sum(1 for n in nodes if isinstance(n, ast.Call) and callee_name(n.func)[0] in FORWARD_OPS and
                  not (eager and callee_name(n.func)[0] in ('softmax', 'dropout')))
        ops += sum(1 for n in nodes if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Div, ast.Pow)) and
                   not isinstance(n.left, ast.Constant) and not isinstance(n.right, ast.Constant) and
                   not (eager and any(isinstance(x, ast.BinOp) and isinstance(x.op, ast.MatMult)
                                      for x in ast.walk(n))))
        if ops and w is not None:
            out.append('Kept(%s)' % self.size(scaled(ops, w), '%s\'s width' % inst.cls.node.name,
                                              activations=True))
        return out

    def heads(self, inst, nodes):
        for a in HEAD_ATTRS:
            v = inst.attrs.get(a)
            if v is not None and sym_of(v) is not None:
                return self.size(v, '%s.%s' % (inst.cls.node.name, a), activations=True)
        # self.<x> read in the forward whose name says head
        for n in nodes:
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == 'self' and \
                    'head' in n.attr.lower() and 'dim' not in n.attr.lower() and 'size' not in n.attr.lower():
                v = inst.attrs.get(n.attr)
                if v is not None and sym_of(v) is not None:
                    return self.size(v, '%s.%s' % (inst.cls.node.name, n.attr), activations=True)
        raise Refused('%s computes attention by hand and its heads are not read' % inst.cls.node.name)

    def width(self, inst, inputs=False):
        """The widest size of the module's own layers (an expression), or None; with inputs, of their
        input widths only (an attention's model width, not its fused q, k, v projection's)."""
        es = []
        for v in inst.attrs.values():
            if isinstance(v, Layer) and v.kind in NN_WRITTEN:
                for name in NN_WRITTEN[v.kind][0]:
                    if name in ('num_embeddings', 'num_heads', 'nhead', 'num_groups', 'kernel_size'):
                        continue
                    if inputs and name in ('out_features', 'out_channels', 'hidden_size'):
                        continue
                    x = v.kw.get(name)
                    e = sym_of(x) if x is not None else None
                    if e is not None:
                        es.append(e)
        if not es:
            return None
        ks = [e for e in es if e[0] == 'k']
        if len(ks) == len(es):
            return ('k', max(e[1] for e in ks))
        uniq = []
        for e in es:
            if e not in uniq:
                uniq.append(e)
        return uniq[0] if len(uniq) == 1 else ('max', uniq[:8])


def scaled(n, e):
    """n times the size e (an expression), as a value."""
    if e[0] == 'k':
        return K(n * e[1])
    return Sym(e) if n == 1 else Sym(('*', ('k', n), e))


# functional calls in a forward that keep a tensor for backward
FORWARD_OPS = {'gelu', 'relu', 'silu', 'tanh', 'sigmoid', 'softmax', 'log_softmax', 'dropout', 'layer_norm',
               'rms_norm', 'normalize', 'exp', 'rsqrt', 'pow', 'mean', 'masked_fill', 'mul', 'div',
               'cross_entropy', 'mse_loss', 'group_norm', 'leaky_relu', 'elu', 'mish', 'softplus', 'cat', 'stack',
               'apply_rotary_emb', 'rotate_half', 'glu', 'logsigmoid'}


def modules_finish(ev):
    """At the end: the model the program trains as sweeplint_modules, or a note why it is not read."""
    c = ev.c
    made = getattr(c, 'nn_made', None)
    if not made or c.out.models:
        return
    # what is held by another module is not a root
    held = set()

    def hold(v, depth=0):
        if depth > 32:
            return
        if isinstance(v, Rep):
            held.add(id(v.item))
            hold(v.item, depth + 1)
        elif isinstance(v, Layer) and v.items:
            for it in v.items:
                held.add(id(it))
                hold(it, depth + 1)
        elif isinstance(v, (L, Either)):
            for it in (v.items if isinstance(v, L) else v.opts):
                held.add(id(it))
                hold(it, depth + 1)
        elif isinstance(v, M):
            for x in v.xs:
                it = v.at(x)
                held.add(id(it))
                hold(it, depth + 1)
    for m, _, _, _, _ in made:
        if isinstance(m, Inst):
            for v in m.attrs.values():
                if isinstance(v, (Layer, Inst, Rep, Either, M)):
                    held.add(id(v))
                    hold(v)
        elif isinstance(m, Layer):
            hold(m)
    roots = []
    seen = set()
    for m, fid, node, phase, guard in made:
        if id(m) in held or id(m) in seen:
            continue
        seen.add(id(m))
        if isinstance(m, Layer) and (m.kind in NN_WIDTHLESS or m.kind in NN_NOTHING or m.kind.endswith('Loss')):
            continue
        if isinstance(m, Inst) and not is_module_class(ev, m.cls):
            continue
        roots.append((m, fid, node, phase))
    reached = [r for r in roots if r[3] == 2]
    if reached:
        roots = reached
    if not roots:
        return
    # one site per root: an instance made again at the same call (a loop) is the same module
    by_site = {}
    for r in roots:
        by_site.setdefault((r[1], id(r[2])), r)
    roots = list(by_site.values())
    w = Writer(ev)
    parts = []
    names = []
    for m, fid, node, phase in roots:
        nm = m.cls.node.name if isinstance(m, Inst) else 'nn.%s' % m.kind
        try:
            parts.extend(w.items(m, nm))
        except Refused as e:
            c.note('the custom nn.Module %s is not read: %s' % (nm, e), fid, node)
            return
        except (RecursionError, ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
            c.note('the custom nn.Module %s is not read (%s)' % (nm, type(e).__name__), fid, node)
            return
        names.append(nm)
    if not parts:
        return
    text = compress(parts)
    if w.bound:
        text = '<= ' + text
    if len(text) > MAX_RENDER:
        m, fid, node, _ = roots[0]
        c.note('the custom nn.Module is too large to write (%d characters): not read' % len(text), fid, node)
        return
    m, fid, node, phase = roots[0]
    # where it is built is the record's site (a notebook's cell and line, not its temporary copy's)
    how = 'the custom nn.Module %s' % ' + '.join(names[:4])
    c.out.record('sweeplint_modules', K(text, c.site(fid, node)), how, node, fid, 2 if phase == 2 else 1)


def compress(parts):
    """Runs of the same item as N*[item] (twelve blocks read one by one are `12*[...]`)."""
    out = []
    i = 0
    while i < len(parts):
        best = (1, 1)   # (period, repeats)
        for period in range(1, min(16, (len(parts) - i) // 2) + 1):
            r = 1
            while parts[i + r * period:i + (r + 1) * period] == parts[i:i + period]:
                r += 1
            if r > 1 and r * period > best[0] * best[1]:
                best = (period, r)
        period, r = best
        if r > 1:
            out.append('%d*[%s]' % (r, '; '.join(parts[i:i + period])))
            i += period * r
        else:
            out.append(parts[i])
            i += 1
    return '; '.join(out)
