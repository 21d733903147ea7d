#!/usr/bin/env python3
"""Checks that the docs show what the simulator prints, in the manner of
SimGrid's tesh files.

Every fenced code block of README.md, docs/*.md and topologies/README.md
is read; a line of it
that starts with `$ bin/locklab-sim` is a command, and the lines after it, up
to the next `$ ` line or the end of the block, are its output.  Blank lines
that open or end an output are not compared (they separate it from the
next command).
A line that is only `...` stands for any number of lines.  Each command is
run from the repository root (through sh, so that a pipe works) and its
output (stdout, then stderr) compared with the block's: a difference is
printed as a unified diff and fails the check.

`$ bin/locklab-native` commands are skipped (a native run is not
deterministic), and so is any other `$ ` line; the check says so.

With --update the blocks are rewritten in place with the real output; a
block with `...` keeps its gaps where the lines around them still have the
same text (numbers aside), and is written out whole otherwise.

Exit status 0, 1 when a block differs or --update cannot write a file, 2
on bad arguments (one line): an option given twice or abbreviated, a --bin
without locklab-sim, a FILE that is not a readable UTF-8 regular file.

usage: doccheck.py [--bin DIR] [--update] [FILE.md ...]
"""

import difflib
import glob
import os
import re
import stat
import subprocess
import sys

sys.dont_write_bytecode = True  # the helper beside this file, not cached
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from args_oneline import OneLineParser, one_line, run_main  # noqa: E402

SIM = 'bin/locklab-sim'
NATIVE = 'bin/locklab-native'
GAP = '...'
FENCE = re.compile(r'^(```|~~~)')


class Command:
    """One `$ ` line of a code block and the output lines that follow it."""

    def __init__(self, path, lineno, text, first, end):
        self.path = path
        self.lineno = lineno  # 1-based, of the `$ ` line
        self.text = text      # the command, without `$ `
        self.first = first    # index of the first output line
        self.end = end        # index past the last one (blank lines around excluded)

    def where(self):
        return '%s:%d' % (self.path, self.lineno)


def commands_of(path, lines):
    """The `$ ` lines inside fenced blocks, with the extent of their output."""
    out = []
    fence = None
    cmd = None

    def close(i):
        first, end = cmd[1], i
        while first < end and lines[first].strip() == '':
            first += 1
        while end > first and lines[end - 1].strip() == '':
            end -= 1
        out.append(Command(path, cmd[0] + 1, cmd[2], first, end))

    for i, line in enumerate(lines):
        if fence is None:
            m = FENCE.match(line)
            if m:
                fence = m.group(1)
            continue
        if line.startswith(fence):
            if cmd:
                close(i)
            fence, cmd = None, None
            continue
        if line.startswith('$ '):
            if cmd:
                close(i)
            cmd = (i, i + 1, line[2:].strip())
    return out


def run(cmd, bindir):
    text = cmd.text
    if bindir is not None and text.startswith('bin/'):
        text = os.path.join(bindir, text[len('bin/'):])
    p = subprocess.run(['sh', '-c', text], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=600)
    return trim((p.stdout + p.stderr).split('\n')), p.returncode


def trim(lines):
    """Lines without the blank lines that open and end them."""
    a, b = 0, len(lines)
    while a < b and lines[a].strip() == '':
        a += 1
    while b > a and lines[b - 1].strip() == '':
        b -= 1
    return lines[a:b]


def segments(expected):
    """The expected lines split at the gaps: [[...], [...]]; one segment when
    there is no gap."""
    segs = [[]]
    for line in expected:
        if line == GAP:
            segs.append([])
        else:
            segs[-1].append(line)
    return segs


def place(segs, actual, same):
    """Where each segment sits in actual, in order, the first at the start
    and the last at the end (a gap at either end frees it): a list of start
    indexes, or None.  same(a, b) compares two lines."""
    def fits(seg, at):
        return at + len(seg) <= len(actual) and \
            all(same(a, b) for a, b in zip(seg, actual[at:at + len(seg)]))

    if len(segs) == 1:
        return [0] if len(segs[0]) == len(actual) and fits(segs[0], 0) else None
    starts = []
    pos = 0
    for k, seg in enumerate(segs):
        if k == 0:
            if not fits(seg, 0):
                return None
            at = 0
        elif k == len(segs) - 1:
            at = len(actual) - len(seg)
            if at < pos or not fits(seg, at):
                return None
        else:
            at = next((j for j in range(pos, len(actual) - len(seg) + 1) if fits(seg, j)), None)
            if at is None:
                return None
        starts.append(at)
        pos = at + len(seg)
    return starts


def shape(line):
    """A line with its numbers taken out."""
    return re.sub(r'[-+]?\d[\d.,:]*', '#', line)


