# pylaunch: the commands a program launches (docs/program.md "A trainer launched by the program").
#
# Sixth of the seven files sweeplint concatenates (after pymodules.py, before pyread.py). A sweep's program
# is often a small agent that reads wandb.config, builds a command and runs the trainer in a subprocess:
#   subprocess.run([sys.executable, "src/train.py", "--batch-size", str(cfg.bs)])
#   os.system(f"python train.py --lr {cfg.lr}")
# Each such call reached is recorded as a launch: its words, each an abstract value encoded for the C side
# (follow.c), which finds the script among them as it finds a shell script's python line, and evaluates that
# script as the program, its options mapped through its own argparse (the request's argv_values):
#   {"t": text}                   a word the text proves
#   {"p": name}                   the sweep parameter's value (str(cfg.bs))
#   {"m": param, "cases": [[x, word]...]}  a function of one sweep parameter (a branch on it); a case's word
#                                 may be {"absent": 1}: the word is not passed in those runs (cmd.append
#                                 under `if cfg.flag:`)
#   {"u": why}                    a word the text does not decide
# Nothing is run: the words are read from the text as every other value is.

LAUNCH_CALLS = {
    'subprocess.run': 0, 'subprocess.call': 0, 'subprocess.check_call': 0, 'subprocess.check_output': 0,
    'subprocess.Popen': 0, 'os.system': 0, 'os.popen': 0,
    'os.execv': 1, 'os.execvp': 1, 'os.execve': 1, 'os.execvpe': 1,
}
MAX_LAUNCHES = 16          # launch records kept (a loop unrolled over 64 items launches 64 times)
MAX_WORDS = 256            # words of one launch read (more: the rest is not read)


def launch_qual(qual, name, base):
    """The launch call a callee is (subprocess.run ...), or None."""
    if qual in LAUNCH_CALLS:
        return qual
    if base in ('subprocess', 'os') and name and (base + '.' + name) in LAUNCH_CALLS:
        return base + '.' + name
    return None


def word_of(v, depth=0):
    """One word's encoding (see the top of the file)."""
    if isinstance(v, K):
        if isinstance(v.v, (list, tuple, dict)) or v.v is None:
            return {'u': 'not a word'}
        return {'t': v.v if isinstance(v.v, str) else py_str(v.v)}
    if v is UNSET:
        return {'absent': 1}
    if isinstance(v, P):
        return {'p': v.name}
    if isinstance(v, Ext) and v.qual == 'sys.executable':
        return {'t': 'python'}
    if isinstance(v, OneOf):
        ws = [word_of(o, depth + 1) for o in v.opts]
        if all(w == ws[0] for w in ws):
            return ws[0]
        return {'u': 'one of several words the program does not decide'}
    if isinstance(v, M) and depth == 0:
        cases = [[x, word_of(v.at(x), depth + 1)] for x in v.xs]
        if cases and all(w == cases[0][1] for _, w in cases):
            return cases[0][1]
        if any('m' in w for _, w in cases):
            return {'u': 'a function of two sweep parameters'}
        return {'m': v.param, 'cases': cases}
    return {'u': 'not known'}


