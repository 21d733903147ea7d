#!/usr/bin/env python3
"""tools/results.py - where `scons sim` and `scons native` put their result
files, and the record of every run: nothing is ever replaced.

A sweep's files are named by what was run: KIND-NAME-HASH.csv and .json
(KIND sim or native, NAME the topology or the host), HASH the first 8 hex
digits of the SHA-1 of the normalized arguments (the options sorted, each
with its value).  The same arguments again get KIND-NAME-HASH-2, -3, ...,
so an earlier sweep stays as it was.  Every run appends a line to
results/index.csv (time, command, files, rows, status: ok, failed,
interrupted or exit N), written in one append and flushed to disk.  After
a sweep that finished with every run done, KIND-NAME.csv and .json (the
names the docs use) become symbolic links to its files: the latest
complete sweep of that topology or host.

Used by SConstruct; by hand (what a SCons action does):

    python3 tools/results.py RESULTS KIND NAME -- BINARY run ARGS...
"""

import csv
import glob
import hashlib
import io
import os
import signal
import subprocess
import sys
import threading
import time

INDEX_COLUMNS = ['time', 'command', 'files', 'rows', 'status']


def normalized(args):
    """The options of ARGS as sorted 'option value' pairs (flags alone)."""
    pairs, i = [], 0
    while i < len(args):
        if i + 1 < len(args) and not args[i + 1].startswith('--'):
            pairs.append('%s %s' % (args[i], args[i + 1]))
            i += 2
        else:
            pairs.append(args[i])
            i += 1
    return sorted(pairs)


def args_hash(args):
    return hashlib.sha1('\n'.join(normalized(args)).encode()).hexdigest()[:8]


def free_stem(results, prefix, args):
    """results/PREFIX-HASH, or -2, -3 ... : the first with no file of its own."""
    base = os.path.join(results, '%s-%s' % (prefix, args_hash(args)))
    stem, n = base, 1
    while any(os.path.lexists(stem + ext) for ext in ('.csv', '.json', '.csv.partial')):
        n += 1
        stem = '%s-%d' % (base, n)
    return stem


def machine_name(topo, shipped):
    """The NAME of results/sim-NAME-HASH.csv for TOPO=topo: the file's name
    without .xml, and NAME-file for a file of one's own named like a machine
    of the directory shipped (a copy of 2socket.xml changed is not 2socket,
    whose link sim-2socket.csv it would move)."""
    name = os.path.splitext(os.path.basename(topo))[0]
    own = os.path.isfile(topo) and \
        os.path.dirname(os.path.realpath(topo)) != os.path.realpath(shipped)
    return name + '-file' if own and os.path.isfile(os.path.join(shipped, name + '.xml')) \
        else name


def csv_rows(path):
    """The data rows of the CSV file PATH (0 when it cannot be read)."""
    try:
        return count_rows(path)
    except (OSError, UnicodeDecodeError, csv.Error):
        return 0


def count_rows(path):
    """The data rows of PATH, or an exception: OSError, UnicodeDecodeError
    (not UTF-8 text), csv.Error (a NUL byte, a field too long)."""
    if not os.path.isfile(path):  # a FIFO would hang the read
        raise OSError(0, 'not a regular file')
    with open(path, newline='', encoding='utf-8') as f:
        return max(sum(1 for _ in csv.reader(f)) - 1, 0)


def index_problem(results):
    """Why RESULTS/index.csv cannot take a line (None when it can): it must
    be a regular file this user may write, or absent in a directory this
    user may write.  Asked before a sweep, so that one is not run and then
    left unrecorded (a FIFO would hang the append, a directory or dangling
    link fail it)."""
    path = os.path.join(results, 'index.csv')
    if os.path.lexists(results) and not os.path.isdir(results):
        return '%s: not a directory of results' % results
    if os.path.lexists(path):
        if not os.path.exists(path):
            return '%s: a symbolic link to nothing (the index of runs must be a regular file)' % path
        if not os.path.isfile(path):
            return '%s: not a regular file (the index of runs must be one; move it away)' % path
        if not os.access(path, os.W_OK):
            return '%s: not writable by this user (the index of runs)' % path
    elif os.path.isdir(results) and not os.access(results, os.W_OK | os.X_OK):
        return '%s: a directory this user may not write (results/index.csv goes there)' % results
    return None


