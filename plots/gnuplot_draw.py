#!/usr/bin/env python3
"""plots/gnuplot_draw.py - one gnuplot script run into OUT.png and OUT.svg,
written whole: gnuplot draws into temporary names beside them, and only a
run that ended well and wrote both files renames them into place, so that a
failed chart leaves the previous one (or none), never an empty or half
file.  plots.py's charts, the scoreboard's and `scons validate`'s use it.
"""

import os
import subprocess

EXTS = ('.png', '.svg')


def gp_str(s):
    """s as a gnuplot string literal (double quotes, escapes kept as text;
    a backquote too, which gnuplot would run as a shell command)."""
    return '"%s"' % (s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
                     .replace('`', '\\`'))


def gp_assigns(variables):
    """'a="x"; b=3' for gnuplot -e: strings quoted, numbers as they are."""
    return '; '.join('%s=%s' % (k, gp_str(v) if isinstance(v, str) else repr(v))
                     for k, v in variables.items())


def last_line(text):
    """gnuplot's own message: the last line of what it printed that says
    something (the lines above it repeat the script's line and a caret)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else 'no message'


def draw(script, out, variables, cwd=None):
    """Run gnuplot on script with variables and out=OUT; None when OUT.png
    and OUT.svg were written, else one line saying why not."""
    out = os.path.abspath(out)
    tmp = os.path.join(os.path.dirname(out),
                       '.%s.tmp%d' % (os.path.basename(out), os.getpid()))
    assigns = gp_assigns(dict(variables, out=tmp))
    try:
        try:
            p = subprocess.run(['gnuplot', '-e', assigns, script], cwd=cwd,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               universal_newlines=True, errors='replace')
        except OSError as e:
            return 'cannot run gnuplot: %s' % e
        name = os.path.basename(script)
        if p.returncode != 0:
            return 'gnuplot %s failed: %s' % (name, last_line(p.stderr))
        if not all(os.path.isfile(tmp + e) and os.path.getsize(tmp + e) > 0 for e in EXTS):
            return 'gnuplot %s wrote no %s.png/.svg' % (name, out)
        for e in EXTS:
            os.replace(tmp + e, out + e)
        return None
    except OSError as e:
        return 'cannot write %s.png/.svg: %s' % (out, e.strerror or e)
    finally:
        for e in EXTS:
            try:
                os.unlink(tmp + e)
            except OSError:
                pass
