"""tools/args_oneline.py - bad input in one line, shared by the Python tools
(ranges.py, doccheck.py, gentopo.py, again_sweep.py, vm_tables.py,
plots/plots.py): the project's rule is one line on stderr naming the
problem and exit status 2 for bad arguments or input, 1 for a failed write,
never a traceback, a silent default or a usage dump.

OneLineParser: argparse whose errors are one line, that takes no
abbreviation (--res for --results) and refuses a single-value option given
twice (the second would win unsaid).  whole(lo, hi): an argparse type of
digits only ('1_0' and ' 3', which int() takes, are refused).
run_main(prog, main, *args): main with the standard output checked: a
write that fails (/dev/full) is one line and status 1; a reader that goes
away (`| head -0`) ends the command quietly, as tools/scoreboard.py does.
"""

import argparse
import os
import re
import signal
import sys

# the actions whose option a second time would replace the first's value
SINGLE = (argparse._StoreAction, argparse._StoreConstAction, argparse._StoreTrueAction,
          argparse._StoreFalseAction)


def one_line(text):
    """text with every character that does not print (a line break above
    all) escaped as Python writes it: one line whatever it quotes."""
    return ''.join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def say(prog, msg):
    sys.stderr.write('%s: %s\n' % (prog, one_line(msg)))


class OneLineParser(argparse.ArgumentParser):
    """argparse, each error one line (status 2), no abbreviations, each
    single-value option at most once."""

    def __init__(self, *args, **kw):
        kw['allow_abbrev'] = False
        super().__init__(*args, **kw)

    def error(self, message):
        say(self.prog, '%s (--help: usage)' % message)
        sys.exit(2)

    def parse_args(self, args=None, namespace=None):
        args = sys.argv[1:] if args is None else list(args)
        self.refuse_repeats(args)
        a, rest = super().parse_known_args(args, namespace)
        if rest:
            word = rest[0].split('=', 1)[0]
            spelt = sorted(s for a_ in self._actions for s in a_.option_strings
                           if word.startswith('-') and len(word) > 1 and s.startswith(word))
            if spelt:
                self.error('%s: not an option (abbreviations are not taken: %s)'
                           % (word, ' or '.join(spelt)))
            self.error('unrecognized arguments: %s' % ' '.join(rest))
        return a

    def refuse_repeats(self, args):
        by_string = {s: a for a in self._actions for s in a.option_strings}
        seen = set()
        i = 0
        while i < len(args):
            word = args[i]
            i += 1
            if word == '--':
                break
            name = word.split('=', 1)[0] if word.startswith('--') else word
            action = by_string.get(name)
            if action is None:
                continue
            if isinstance(action, SINGLE):
                if action.dest in seen:
                    self.error('%s given twice (the second would silently win)' % name)
                seen.add(action.dest)
            if action.nargs is None and '=' not in word and \
                    not isinstance(action, (argparse._StoreConstAction,)) and \
                    not isinstance(action, argparse._HelpAction):
                i += 1  # its value, whatever it looks like


def whole(lo, hi):
    """An argparse type: a whole number of digits only, lo to hi."""
    def parse(text):
        if not re.fullmatch(r'[0-9]+', text):
            raise argparse.ArgumentTypeError('%r is not a whole number (digits only)' % text)
        if not lo <= int(text) <= hi:
            raise argparse.ArgumentTypeError('%s is out of range (%d..%d)' % (text, lo, hi))
        return int(text)
    parse.__name__ = 'whole number'
    return parse


class StdoutError(Exception):
    """A write to the standard output failed (a full disk, /dev/full); not
    an OSError, so that a tool's own `except OSError` does not take it."""


class CheckedStdout:
    """sys.stdout whose write and flush failures are StdoutError."""

    def __init__(self, f):
        self.f = f

    def write(self, text):
        try:
            return self.f.write(text)
        except OSError as e:
            raise StdoutError(e.strerror or str(e)) from e

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        try:
            self.f.flush()
        except OSError as e:
            raise StdoutError(e.strerror or str(e)) from e

    def __getattr__(self, name):
        return getattr(self.f, name)


def run_main(prog, main, *args):
    """main(*args)'s status, the standard output flushed and checked; to be
    given to sys.exit."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head`: end quietly
    sys.stdout = CheckedStdout(sys.stdout)
    try:
        rc = main(*args)
        sys.stdout.flush()
        return rc
    except StdoutError as e:
        try:
            sys.stdout = open(os.devnull, 'w')  # the interpreter's own flush at exit
        except OSError:
            pass
        say(prog, 'cannot write the standard output: %s' % e)
        return 1
