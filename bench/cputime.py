#!/usr/bin/env python3
"""cputime.py: runs a command and prints the CPU seconds (user + sys) of every process it started, including those
that leave its process tree (Chromium's zygote and its renderer and GPU processes re-parent themselves, so
/usr/bin/time around `node --test` sees only node): this process becomes a child subreaper (prctl
PR_SET_CHILD_SUBREAPER), so every orphaned descendant is re-parented to it and reaped here, and the kernel adds
each reaped child's CPU to RUSAGE_CHILDREN. On a machine shared with other builds CPU seconds hold; wall times do not.
Usage: python3 bench/cputime.py [--label NAME] COMMAND [ARGS...]   (prints "cputime: NAME user U s sys S s cpu C s wall W s")"""
import ctypes, os, resource, subprocess, sys, time

args = sys.argv[1:]
label = None
if len(args) >= 2 and args[0] == '--label':
    label, args = args[1], args[2:]
if not args:
    sys.exit(__doc__)
PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit('cputime: prctl(PR_SET_CHILD_SUBREAPER) failed')
start = time.monotonic()
child = subprocess.Popen(args)
rc = None
deadline = None  # once the command has ended, descendants still running get 30 s to end (Chromium shutting down)
while True:  # reap the command and every descendant re-parented here, until none is left
    try:
        pid, status = os.waitpid(-1, 0 if deadline is None else os.WNOHANG)
    except ChildProcessError:
        break
    if pid == 0:  # only descendants left, none ended yet
        if time.monotonic() > deadline:
            print('cputime: descendants still running 30 s after the command ended; not counted', file=sys.stderr)
            break
        time.sleep(0.1)
        continue
    if pid == child.pid:
        rc = os.waitstatus_to_exitcode(status)
        deadline = time.monotonic() + 30
wall = time.monotonic() - start
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f'cputime: {label or " ".join(args)[:80]} user {ru.ru_utime:.1f} s sys {ru.ru_stime:.1f} s '
      f'cpu {ru.ru_utime + ru.ru_stime:.1f} s wall {wall:.1f} s', file=sys.stderr)
sys.exit(rc if rc is not None else 1)
