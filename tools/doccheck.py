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

usage: doccheck.py [--bin DIR] [--update] [FILE.md ...]
"""

import argparse
import difflib
import glob
import os
import re
import subprocess
import sys

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


def check_file(path, bindir, update):
    with open(path) as f:
        lines = f.read().split('\n')
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
        tmp = path + '.doccheck-tmp'
        with open(tmp, 'w') as f:
            f.write('\n'.join(lines))
        os.replace(tmp, path)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--bin', help='directory of the binaries that `bin/` in a command names')
    ap.add_argument('--update', action='store_true', help='rewrite the blocks with the real output')
    ap.add_argument('files', nargs='*', help='default: README.md docs/*.md topologies/README.md')
    a = ap.parse_args()
    files = a.files or ['README.md'] + sorted(glob.glob('docs/*.md')) + ['topologies/README.md']
    failed = 0
    for path in files:
        failed += check_file(path, a.bin, a.update)
    if failed:
        print('doccheck: %d block%s differ%s from the real output (`scons doccheck UPDATE=1` '
              'rewrites them)' % (failed, 's' if failed > 1 else '', '' if failed > 1 else 's'))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
