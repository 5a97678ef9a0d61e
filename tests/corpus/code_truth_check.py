#!/usr/bin/python3
"""The judged verdicts of the real-code corpus are well formed and cover every sweep.

    code_truth_check.py TESTS_CORPUS_DIR

Checks tests/corpus/code_truth.tsv (the 47 sweeps of ../shared/corpus/repos/MANIFEST.tsv) and
tests/corpus/code_truth_extra.tsv (the sweeps of tests/corpus/code_extra.tsv): one row per sweep, the
columns tools/corpus_code_report.py reads, verdicts from the allowed set and consistent with scope and
judgeability (out of scope -> n/a; not judgeable -> unknown; judgeable -> fit, oom or mixed; mixed ->
oom_expected says which), and tests/corpus/code_added.tsv names known sweeps at full commits.
The cross-check with the 47 needs ../shared/corpus/repos (skipped without it); the rest always runs.
"""
import csv
import os
import re
import sys

COLS = ['dir', 'in_scope', 'model_stated', 'judgeable', 'model', 'model_from', 'workload', 'settings', 'gpu',
        'right_verdict', 'verdict_a100_80gb', 'oom_expected', 'confidence', 'blocks', 'why']
VERDICTS = {'fit', 'oom', 'mixed', 'unknown', 'n/a'}


def read_tsv(path):
    with open(path, newline='', encoding='utf-8') as f:
        r = csv.DictReader(f, delimiter='\t', quoting=csv.QUOTE_NONE)
        rows = list(r)
        return r.fieldnames, rows


def check_truth(path, dirs, errors):
    cols, rows = read_tsv(path)
    if cols != COLS:
        errors.append('%s: columns %s, expected %s' % (path, cols, COLS))
        return
    seen = set()
    for i, t in enumerate(rows, 2):
        where = '%s:%d (%s)' % (path, i, t['dir'])
        if any(v is None or v == '' for v in t.values()):
            errors.append('%s: an empty field (write - for none)' % where)
            continue
        if t['dir'] in seen:
            errors.append('%s: dir judged twice' % where)
        seen.add(t['dir'])
        for c in ('right_verdict', 'verdict_a100_80gb'):
            if t[c] not in VERDICTS:
                errors.append('%s: %s %r not in %s' % (where, c, t[c], sorted(VERDICTS)))
        if t['in_scope'] not in ('yes', 'no'):
            errors.append('%s: in_scope must be yes or no' % where)
        elif t['in_scope'] == 'no':
            if t['right_verdict'] != 'n/a' or t['verdict_a100_80gb'] != 'n/a':
                errors.append('%s: out of scope, so both verdicts are n/a' % where)
            continue
        if t['model_stated'] not in ('yes', 'no', 'name-only'):
            errors.append('%s: model_stated must be yes, no or name-only' % where)
        if t['confidence'] not in ('high', 'medium', 'low'):
            errors.append('%s: confidence must be high, medium or low' % where)
        if t['judgeable'] == 'no':
            if t['right_verdict'] != 'unknown':
                errors.append('%s: not judgeable, so right_verdict is unknown' % where)
        elif t['judgeable'] == 'yes':
            for c in ('right_verdict', 'verdict_a100_80gb'):
                if t[c] not in ('fit', 'oom', 'mixed'):
                    errors.append('%s: judgeable, so %s is fit, oom or mixed' % (where, c))
            if 'mixed' in (t['right_verdict'], t['verdict_a100_80gb']) and t['oom_expected'] == '-':
                errors.append('%s: a mixed verdict says which combinations OOM (oom_expected)' % where)
            m = re.match(r'(\d+) of (\d+)', t['oom_expected'])
            if m and int(m.group(1)) > int(m.group(2)):
                errors.append('%s: oom_expected %s' % (where, t['oom_expected']))
        else:
            errors.append('%s: judgeable must be yes or no' % where)
    if dirs is not None:
        for d in sorted(set(dirs) - seen):
            errors.append('%s: no judged verdict for %s' % (path, d))
        for d in sorted(seen - set(dirs)):
            errors.append('%s: %s is not a sweep of its manifest' % (path, d))


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(os.path.abspath(here)))
    manifest = os.path.join(root, '..', 'shared', 'corpus', 'repos', 'MANIFEST.tsv')
    errors = []
    dirs47 = [r['dir'] for r in read_tsv(manifest)[1]] if os.path.exists(manifest) else None
    check_truth(os.path.join(here, 'code_truth.tsv'), dirs47, errors)
    extra = os.path.join(here, 'code_extra.tsv')
    extra_dirs = []
    if os.path.exists(extra):
        cols, rows = read_tsv(extra)
        for c in ('dir', 'sweep_path', 'repo', 'commit', 'program', 'notes'):
            if c not in cols:
                errors.append('%s: no column %s' % (extra, c))
        extra_dirs = [r['dir'] for r in rows]
        for r in rows:
            if not r['dir'].startswith('extra-'):
                errors.append('%s: %s: extra sweeps are named extra-<owner>__<name>__<sweep>' % (extra, r['dir']))
            if not re.fullmatch(r'[0-9a-f]{40}', r['commit'] or ''):
                errors.append('%s: %s: commit %r is not a full hash' % (extra, r['dir'], r['commit']))
        check_truth(os.path.join(here, 'code_truth_extra.tsv'), extra_dirs, errors)
    added = os.path.join(here, 'code_added.tsv')
    if os.path.exists(added):
        for r in read_tsv(added)[1]:
            known = (dirs47 is None or r['dir'] in dirs47) or r['dir'] in extra_dirs
            if not known:
                errors.append('%s: %s is not a sweep of either manifest' % (added, r['dir']))
            if not re.fullmatch(r'[0-9a-f]{40}', r['commit'] or ''):
                errors.append('%s: %s %s: commit %r is not a full hash' % (added, r['dir'], r['path'], r['commit']))
            if os.path.isabs(r['path']) or '..' in r['path'].split('/'):
                errors.append('%s: %s: path %r leaves the repository' % (added, r['dir'], r['path']))
    for e in errors:
        print('FAIL', e)
    if dirs47 is None:
        print('note: ../shared/corpus/repos is absent: the 47 are not cross-checked')
    print('%d problems' % len(errors))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