def status_word(rc):
    if rc < 0:  # ended by a signal (a second Ctrl-C): its rows are in the .partial
        return 'interrupted (signal %d)' % -rc
    return {0: 'ok', 3: 'failed', 130: 'interrupted', 143: 'interrupted'}.get(rc, 'exit %d' % rc)


def append_index(results, command, files, rows, status):
    """One line in results/index.csv, in one write, on disk before return."""
    path = os.path.join(results, 'index.csv')
    line = io.StringIO()
    csv.writer(line, lineterminator='\n').writerow(
        [time.strftime('%Y-%m-%dT%H:%M:%S%z'), command, ' '.join(files), rows, status])
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
        text = ','.join(INDEX_COLUMNS) + '\n' + line.getvalue()
    except FileExistsError:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)  # a FIFO: no hang
        text = line.getvalue()
    try:
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def link_latest(results, prefix, stem):
    """PREFIX.csv and .json -> the files of stem (replaced only if links)."""
    for ext in ('.csv', '.json'):
        link = os.path.join(results, prefix + ext)
        if not os.path.exists(stem + ext):
            continue
        if os.path.lexists(link) and not os.path.islink(link):
            # a file of the former naming: kept under a name of its own
            os.replace(link, free_stem(results, prefix + '-old', []) + ext)
        tmp = link + '.tmp.%d' % os.getpid()
        os.symlink(os.path.basename(stem + ext), tmp)
        os.replace(tmp, link)


def command_of(results, path):
    """The command results/index.csv recorded for the sweep that wrote
    PATH (its output files left out), or None."""
    index_path = os.path.join(results, 'index.csv')
    if not os.path.isfile(index_path):  # absent, or a FIFO that would hang the read
        return None
    try:
        with open(index_path, newline='') as f:
            rows = list(csv.DictReader(f))
    except (OSError, csv.Error, UnicodeDecodeError):
        return None
    want = os.path.realpath(path)
    # the files as written from where the sweep ran: here, or above results/
    bases = ('', os.path.dirname(os.path.abspath(results)))
    for r in reversed(rows):
        for p in (r.get('files') or '').split():
            if any(os.path.realpath(os.path.join(b, p)) == want for b in bases):
                return r.get('command')
    return None


def latest(results, prefix):
    """The file the docs' name PREFIX.csv stands for, or None."""
    link = os.path.join(results, prefix + '.csv')
    return os.path.realpath(link) if os.path.exists(link) else None


FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def wait_forwarding(full):
    """Run FULL to its end; its exit status.  In the main thread the sweep
    runs in a process group of its own, and SIGINT, SIGTERM or SIGHUP sent
    to this process (Ctrl-C, `timeout -s INT`, a closed terminal) is passed
    on to it (SIGHUP as SIGTERM), each time it comes: the first stops the sweep after the runs
    in progress, with its rows kept (core/sweep.c), a second ends it at
    once.  The handlers are in place before the sweep starts, so that no
    signal falls between.  Elsewhere (a SCons worker thread, where Python
    cannot take signals) the sweep shares the terminal's process group and
    gets Ctrl-C itself."""
    if threading.current_thread() is not threading.main_thread():
        return subprocess.Popen(full).wait()
    child, pending = [], []

    def forward(sig, _frame):
        if sig == signal.SIGHUP:  # a closed terminal: stop as SIGTERM stops it
            sig = signal.SIGTERM
        if child:
            child[0].send_signal(sig)
        else:
            pending.append(sig)
    old = {sig: signal.signal(sig, forward) for sig in FORWARDED}
    try:
        # a group of its own: process_group (Python 3.11) is safe beside
        # other threads, as a preexec_fn is not
        group = {'process_group': 0} if sys.version_info >= (3, 11) else \
            {'preexec_fn': os.setpgrp}
        child.append(subprocess.Popen(full, **group))
        for sig in pending:
            child[0].send_signal(sig)
        return child[0].wait()
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def orphans(results, prefix, args):
    """The .csv.partial files of earlier sweeps of these options that no
    line of results/index.csv names: a sweep killed (SIGKILL, a lost
    machine) before it could record its rows."""
    base = os.path.join(results, '%s-%s' % (prefix, args_hash(args)))
    found = [base + '.csv.partial'] + sorted(
        glob.glob(glob.escape(base) + '-[0-9]*.csv.partial'))
    return [p for p in found if os.path.exists(p) and command_of(results, p) is None]


