#!/usr/bin/python3
"""The list of public Python sweeps (tests/corpus/pysweep_examples.tsv) is well formed; on a machine that has
them materialised, sweeplint says of each what the list judges.

    pysweep_examples_check.py TESTS_CORPUS_DIR [SWEEPLINT [MATERIALISED_DIR]]

Always: the columns tools/corpus_pysweep.py reads, a full commit per file, one row per (repo, commit, path),
a role, and judgements consistent with each other (a file that defines no sweep is expected silent, one
that defines a sweep is not; fit/oom/mixed name the model; support rows judge nothing and sit beside a
linted file of their repository at the same commit); at least the 20 files issue 35 asks for.
With SWEEPLINT and the materialised files (tools/corpus_pysweep.py materialise: /work/corpus-code/pysweep by
default; absent in CI, which has no network: then this part is skipped, and said), each linted file is
checked as tools/corpus_pysweep.py report does and no file may be judged wrong ('not read', 'no verdict'
and 'not judgeable' are limits docs/python-sweeps.md lists, not failures).
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools'))
import corpus_pysweep as cp  # noqa: E402

REPO = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$')
COMMIT = re.compile(r'^[0-9a-f]{40}$')


def check_form(path, errors):
    cols, rows = cp.read_list(path)
    if cols != cp.COLS:
        errors.append('%s: columns %s, expected %s' % (path, cols, cp.COLS))
        return rows
    seen = set()
    lint_at = {(r['repo'], r['commit']) for r in rows if r['role'] == 'lint'}
    for i, r in enumerate(rows, 2):
        where = '%s:%d (%s %s)' % (path, i, r['repo'], r['path'])
        if any(v is None or v == '' for v in r.values()):
            errors.append('%s: an empty field (write - for none)' % where)
            continue
        if not REPO.match(r['repo']):
            errors.append('%s: repo %r is not OWNER/NAME' % (where, r['repo']))
        if not COMMIT.match(r['commit']):
            errors.append('%s: commit %r is not 40 hex digits' % (where, r['commit']))
        if r['path'].startswith('/') or '..' in r['path'].split('/'):
            errors.append('%s: path must stay inside the repository' % where)
        k = (r['repo'], r['commit'], r['path'])
        if k in seen:
            errors.append('%s: listed twice' % where)
        seen.add(k)
        if r['role'] == 'support':
            if any(r[c] != '-' for c in ('defines_sweep', 'expected', 'gpu', 'model')):
                errors.append('%s: a support file judges nothing: defines_sweep, expected, gpu, model are -' % where)
            if (r['repo'], r['commit']) not in lint_at:
                errors.append('%s: a support file with no linted file of its repository at that commit' % where)
        elif r['role'] == 'lint':
            if r['defines_sweep'] not in ('yes', 'no'):
                errors.append('%s: defines_sweep must be yes or no' % where)
            if r['expected'] not in cp.EXPECTED:
                errors.append('%s: expected %r not in %s' % (where, r['expected'], sorted(cp.EXPECTED)))
            elif (r['defines_sweep'] == 'no') != (r['expected'] == 'silent'):
                errors.append('%s: a file without a sweep, and only one, is expected silent' % where)
            if r['expected'] in ('fit', 'oom', 'mixed') and r['model'] == '-':
                errors.append('%s: a memory verdict names the model' % where)
            if r['expected'] in ('silent', 'cannot-know', 'n/a', 'unknown') and r['gpu'] != '-':
                errors.append('%s: no verdict, no GPU' % where)
        else:
            errors.append('%s: role %r is neither lint nor support' % (where, r['role']))
    n = sum(1 for r in rows if r['role'] == 'lint')
    if n < 20:
        errors.append('%s: %d linted files, fewer than the 20 issue 35 asks for' % (path, n))
    return rows


def check_runs(rows, sweeplint, out, errors):
    lints = [r for r in rows if r['role'] == 'lint']
    absent = [r for r in rows if not os.path.isfile(os.path.join(cp.folder(out, r['repo']), r['path']))]
    if absent:
        print('# skipped the runs: %d of %d listed files are not materialised under %s '
              '(tools/corpus_pysweep.py materialise)' % (len(absent), len(rows), out))
        return
    sweeplint = os.path.abspath(sweeplint)
    results = collections.Counter()
    for r in lints:
        res = cp.lint(sweeplint, out, r)
        got = cp.judge(r, res)
        results[got] += 1
        if got == 'wrong':
            errors.append('%s %s: expected %s; sweeplint: %d sweep(s), %d read, verdict %s, findings %s%s' % (
                r['repo'], r['path'], r['expected'], res['sweeps'], res['read'], res['verdict'],
                res['diags'] or 'none', (', ' + res['error']) if 'error' in res else ''))
    print('# %d files: %s' % (len(lints), ', '.join('%s %d' % kv for kv in sorted(results.items()))))


def main():
    folder = sys.argv[1]
    errors = []
    rows = check_form(os.path.join(folder, 'pysweep_examples.tsv'), errors)
    if len(sys.argv) > 2 and not errors:
        out = sys.argv[3] if len(sys.argv) > 3 else '/work/corpus-code/pysweep'
        if os.path.isdir(out):
            check_runs(rows, sys.argv[2], out, errors)
        else:
            print('# skipped the runs: %s is absent (no materialised examples here)' % out)
    for e in errors:
        print('error: %s' % e)
    if errors:
        sys.exit(1)
    print('pysweep_examples.tsv: %d rows well formed' % len(rows))


if __name__ == '__main__':
    main()
