#!/usr/bin/env python3
"""sweeplint on the corpus sweeps with their real code, against a careful engineer's verdict.

Usage:
  tools/corpus_code_report.py SWEEPLINT CODE MANIFEST TRUTH [MANIFEST TRUTH ...] [--save FILE] [--baseline FILE]

  SWEEPLINT  the binary (e.g. build/src/cli/sweeplint)
  CODE       the materialised repositories (tools/corpus_code.py materialise; /work/corpus-code):
             CODE/<dir>/ holds the files of one sweep's repository at their repository paths
  MANIFEST   dir and sweep_path per sweep (../shared/corpus/repos/MANIFEST.tsv, tests/corpus/code_extra.tsv)
  TRUTH      the judged verdicts (tests/corpus/code_truth.tsv, tests/corpus/code_truth_extra.tsv): per dir
             in_scope, model_stated, judgeable, right_verdict (on the GPU the repository states),
             verdict_a100_80gb (on sweeplint's default GPU), oom_expected ("N of M: ..." when exact)
  --save F      write one TSV line per sweep (verdict, counts, result) for a later --baseline
  --baseline F  also print which sweeps changed against a file written by --save

Each sweep is checked as its user would: `cd CODE/<dir>/<folder of the sweep> && sweeplint check
-f json <sweep>` and the same with -v (for where each setting came from). Nothing is copied.

Per sweep: the program sweeplint followed, the model(s) it resolved and from where, its verdict
(fit / oom / mixed / unknown / partial = fit and unknown, no oom) with the combination counts, the judged
verdict, and the result: right, wrong, no verdict (sweeplint unknown or partial on a judgeable sweep),
not judgeable (the truth is unknown), out of scope. Sweeplint's verdict is compared with the truth for
the GPU it used: verdict_a100_80gb when it assumed or was given a100-80gb, right_verdict otherwise.
A mixed truth is right only when sweeplint predicts OOM on some and fit on the others, and, when
oom_expected gives exact counts, on exactly that many of that many.

Figures: memory verdict on X of Y in-scope transformer sweeps whose repository states the model,
right on Z; the same over the sweeps a careful engineer can judge; false OOM errors W = sweeps with an
error-level memory finding (oom, eval-oom, host-oom) whose truth is not oom or mixed.
"""
import csv
import json
import os
import re
import subprocess
import sys

MEMORY_ERRORS = ('oom', 'eval-oom', 'host-oom')


def read_tsv(path):
    with open(path, newline='', encoding='utf-8') as f:
        return list(csv.DictReader(f, delimiter='\t', quoting=csv.QUOTE_NONE))


def count(v):
    """A combination count from the JSON: int, or 'infinite' (read as a count above any finite one)."""
    if isinstance(v, int):
        return v
    if v == 'infinite':
        return float('inf')
    return 0


def show(v):
    return 'inf' if v == float('inf') else str(v)


def run(sweeplint, cwd, sweep, args):
    try:
        p = subprocess.run([sweeplint, 'check'] + args + [sweep], cwd=cwd, capture_output=True, text=True,
                           timeout=600)
    except subprocess.TimeoutExpired:
        return None, 'timeout'
    return p, None


def verdict_of(c):
    """fit / oom / mixed / unknown / partial / none from the summary's combination counts."""
    fit, oom, unk = count(c.get('fit')), count(c.get('oom')) + count(c.get('at_risk')), count(c.get('unknown'))
    if fit == 0 and oom == 0 and unk == 0:
        return 'none'
    if oom > 0 and fit > 0:
        return 'mixed'
    if oom > 0:
        return 'oom' if unk == 0 else 'mixed'
    if unk > 0:
        return 'partial' if fit > 0 else 'unknown'
    return 'fit'


def model_sources(text):
    """Where the models came from, from the -v notes: 'VALUE (FILE:LINE)' or 'sweep KEY'."""
    out = []
    for line in text.splitlines():
        m = re.match(r'^.*?: note: model: (.*?) from (\S+?)( \(|;|$)', line)
        if m and 'overridden by' not in line and not m.group(1).startswith('empty'):
            out.append('%s (%s)' % (m.group(1)[:60], m.group(2)))
        m = re.match(r'^.*?: note: (\S+) \(sweep\) -> model: (.*?) \[', line)
        if m:
            out.append('sweep key %s: %s' % (m.group(1), m.group(2)[:40]))
    seen = []
    for s in out:
        if s not in seen:
            seen.append(s)
    return seen