def rewrite(expected, actual):
    """The block as --update writes it: the real output, keeping the gaps
    where the text around them has not changed."""
    segs = segments(expected)
    if len(segs) == 1:
        return list(actual)
    starts = place(segs, actual, lambda a, b: shape(a) == shape(b))
    if starts is None:
        return list(actual)
    out = []
    for k, (seg, at) in enumerate(zip(segs, starts)):
        if k:
            out.append(GAP)
        out += actual[at:at + len(seg)]
    return out


class BadInput(Exception):
    """A bad argument: one line, status 2."""


class WriteFailed(Exception):
    """--update could not write a file: one line, status 1."""


def read_doc(path):
    """The text of a FILE.md, or BadInput: a regular file, readable, UTF-8."""
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise BadInput('%s: a directory, not a Markdown file' % path)
        if not stat.S_ISREG(st.st_mode):
            raise BadInput('%s: not a regular file' % path)
        with open(path, encoding='utf-8') as f:
            return f.read()
    except OSError as e:
        raise BadInput('%s: %s' % (path, e.strerror or e))
    except UnicodeDecodeError as e:
        raise BadInput('%s: not UTF-8 text (byte %d)' % (path, e.start))


def write_doc(path, text):
    """text to path through a file beside it, renamed over it; the file
    beside it removed when the write fails."""
    tmp = path + '.doccheck-tmp'
    try:
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise WriteFailed('cannot write %s: %s' % (e.filename or path, e.strerror or e))


def check_file(path, bindir, update, text):
    lines = text.split('\n')
    failed = 0
    edits = []
    for cmd in commands_of(path, lines):
        if cmd.text.startswith(NATIVE):
            print('doccheck: %s: skipped `%s` (native runs are not deterministic)' %
                  (cmd.where(), cmd.text))
            continue
        if not cmd.text.startswith(SIM):
            print('doccheck: %s: skipped `%s` (not a %s command)' % (cmd.where(), cmd.text, SIM))
            continue
        expected = lines[cmd.first:cmd.end]
        actual, rc = run(cmd, bindir)
        if place(segments(expected), actual, lambda a, b: a == b) is not None:
            print('doccheck: %s: ok' % cmd.where())
            continue
        wanted = rewrite(expected, actual)
        if update:
            edits.append((cmd.first, cmd.end, wanted))
            print('doccheck: %s: rewritten' % cmd.where())
            continue
        failed += 1
        print('doccheck: %s: `%s` prints something else%s:' %
              (cmd.where(), cmd.text, '' if rc == 0 else ' (exit status %d)' % rc))
        sys.stdout.writelines(difflib.unified_diff(
            [l + '\n' for l in expected], [l + '\n' for l in wanted],
            '%s (documented)' % cmd.where(), '%s (real output)' % cmd.where()))
    if edits:
        for first, end, wanted in reversed(edits):
            lines[first:end] = wanted
        write_doc(path, '\n'.join(lines))
    return failed


def check_bin(bindir):
    if bindir == '':
        raise BadInput('--bin: an empty directory name')
    sim = os.path.join(bindir, os.path.basename(SIM))
    if not os.path.isdir(bindir):
        raise BadInput('--bin %s: not a directory (the directory of the built binaries, bin)'
                       % bindir)
    if not os.path.isfile(sim) or not os.access(sim, os.X_OK):
        raise BadInput('--bin %s: no locklab-sim there (the directory of the built binaries, '
                       'bin)' % bindir)


def main():
    ap = OneLineParser(prog='doccheck.py', description=__doc__.split('\n\n')[0])
    ap.add_argument('--bin', help='directory of the binaries that `bin/` in a command names')
    ap.add_argument('--update', action='store_true', help='rewrite the blocks with the real output')
    ap.add_argument('files', nargs='*', help='default: README.md docs/*.md topologies/README.md')
    a = ap.parse_args()
    files = a.files or ['README.md'] + sorted(glob.glob('docs/*.md')) + ['topologies/README.md']
    failed = 0
    try:
        if a.bin is not None:
            check_bin(a.bin)
        texts = [read_doc(path) for path in files]  # all of them, before any command runs
    except BadInput as e:
        sys.stderr.write('doccheck.py: %s\n' % one_line(e))
        return 2
    for path, text in zip(files, texts):
        try:
            failed += check_file(path, a.bin, a.update, text)
        except WriteFailed as e:
            sys.stderr.write('doccheck.py: %s\n' % one_line(e))
            return 1
    if failed:
        print('doccheck: %d block%s differ%s from the real output (`scons doccheck UPDATE=1` '
              'rewrites them)' % (failed, 's' if failed > 1 else '', '' if failed > 1 else 's'))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(run_main('doccheck.py', main))