def shell_words(ev, node, v, fr):
    """The words of a command line given as one string (os.system, shell=True): an f-string's parts split
    on blanks, each formatted value a word of its own (a word mixing text and a value: `--lr={x}` is the
    option and the value; anything else unknown); a known string split on blanks; else None."""
    if isinstance(node, ast.JoinedStr):
        words = []          # lists of pieces: K text or a value
        cur = None
        for p in node.values:
            if isinstance(p, ast.Constant) and isinstance(p.value, str):
                parts = re.split(r'(\s+)', p.value)
                for s in parts:
                    if not s:
                        continue
                    if s.isspace():
                        cur = None
                        continue
                    if cur is None:
                        cur = []
                        words.append(cur)
                    cur.append(K(s))
            elif isinstance(p, ast.FormattedValue) and p.format_spec is None:
                if cur is None:
                    cur = []
                    words.append(cur)
                cur.append(ev.ev(p.value, fr))
            else:
                return None
        out = []
        for w in words[:MAX_WORDS]:
            if len(w) == 1:
                out.append(w[0])
            elif len(w) == 2 and isinstance(w[0], K) and isinstance(w[0].v, str) and w[0].v.startswith('-') and \
                    w[0].v.endswith('='):
                out.append(K(w[0].v[:-1]))          # --lr={x}: the option, then its value
                out.append(w[1])
            elif all(isinstance(x, K) and is_scalar(x.v) for x in w):
                out.append(K(''.join(x.v if isinstance(x.v, str) else py_str(x.v) for x in w)))
            else:
                out.append(U('a word mixing text and a value'))
        return out
    if isinstance(v, K) and isinstance(v.v, str):
        return [K(s) for s in v.v.split()[:MAX_WORDS]]
    return None


def launch_call(ev, name, base, qual, fv, args, kwargs, node, fr):
    """Record a launch of a command (subprocess.run([...]), os.system("...")) reached by the evaluation."""
    c = ev.c
    q = launch_qual(qual, name, base)
    if q is None or node is None:
        return
    at = LAUNCH_CALLS[q]
    if len(args) <= at:
        a = kwargs.get('args')
        if a is None or at:
            return
        anode, av = a
    else:
        anode, av = args[at]
    shell = q in ('os.system', 'os.popen')
    if not shell and 'shell' in kwargs:
        sv = kwargs['shell'][1]
        shell = isinstance(sv, K) and sv.v is True
    words = None
    if isinstance(av, L):
        words = list(av.items[:MAX_WORDS])
    elif isinstance(av, K) and isinstance(av.v, (list, tuple)):
        words = [K(x) for x in av.v[:MAX_WORDS]]
    elif anode is not None and (shell or isinstance(av, K)):
        words = shell_words(ev, anode, av, fr)
        if words is not None and not shell and len(words) > 1:
            words = None        # subprocess.run("python train.py") without shell=True: one program name
    if shell and words is not None and len(words) == 1 and isinstance(av, L):
        words = shell_words(ev, None, words[0], fr)
    out = c.out
    if len(out.launches) >= MAX_LAUNCHES:
        return
    rec = {'how': '%s(...)' % q, 'phase': c.phase, 'guard': fr.guard is not None}
    rec['file'], rec['line'], rec['col'], rec['end_line'], rec['end_col'] = c.site(fr.fid, node)
    if words is None:
        rec['words'] = None     # a command the text does not show
    else:
        rec['words'] = [word_of(w) for w in words]
    out.launches.append(rec)


def argv_value(ev, at, text, default, action, why):
    """The value of a command-line option a launching program passes (the request's argv_values[at]), or
    None when the option is a literal of the command (cmd_value reads it)."""
    c = ev.c
    spec = c.argv_values.get(str(at))
    if spec is None:
        return None

    def one(w):
        if 'absent' in w:
            return default
        if 't' in w:
            if text is None:    # a bare flag passed in these runs
                return K(action != 'store_false', ('cmd', at, None), ('flag of the launched command',))
            return K(w['t'], ('cmd', at, None), (why,))
        if 'p' in w:
            name = w['p']
            if name not in c.params:
                return U('the sweep has no parameter %s' % name)
            return P(name, c.params[name], default, ("the sweep's %s, %s" % (name, why),))
        return U(w.get('u') or 'not known')
    if 'm' in spec:
        name = spec['m']
        pspec = c.params.get(name) or {}
        xs = pspec.get('values') if isinstance(pspec.get('values'), list) else [x for x, _ in spec['cases']]
        cases = {}
        for x, w in spec['cases']:
            cases[pkey(x)] = one(w) if isinstance(w, dict) else UNK
        return M(name, xs, cases)
    return one(spec)