def check(sweeplint, code, row):
    d, sweep_path = row['dir'], row['sweep_path']
    cwd = os.path.join(code, d, os.path.dirname(sweep_path))
    sweep = os.path.basename(sweep_path)
    res = {'dir': d, 'program': '-', 'models': '-', 'verdict': 'error', 'counts': '-', 'gpu': '-',
           'errors': 0, 'error_rules': ''}
    if not os.path.isdir(cwd):
        res['verdict'] = 'missing'
        res['program'] = 'not materialised: %s' % cwd
        return res
    p, err = run(sweeplint, cwd, sweep, ['-f', 'json'])
    if p is None:
        res['verdict'] = err
        return res
    try:
        j = json.loads(p.stdout)
        f = j['files'][0]
    except (ValueError, KeyError, IndexError):
        res['verdict'] = 'exit %d' % p.returncode
        res['program'] = (p.stderr.strip().splitlines() or ['no output'])[-1][:100]
        return res
    c = f.get('combinations', {})
    res['verdict'] = verdict_of(c)
    res['n'] = (count(c.get('fit')), count(c.get('oom')) + count(c.get('at_risk')), count(c.get('unknown')))
    res['counts'] = '%s fit, %s oom%s, %s unknown' % (
        show(count(c.get('fit'))), show(count(c.get('oom'))),
        (', %s at risk' % show(count(c.get('at_risk')))) if 'at_risk' in c else '', show(count(c.get('unknown'))))
    g = f.get('gpu') or {}
    res['gpu'] = '%s%s' % (g.get('name', '?'), ' (assumed)' if g.get('assumed') else '')
    res['gpu_name'] = g.get('name', '')
    errs = [x for x in f.get('diagnostics', []) if x.get('severity') == 'error' and x.get('rule') in MEMORY_ERRORS]
    res['errors'] = len(errs)
    res['error_rules'] = ','.join(sorted({x['rule'] for x in errs}))
    prog = f.get('program') or {}
    if prog.get('path'):
        res['program'] = '%s (%s)' % (prog['path'], prog.get('found_by', ''))
    else:
        res['program'] = 'none'
    pv, _ = run(sweeplint, cwd, sweep, ['-v'])
    text = pv.stdout if pv is not None else ''
    if not prog.get('path'):
        m = re.search(r'note: program not (?:followed|read): (.*)', text)
        if m:
            res['program'] = 'not followed: %s' % m.group(1)[:80]
    names = []
    for m in f.get('models', []):
        s = m.get('value', '?')
        if m.get('name') and m.get('name') != s:
            s += ' = %s' % m['name']
        if m.get('resolved_by') in (None, 'unknown') or not m.get('name'):
            s += ' (unresolved)'
        if s not in names:
            names.append(s)
    src = model_sources(text)
    res['models'] = '; '.join(names) or 'no model'
    if src:
        res['models'] += ' <- ' + '; '.join(src[:3])
    return res


def expected(truth, res):
    """The truth for the GPU sweeplint used."""
    if res.get('gpu_name') == 'a100-80gb' and truth.get('verdict_a100_80gb', '-') not in ('', '-'):
        return truth['verdict_a100_80gb']
    return truth.get('right_verdict', 'unknown')


def exact_oom(truth):
    m = re.match(r'\s*(\d+) of (\d+)', truth.get('oom_expected', '') or '')
    return (int(m.group(1)), int(m.group(2))) if m else None


def judge(truth, res, counts_json):
    if truth.get('in_scope') != 'yes':
        return 'out of scope'
    want = expected(truth, res)
    if want in ('unknown', 'n/a', '-', ''):
        return 'not judgeable'
    got = res['verdict']
    if got in ('unknown', 'partial', 'none', 'missing', 'timeout', 'error') or got.startswith('exit'):
        return 'no verdict'
    if want == 'fit':
        return 'right' if got == 'fit' else 'wrong'
    if want == 'oom':
        return 'right' if got == 'oom' else 'wrong'
    if want == 'mixed':
        if got != 'mixed':
            return 'wrong'
        ex = exact_oom(truth)
        if ex and counts_json and (counts_json[0] != ex[0] or counts_json[1] != ex[1]):
            return 'wrong'
        return 'right'
    return 'not judgeable'