def orphan_rows(results, prefix, args):
    """The orphans of these options with their rows, and None; or None and
    why one cannot be read (not UTF-8 text, a NUL byte, not a regular
    file): refused before the sweep, which would record it."""
    found = []
    for path in orphans(results, prefix, args):
        try:
            found.append((path, count_rows(path)))
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            why = e.strerror if isinstance(e, OSError) else \
                'not UTF-8 text' if isinstance(e, UnicodeDecodeError) else str(e)
            return None, '%s: not the rows of a sweep (%s): move it away to run this sweep' % (
                path, why)
    return found, None


def run_sweep(results, kind, name, argv):
    """Run ARGV (a `run` command without output files) writing
    results/KIND-NAME-HASH.{csv,json}; record it; its exit status."""
    if kind not in ('sim', 'native'):
        sys.stderr.write('results.py: KIND %r: sim or native\n' % kind)
        return 2
    if (not name or '/' in name or name in ('.', '..') or name.startswith('-')
            or any(ord(c) < 0x20 or ord(c) == 0x7f for c in name)):
        sys.stderr.write('results.py: NAME %r: a topology or host name, not a path\n' % name)
        return 2
    try:
        os.makedirs(results, exist_ok=True)
    except OSError as e:
        sys.stderr.write('results.py: %s: not a directory of results (%s)\n' % (results, e.strerror))
        return 2
    why = index_problem(results)
    if why:
        sys.stderr.write('results.py: %s\n' % why)
        return 2
    prefix = '%s-%s' % (kind, name)
    found, why = orphan_rows(results, prefix, argv[2:])
    if why:
        sys.stderr.write('results.py: %s\n' % why)
        return 2
    for path, rows in found:  # recorded, said, kept
        append_index(results, ' '.join(argv), [path], rows, 'killed')
        print('locklab: %s: %d row%s of an earlier sweep of these options, killed before it '
              'recorded them (kept; now in results/index.csv)' % (path, rows,
                                                                  '' if rows == 1 else 's'))
    stem = free_stem(results, prefix, argv[2:])
    files = [stem + '.csv', stem + '.json']
    full = argv + ['--csv', files[0], '--json', files[1]]
    print(' '.join(full))
    sys.stdout.flush()
    try:
        rc = wait_forwarding(full)
    except OSError as e:
        sys.stderr.write('results.py: cannot run %s: %s\n' % (full[0], e.strerror))
        return 2
    kept = [f for f in files + [files[0] + '.partial'] if os.path.exists(f)]
    rows = csv_rows(files[0] if os.path.exists(files[0]) else files[0] + '.partial')
    append_index(results, ' '.join(argv), kept, rows, status_word(rc))
    if rc == 0:
        link_latest(results, prefix, stem)
    if kept:
        print('locklab: %s (%s; results/index.csv lists every run)' %
              (' and '.join(kept), status_word(rc)))
    return 128 - rc if rc < 0 else rc  # a signal's death as a shell gives it


def main(argv):
    usage = 'usage: results.py RESULTS KIND NAME -- BINARY run ARGS...\n'
    if argv[:1] in (['-h'], ['--help']):
        sys.stdout.write(usage)
        return 0
    if len(argv) < 5 or argv[3] != '--':
        sys.stderr.write(usage)
        return 2
    return run_sweep(argv[0], argv[1], argv[2], argv[4:])


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
