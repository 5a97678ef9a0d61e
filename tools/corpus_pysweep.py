#!/usr/bin/env python3
"""Sweeps written in Python in real public code: materialise the files, lint them, judge the results.

Usage:
  tools/corpus_pysweep.py materialise [--list TSV] [--mirror DIR] [--out DIR]
  tools/corpus_pysweep.py report SWEEPLINT [--list TSV] [--out DIR] [--save FILE]

The list (tests/corpus/pysweep_examples.tsv) names each file by repository, commit and path; no
third-party text is kept in the product. Its columns:
  repo, commit, path   the file (commit: 40 hex digits)
  role                 lint: a file sweeplint is run on; support: a file a linted one needs beside it (the
                       module its wandb.agent runs, the YAML it loads, the module it imports)
  defines_sweep        lint rows: yes when the code makes a W&B sweep (wandb.sweep(...) or
                       hyperparameter_search(backend="wandb")), no otherwise; support rows: -
  expected             what an engineer who read the file knows of it:
                       silent       no W&B sweep here: no sweep, no finding
                       cannot-know  a sweep whose content is not in the repository (a file it does not ship,
                                    a path from the command line): not read, no finding
                       n/a          a sweep with no GPU memory to judge (trees on the CPU, no model)
                       unknown      a sweep whose memory the repository does not let one judge
                       fit / oom / mixed  the memory verdict on the GPU in the gpu column
  gpu                  the GPU the repository states (sweeplint's --gpu), - for none (sweeplint's default)
  model                what the runs train, - when no model sweeplint could size
  why                  the judgement, from the file's text

materialise: writes each file with `git show COMMIT:PATH` from the mirror (--mirror /work/.mirror holds
OWNER+NAME/repo, a bare git directory per repository: the library's `fetch github:OWNER/NAME`) to
OUT/OWNER+NAME/PATH (OUT = /work/corpus-code/pysweep, outside the product), with an empty OUT/OWNER+NAME/.git
so sweeplint sees the project root. Exit 1 when a file could not be written (listed on stderr).

report: runs `sweeplint check -f json FILE` (and -v, for the notes) in the file's folder as its user would,
with --gpu when the gpu column names one, and prints per file what sweeplint read and said against the
judgement, then the figures:
  files               lint rows
  define a sweep      lint rows with defines_sweep yes
  read                of those, the files where sweeplint read every sweep it found (a sweep is read when
                      its combinations are counted: total > 0)
  right               silent: no sweep and no finding; cannot-know: no sweep read and no finding; n/a:
                      every sweep read, no fit or oom combination, no error; fit/oom/mixed: every sweep
                      read and its verdict that one (mixed: some oom and some fit), no error where fit
  no verdict          fit/oom/mixed expected, sweeplint's verdict unknown (it cannot size the model)
  not judgeable       unknown expected, and sweeplint raises no memory error
  not read            a sweep the judgement says sweeplint should read that it did not (the limits
                      docs/python-sweeps.md lists), counted apart from wrong
  wrong               anything else: a contrary verdict, an error where none is expected
  unexpected findings the warnings and errors of files whose expected verdict is not oom or mixed, by rule
  infos               the info findings, by rule
--save F writes one TSV line per file (result, sweeps, read, verdict, findings) for comparing runs.
Exit status: 0 when no file is wrong, 1 otherwise.
"""
import argparse
import collections
import csv
import json
import os
import re
import subprocess
import sys

COLS = ['repo', 'commit', 'path', 'role', 'defines_sweep', 'expected', 'gpu', 'model', 'why']
EXPECTED = {'silent', 'cannot-know', 'n/a', 'unknown', 'fit', 'oom', 'mixed'}
MEMORY_ERRORS = ('oom', 'eval-oom', 'host-oom')


def here(*p):
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), *p)


def read_list(path):
    with open(path, newline='', encoding='utf-8') as f:
        r = csv.DictReader(f, delimiter='\t', quoting=csv.QUOTE_NONE)
        return r.fieldnames, list(r)


def folder(out, repo):
    return os.path.join(out, repo.replace('/', '+'))


def safe_join(root, rel):
    p = os.path.normpath(os.path.join(root, rel))
    if os.path.isabs(rel) or not p.startswith(os.path.normpath(root) + os.sep):
        raise ValueError('path leaves the folder: %s' % rel)
    return p


