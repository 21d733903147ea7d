#!/usr/bin/env python3
"""tools/scoreboard_chart.py - the scoreboard's chart: results/scoreboard.csv
drawn by plots/scoreboard.gp (each entry against its pass band), the count
line as its caption.  tools/scoreboard.py runs the board.
"""

import os
import sys
import textwrap

from scoreboard_entries import ROOT, say

sys.path.insert(0, os.path.join(ROOT, 'plots'))
from gnuplot_draw import draw  # noqa: E402  (plots/gnuplot_draw.py)


def chart_caption(text, width=96):
    """The count line as the chart's caption: a line for each of its parts,
    each wrapped to width characters, so that none runs off the canvas."""
    return '\n'.join(textwrap.fill(part, width, break_on_hyphens=False, break_long_words=False)
                     for part in text.split('; '))


def draw_chart(csvpath, out, count):
    """plots/scoreboard.gp: each entry against its pass band, the count line
    under the title, into OUT.png and OUT.svg written whole
    (plots/gnuplot_draw.py); False on failure."""
    why = draw(os.path.join(ROOT, 'plots', 'scoreboard.gp'), out,
               {'datafile': csvpath, 'count': count})
    if why:
        say(why)  # one line, whatever path it names
        return False
    return True