def main():
    argv = sys.argv[1:]
    save = baseline = None
    if '--save' in argv:
        i = argv.index('--save')
        save = argv[i + 1]
        del argv[i:i + 2]
    if '--baseline' in argv:
        i = argv.index('--baseline')
        baseline = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 4 or len(argv) % 2:
        sys.exit(__doc__.split('\n\n')[1])
    sweeplint, code = os.path.abspath(argv[0]), argv[1]
    pairs = [(argv[i], argv[i + 1]) for i in range(2, len(argv), 2)]
    rows = []
    for man, tru in pairs:
        truth = {t['dir']: t for t in read_tsv(tru)}
        for r in read_tsv(man):
            if r['dir'] not in truth:
                sys.exit('%s: no judged verdict for %s' % (tru, r['dir']))
            rows.append((r, truth[r['dir']]))
    print('| sweep | program sweeplint read | models it resolved <- from where | sweeplint (gpu) | judged | result |')
    print('|---|---|---|---|---|---|')
    results = []
    for r, t in rows:
        res = check(sweeplint, code, r)
        n = res.get('n')
        oomc = (n[1], sum(n)) if n and float('inf') not in n else None
        res['result'] = judge(t, res, oomc)
        res['truth'] = expected(t, res) if t.get('in_scope') == 'yes' else 'n/a'
        results.append((r, t, res))
        print('| %s | %s | %s | %s: %s (%s)%s | %s%s | %s |' % (
            r['dir'], res['program'], res['models'], res['verdict'], res['counts'], res['gpu'],
            ('; %d memory error(s) %s' % (res['errors'], res['error_rules'])) if res['errors'] else '',
            res['truth'], (' (%s)' % t['oom_expected']) if t.get('oom_expected', '-') not in ('-', '') else '',
            res['result']))
    ins = [x for x in results if x[1].get('in_scope') == 'yes']
    stated = [x for x in ins if x[1].get('model_stated') == 'yes']
    judgeable = [x for x in ins if x[1].get('judgeable') == 'yes']

    def fig(group):
        verdict = sum(1 for _, _, s in group if s['result'] in ('right', 'wrong'))
        right = sum(1 for _, _, s in group if s['result'] == 'right')
        wrong = sum(1 for _, _, s in group if s['result'] == 'wrong')
        return verdict, right, wrong

    false_err = [s['dir'] for _, t, s in results
                 if s['errors'] and (t.get('in_scope') != 'yes' or expected(t, s) not in ('oom', 'mixed'))]
    v, z, wr = fig(stated)
    print()
    print('%d sweeps: %d in scope (transformer), %d out of scope; %d state the model; %d judgeable' % (
        len(results), len(ins), len(results) - len(ins), len(stated), len(judgeable)))
    print('memory verdict on %d of %d in-scope transformer sweeps whose repository states the model, right on %d'
          ' (%d wrong)' % (v, len(stated), z, wr))
    v2, z2, wr2 = fig(judgeable)
    print('judgeable in-scope sweeps: verdict on %d of %d, right on %d (%d%%), wrong on %d' % (
        v2, len(judgeable), z2, (100 * z2 // len(judgeable)) if judgeable else 0, wr2))
    print('false OOM errors: %d%s' % (len(false_err), (' (%s)' % ', '.join(false_err)) if false_err else ''))
    if save:
        with open(save, 'w', encoding='utf-8') as f:
            f.write('dir\tverdict\tcounts\terrors\tresult\n')
            for _, _, s in results:
                f.write('%s\t%s\t%s\t%d\t%s\n' % (s['dir'], s['verdict'], s['counts'], s['errors'], s['result']))
    if baseline:
        before = {b['dir']: b for b in read_tsv(baseline)}
        changed = 0
        print()
        print('changes against %s:' % baseline)
        for _, _, s in results:
            b = before.get(s['dir'])
            if b and (b['verdict'], b['counts'], b['result']) != (s['verdict'], s['counts'], s['result']):
                changed += 1
                print('  %s: %s (%s) %s -> %s (%s) %s' % (s['dir'], b['verdict'], b['counts'], b['result'],
                                                         s['verdict'], s['counts'], s['result']))
        print('  %d changed' % changed)
    return 0


if __name__ == '__main__':
    sys.exit(main())
