#!/usr/bin/env python3
"""Materialise the real code of the corpus sweeps outside the product, from local git mirrors.

Usage:
  tools/corpus_code.py materialise [--repos DIR] [--added TSV] [--extra TSV] [--mirror DIR] [--out DIR]
  tools/corpus_code.py check       (same options: lists what is missing, writes nothing)

Sources of the file list (paths and commits only; no third-party text is kept in the product):
  --repos  ../shared/corpus/repos           MANIFEST.tsv (dir, sweep_path, repo, commit, ...) and,
                                            per dir, SOURCE.tsv (path, repo, commit_used, why_included)
  --added  tests/corpus/code_added.tsv      dir, path, repo, commit, why: files the program needs to
                                            decide the run that a SOURCE.tsv did not list (local modules,
                                            configs it loads), and every file of the extra sweeps
  --extra  tests/corpus/code_extra.tsv      dir, sweep_path, repo, commit, program, notes: sweeps found
                                            beyond the 47 (their dirs start with extra-)
Mirrors: --mirror /work/.mirror holds OWNER+NAME/repo, a bare git directory per repository (the
library's `fetch github:OWNER/NAME` makes it). Each file is written with `git show COMMIT:PATH` to
OUT/<dir>/<path>; OUT/<dir>/.git is an empty directory so sweeplint sees the project root; OUT/<dir>/
SOURCE.tsv lists every file written with its repo, commit and why. Nothing is copied into the product.
Exit status: 0 when every listed file was written, 1 when some are missing (listed on stderr).
"""
import argparse
import csv
import os
import subprocess
import sys


def read_tsv(path):
    with open(path, newline='', encoding='utf-8') as f:
        return list(csv.DictReader(f, delimiter='\t', quoting=csv.QUOTE_NONE))


def mirror_of(mirrors, repo):
    """The git directory of a mirror: OWNER+NAME/repo (bare) or OWNER+NAME/repo/.git (with a work tree)."""
    d = os.path.join(mirrors, repo.replace('/', '+'), 'repo')
    return os.path.join(d, '.git') if os.path.isdir(os.path.join(d, '.git')) else d


def blob(mirrors, repo, commit, path):
    """The file's bytes at COMMIT, or None with the reason."""
    git = mirror_of(mirrors, repo)
    if not os.path.isdir(git):
        return None, 'no mirror %s (fetch github:%s)' % (git, repo)
    p = subprocess.run(['git', '--git-dir=' + git, 'show', '%s:%s' % (commit, path)],
                       capture_output=True, timeout=120)
    if p.returncode != 0:
        return None, p.stderr.decode('utf-8', 'replace').strip().splitlines()[-1:] or ['git show failed']
    return p.stdout, None


def plan(args):
    """{dir: {'sweep': sweep_path, 'files': [(path, repo, commit, why, origin)]}} for all sweeps."""
    sweeps = {}
    for r in read_tsv(os.path.join(args.repos, 'MANIFEST.tsv')):
        d = r['dir']
        files = [(s['path'], s['repo'], s['commit_used'], s['why_included'], 'SOURCE.tsv')
                 for s in read_tsv(os.path.join(args.repos, d, 'SOURCE.tsv'))]
        sweeps[d] = {'sweep': r['sweep_path'], 'files': files}
    if args.extra and os.path.exists(args.extra):
        for r in read_tsv(args.extra):
            sweeps.setdefault(r['dir'], {'sweep': r['sweep_path'], 'files': []})
    if args.added and os.path.exists(args.added):
        for r in read_tsv(args.added):
            if r['dir'] not in sweeps:
                sys.exit('%s: dir %s is neither in MANIFEST.tsv nor in %s' % (args.added, r['dir'], args.extra))
            sweeps[r['dir']]['files'].append((r['path'], r['repo'], r['commit'], r['why'], 'added'))
    return sweeps


def safe_join(root, rel):
    out = os.path.normpath(os.path.join(root, rel))
    if os.path.isabs(rel) or not out.startswith(os.path.normpath(root) + os.sep):
        raise ValueError('path leaves the folder: %s' % rel)
    return out


def default_repos():
    """../shared/corpus/repos from the main checkout, ../../shared/... from a worktree under /work/wt."""
    for up in ('..', os.path.join('..', '..')):
        p = os.path.join(up, 'shared', 'corpus', 'repos')
        if os.path.isdir(p):
            return p
    return os.path.join('..', 'shared', 'corpus', 'repos')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('action', choices=['materialise', 'check'])
    ap.add_argument('--repos', default=default_repos())
    ap.add_argument('--added', default='tests/corpus/code_added.tsv')
    ap.add_argument('--extra', default='tests/corpus/code_extra.tsv')
    ap.add_argument('--mirror', default='/work/.mirror')
    ap.add_argument('--out', default='/work/corpus-code')
    ap.add_argument('--only', help='one dir')
    args = ap.parse_args()
    sweeps = plan(args)
    missing = 0
    written = 0
    for d, s in sorted(sweeps.items()):
        if args.only and d != args.only:
            continue
        root = os.path.join(args.out, d)
        rows = []
        for path, repo, commit, why, origin in s['files']:
            data, err = blob(args.mirror, repo, commit, path)
            if data is None:
                missing += 1
                print('%s: %s@%s:%s: %s' % (d, repo, commit[:7], path, err), file=sys.stderr)
                continue
            rows.append((path, repo, commit, why, origin))
            if args.action == 'check':
                continue
            dest = safe_join(root, path)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            tmp = dest + '.tmp-corpus'
            with open(tmp, 'wb') as f:
                f.write(data)
            os.replace(tmp, dest)
            written += 1
        if args.action == 'materialise':
            os.makedirs(os.path.join(root, '.git'), exist_ok=True)
            with open(os.path.join(root, 'SOURCE.tsv'), 'w', encoding='utf-8') as f:
                f.write('path\trepo\tcommit\twhy\torigin\n')
                for row in rows:
                    f.write('\t'.join(x.replace('\t', ' ') for x in row) + '\n')
    print('%d sweeps, %d files %s, %d missing' % (
        len(sweeps) if not args.only else 1, written, 'written' if args.action == 'materialise' else 'checked',
        missing))
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
