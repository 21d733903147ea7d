#!/usr/bin/env python3
"""tools/doccheck.py on tests/doccheck/fixture.md, with a stand-in for
bin/locklab-sim that prints its arguments: a true doc passes, a changed
figure fails with a unified diff naming the line, --update puts the real
output back and keeps the gaps, native and other commands are skipped.

usage: unit_doccheck.py [BIN]  (BIN is not used: the stand-in replaces it)
"""

import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCCHECK = os.path.join(ROOT, 'tools', 'doccheck.py')
FIXTURE = os.path.join(ROOT, 'tests', 'doccheck', 'fixture.md')
STAND_IN = '#!/bin/sh\nfor a in "$@"; do echo "$a"; done\necho done\n'

failures = []


def check(what, ok, detail=''):
    print('%s %s' % ('ok  ' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
        if detail:
            print(detail)


def doccheck(tmp, *args):
    p = subprocess.run([sys.executable, DOCCHECK, '--bin', os.path.join(tmp, 'bin')] +
                       list(args) + ['doc.md'], cwd=tmp, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def main():
    tmp = tempfile.mkdtemp(prefix='unit_doccheck.')
    try:
        os.mkdir(os.path.join(tmp, 'bin'))
        sim = os.path.join(tmp, 'bin', 'locklab-sim')
        with open(sim, 'w') as f:
            f.write(STAND_IN)
        os.chmod(sim, 0o755)
        doc = os.path.join(tmp, 'doc.md')
        with open(FIXTURE) as f:
            true_doc = f.read()

        shutil.copy(FIXTURE, doc)
        rc, out = doccheck(tmp)
        check('a true doc passes', rc == 0 and out.count(': ok') == 3, out)
        check('a native block is skipped and said so',
              'doc.md:31: skipped `bin/locklab-native run` (native runs are not deterministic)'
              in out, out)
        check('another command is skipped', 'doc.md:33: skipped `scons sim`' in out, out)

        with open(doc, 'w') as f:
            f.write(true_doc.replace('--lock\na\n', '--lock\nb\n')
                    .replace('4\ndone\n', '5\ndone\n'))
        rc, out = doccheck(tmp)
        check('a changed line fails', rc == 1, out)
        check('the diff is unified and names the line',
              '--- doc.md:7 (documented)\n+++ doc.md:7 (real output)\n' in out and
              '-b\n+a\n' in out, out)
        check('a changed line after a gap fails', 'doc.md:17: ' in out and '-5\n+4\n' in out,
              out)

        rc, out = doccheck(tmp, '--update')
        with open(doc) as f:
            updated = f.read()
        check('--update rewrites the blocks, gaps kept', rc == 0 and updated == true_doc,
              out + '\n' + updated)

        with open(doc, 'w') as f:
            f.write(true_doc.replace('one\n...\n4\n', 'one\n...\nsix\n'))
        doccheck(tmp, '--update')
        with open(doc) as f:
            updated = f.read()
        check('--update writes a gap block whole when its text changed',
              'one\n2\n3\n4\ndone\n' in updated, updated)
    finally:
        shutil.rmtree(tmp)
    if failures:
        print('unit_doccheck: %d check%s failed' % (len(failures), 's' if len(failures) > 1 else ''))
        return 1
    print('unit_doccheck: all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