def materialise(args):
    _, rows = read_list(args.list)
    missing = 0
    for r in rows:
        git = os.path.join(args.mirror, r['repo'].replace('/', '+'), 'repo')
        if os.path.isdir(os.path.join(git, '.git')):
            git = os.path.join(git, '.git')
        if not os.path.isdir(git):
            print('%s %s: no mirror %s (fetch github:%s)' % (r['repo'], r['path'], git, r['repo']), file=sys.stderr)
            missing += 1
            continue
        p = subprocess.run(['git', '--git-dir=' + git, 'show', '%s:%s' % (r['commit'], r['path'])],
                           capture_output=True, timeout=120)
        if p.returncode != 0:
            why = (p.stderr.decode('utf-8', 'replace').strip().splitlines() or ['git show failed'])[-1]
            print('%s %s@%s: %s' % (r['repo'], r['path'], r['commit'][:12], why), file=sys.stderr)
            missing += 1
            continue
        root = folder(args.out, r['repo'])
        dst = safe_join(root, r['path'])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, 'wb') as f:
            f.write(p.stdout)
        os.makedirs(os.path.join(root, '.git'), exist_ok=True)
    print('%d files written to %s, %d missing' % (len(rows) - missing, args.out, missing))
    return 1 if missing else 0


def count(v):
    if isinstance(v, int):
        return v
    return float('inf') if v == 'infinite' else 0


def run(sweeplint, cwd, name, extra):
    try:
        return subprocess.run([sweeplint, 'check'] + extra + [name], cwd=cwd, capture_output=True, text=True,
                              timeout=300)
    except subprocess.TimeoutExpired:
        return None


def verdict_of(entries):
    fit = sum(count(e['combinations'].get('fit')) for e in entries)
    oom = sum(count(e['combinations'].get('oom')) + count(e['combinations'].get('at_risk')) for e in entries)
    unk = sum(count(e['combinations'].get('unknown')) for e in entries)
    if oom and fit:
        return 'mixed'
    if oom:
        return 'oom' if not unk else 'mixed'
    if fit:
        return 'partial' if unk else 'fit'
    return 'unknown' if unk else 'none'


def lint(sweeplint, out, r):
    res = {'sweeps': 0, 'read': 0, 'verdict': 'none', 'diags': [], 'note': ''}
    path = safe_join(folder(out, r['repo']), r['path'])
    if not os.path.isfile(path):
        res['error'] = 'not materialised: %s' % path
        return res
    cwd, name = os.path.dirname(path), os.path.basename(path)
    extra = ['--gpu', r['gpu']] if r['gpu'] != '-' else []
    p = run(sweeplint, cwd, name, ['-f', 'json'] + extra)
    if p is None:
        res['error'] = 'timeout'
        return res
    try:
        files = json.loads(p.stdout)['files']
    except (ValueError, KeyError):
        res['error'] = 'exit %d: %s' % (p.returncode, (p.stderr.strip().splitlines() or ['no output'])[-1][:100])
        return res
    sweeps = [f for f in files if 'sweep' in f]
    res['sweeps'] = len(sweeps)
    read = [f for f in sweeps if count(f['combinations'].get('total')) > 0]
    res['read'] = len(read)
    res['verdict'] = verdict_of(read)
    res['diags'] = [(d['severity'], d['rule']) for f in files for d in f.get('diagnostics', [])]
    pv = run(sweeplint, cwd, name, ['-v'] + extra)
    text = pv.stdout + pv.stderr if pv is not None else ''
    m = re.search(r'note: (?:(?:cell \d+:)?\d+:\d+: )?(not read: .*|no W&B sweep.*|.*loads its sweep from .*)', text)
    if m:
        res['note'] = m.group(1)[:110]
    return res


def judge(r, res):
    if 'error' in res:
        return 'wrong'
    want = r['expected']
    errors = [x for x in res['diags'] if x[0] == 'error']
    if want == 'silent':
        return 'right' if res['sweeps'] == 0 and not res['diags'] else 'wrong'
    if want == 'cannot-know':
        return 'right' if res['read'] == 0 and not res['diags'] else 'wrong'
    if res['read'] < res['sweeps'] or res['sweeps'] == 0:
        return 'not read' if not res['diags'] else 'wrong'
    if want == 'unknown':
        return 'wrong' if any(x[1] in MEMORY_ERRORS for x in errors) else 'not judgeable'
    if want == 'n/a':
        return 'right' if res['verdict'] in ('unknown', 'none') and not errors else 'wrong'
    if res['verdict'] in ('unknown', 'none', 'partial') and not errors:
        return 'no verdict'
    if want in ('oom', 'mixed'):
        return 'right' if res['verdict'] == want else 'wrong'
    return 'right' if res['verdict'] == 'fit' and not errors else 'wrong'


