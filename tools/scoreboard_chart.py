#!/usr/bin/env python3
"""tools/scoreboard_chart.py - the scoreboard's chart: results/scoreboard.csv
drawn by plots/scoreboard.gp (each entry against its pass band), the count
line as its caption.  tools/scoreboard.py runs the board.
"""

import os
import subprocess
import sys
import textwrap

from scoreboard_entries import PROG, ROOT


def chart_caption(text, width=96):
    """The count line as the chart's caption: a line for each of its parts,
    each wrapped to width characters, so that none runs off the canvas."""
    return '\n'.join(textwrap.fill(part, width, break_on_hyphens=False, break_long_words=False)
                     for part in text.split('; '))


def draw_chart(csvpath, out, count):
    """plots/scoreboard.gp: each entry against its pass band, the count line
    under the title; False on failure."""
    script = os.path.join(ROOT, 'plots', 'scoreboard.gp')
    argv = ['gnuplot', '-e', "datafile='%s'; out='%s'; count='%s'"
            % (csvpath, out, count.replace("'", "''")), script]
    try:
        p = subprocess.run(argv, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    except OSError as e:
        sys.stderr.write(PROG + ': cannot run gnuplot: %s\n' % e)
        return False
    if p.returncode != 0:
        sys.stderr.write(PROG + ': gnuplot failed:\n%s' % p.stderr)
        return False
    return True
