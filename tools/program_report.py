#!/usr/bin/env python3
"""What `sweeplint check` reads by following each corpus sweep's program, and the verdict before/after.

Usage: tools/program_report.py SWEEPLINT [REPOS] [FIXTURES]

REPOS (default ../shared/corpus/repos) holds, per sweep, its repository's data files and MANIFEST.tsv;
programs are not there. FIXTURES (default fixtures/program/corpus) holds programs written for the
tests with the patterns each SOURCE.tsv describes. Each folder is copied to a temporary folder with
its fixture program (if any) added, then checked with --no-follow (before) and without (after).
Prints a markdown table: the program found, the settings read from it (role: value from file:line),
and the combinations fit/oom/unknown plus error findings before and after.
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile


def check(sweeplint, sweep, cwd, follow):
    """The memory estimates made (or why none), the summary's combination counts, the memory error findings."""
    args = [sweeplint, 'check', '-v'] + ([] if follow else ['--no-follow']) + [sweep]
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120)
    m = re.search(r'combinations: (.*?)\)\s*$', p.stdout)
    e = re.search(r'note: (\d+) memory-relevant combinations?, (\d+) estimates?', p.stdout)
    est = 'no model' if 'no key sets the model' in p.stdout else ('%s of %s estimated' % (e.group(2), e.group(1))
                                                                   if e else 'not evaluated')
    memory = ('[oom]', '[eval-oom]', '[host-oom]', '[seq-len-exceeds-model]', '[bf16-unsupported]')
    errors = sum(1 for line in p.stdout.splitlines() if ': error: ' in line and line.rstrip().endswith(memory))
    return '%s; %s' % (est, m.group(1) if m else 'exit %d' % p.returncode), errors


def notes(sweeplint, sweep, cwd):
    p = subprocess.run([sweeplint, 'check', '-v', sweep], cwd=cwd, capture_output=True, text=True, timeout=120)
    program, read = '', []
    for line in p.stdout.splitlines():
        m = re.match(r'^.*?: note: program (\S+) \(', line)
        if m:
            program = m.group(1)
        m = re.match(r'^.*?: note: program not (followed|read): (.*)$', line)
        if m:
            program = 'not %s: %s' % (m.group(1), m.group(2)[:70])
        m = re.match(r'^.*?: note: (\w+): (.*?) from (\S+) \((.*?)\)(; overridden by (.*))?$', line)
        if m:
            read.append('%s: %s (%s%s)' % (m.group(1), m.group(2)[:40], m.group(3),
                                           ', overridden' if m.group(5) else ''))
        m = re.match(r'^.*?: note: (\S+) -> (\w+): (.*?) \[.*$', line)
        if m and '(config ' in m.group(1):
            read.append('%s: %s (%s)' % (m.group(2), m.group(3)[:40], m.group(1).split('(config ')[1].rstrip(')')))
    return program, read


def main():
    sweeplint = os.path.abspath(sys.argv[1])
    repos = sys.argv[2] if len(sys.argv) > 2 else '../shared/corpus/repos'
    fixtures = sys.argv[3] if len(sys.argv) > 3 else 'fixtures/program/corpus'
    rows = list(csv.DictReader(open(os.path.join(repos, 'MANIFEST.tsv')), delimiter='\t'))
    print('| sweep | fixture program | program followed | settings read | before: combinations (memory errors) | after |')
    print('|---|---|---|---|---|---|')
    changed = 0
    for r in rows:
        d = r['dir']
        with tempfile.TemporaryDirectory() as tmp:
            work = os.path.join(tmp, 'repo')
            shutil.copytree(os.path.join(repos, d), work)
            os.mkdir(os.path.join(work, '.git'))
            fx = os.path.join(fixtures, d)
            has_fx = os.path.isdir(fx)
            if has_fx:
                shutil.copytree(fx, work, dirs_exist_ok=True)
            sweep = r['sweep_path']
            before = check(sweeplint, sweep, work, False)
            after = check(sweeplint, sweep, work, True)
            program, read = notes(sweeplint, sweep, work)
        changed += before != after
        print('| %s | %s | %s | %s | %s (%d) | %s (%d) |' % (
            d, 'yes' if has_fx else 'no', program or '-', '; '.join(read) or '-', before[0], before[1],
            after[0], after[1]))
    print('\n%d of %d sweeps change verdict counts when the program is followed' % (changed, len(rows)))


if __name__ == '__main__':
    main()