def report(args):
    _, rows = read_list(args.list)
    lints = [r for r in rows if r['role'] == 'lint']
    sweeplint = os.path.abspath(args.sweeplint) if os.sep in args.sweeplint else args.sweeplint
    results = []
    for r in lints:
        res = lint(sweeplint, args.out, r)
        res['result'] = judge(r, res)
        results.append((r, res))
        diags = collections.Counter('%s %s' % d for d in res['diags'])
        print('%-11s %s %s' % (res['result'], r['repo'], r['path']))
        print('            expected %s%s; sweeplint: %d sweep(s), %d read, verdict %s%s%s' % (
            r['expected'], '' if r['gpu'] == '-' else ' on ' + r['gpu'], res['sweeps'], res['read'],
            res['verdict'], ('; ' + ', '.join('%s x%d' % kv for kv in sorted(diags.items()))) if diags else '',
            ('; ' + res.get('error', res['note'])) if res.get('error') or res['note'] else ''))
    define = [x for x in results if x[0]['defines_sweep'] == 'yes']
    by = collections.Counter(res['result'] for _, res in results)
    print()
    print('files: %d (%d repositories); define a sweep: %d; sweeplint reads every sweep of %d of them' % (
        len(results), len({r['repo'] for r, _ in results}), len(define),
        sum(1 for _, res in define if res['sweeps'] and res['read'] == res['sweeps'])))
    def n(want, result=None):
        return sum(1 for r, res in results if r['expected'] in want and (result is None or res['result'] == result))
    print('right: %d of %d (silent %d of %d; cannot-know %d of %d; n/a %d of %d; fit/oom/mixed %d of %d, '
          'no verdict on %d); not judgeable: %d; not read: %d; wrong: %d' % (
              by['right'], len(results), n(('silent',), 'right'), n(('silent',)), n(('cannot-know',), 'right'),
              n(('cannot-know',)), n(('n/a',), 'right'), n(('n/a',)), n(('fit', 'oom', 'mixed'), 'right'),
              n(('fit', 'oom', 'mixed')), n(('fit', 'oom', 'mixed'), 'no verdict'), by['not judgeable'],
              by['not read'], by['wrong']))
    noise = collections.Counter(rule for r, res in results if r['expected'] not in ('oom', 'mixed')
                                for sev, rule in res['diags'] if sev in ('warning', 'error'))
    infos = collections.Counter(rule for _, res in results for sev, rule in res['diags'] if sev == 'info')
    print('unexpected findings (warning/error where no oom is expected): %s' % (
        ', '.join('%s %d' % kv for kv in sorted(noise.items())) or 'none'))
    print('infos: %s' % (', '.join('%s %d' % kv for kv in sorted(infos.items())) or 'none'))
    if args.save:
        with open(args.save, 'w', encoding='utf-8') as f:
            f.write('repo\tpath\tresult\tsweeps\tread\tverdict\tfindings\n')
            for r, res in results:
                f.write('%s\t%s\t%s\t%d\t%d\t%s\t%s\n' % (r['repo'], r['path'], res['result'], res['sweeps'],
                                                         res['read'], res['verdict'],
                                                         ','.join('%s:%s' % d for d in res['diags']) or '-'))
    return 1 if by['wrong'] else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    for name in ('materialise', 'report'):
        p = sub.add_parser(name)
        if name == 'report':
            p.add_argument('sweeplint')
            p.add_argument('--save')
        else:
            p.add_argument('--mirror', default='/work/.mirror')
        p.add_argument('--list', default=here('..', 'tests', 'corpus', 'pysweep_examples.tsv'))
        p.add_argument('--out', default='/work/corpus-code/pysweep')
    args = ap.parse_args()
    sys.exit(materialise(args) if args.cmd == 'materialise' else report(args))


if __name__ == '__main__':
    main()
