#!/usr/bin/env python3
"""The bytes the launcher writes to its terminal after a rank is killed.

usage: launcher_reset_e2e.py LAUNCHER_DRIVER TERM_ECHO

The real launcher (tests/tui/launcher_driver.c) runs mpiexec -n 2 with
tests/tui/term_echo.c as rank 0, in a pseudo-terminal this script holds;
once rank 0 has greeted, one rank is SIGKILLed, and everything the
launcher wrote after that is checked for every mode-off sequence: a
terminal that tmux does not clean up after (xterm, a console) is left
with mouse reports and the keypad in transmit mode otherwise
(docs/hardening.md). Cases: rank 0 over the socket bridge, rank 1 over
the tty bridge. Prints PASS or FAIL per check; exit 1 on any FAIL."""
import os
import pty
import select
import signal
import sys
import tempfile
import time

# What the explorer may turn on (ncurses' keypad(TRUE) sends smkx,
# \E[?1h\E=; its mouse mask 1000/1002/1003 reports in 1005/1006/1015 form;
# bracketed paste 2004), each turned off; then the alternate screen left.
OFF = [b"\x1b[0m", b"\x1b[?25h", b"\x1b[?1000l", b"\x1b[?1002l", b"\x1b[?1003l", b"\x1b[?1005l",
       b"\x1b[?1006l", b"\x1b[?1015l", b"\x1b[?2004l", b"\x1b[?1l", b"\x1b>", b"\x1b[?1049l"]
fails = 0


def check(what, ok):
    global fails
    print(("PASS: " if ok else "FAIL: ") + what, flush=True)
    fails += 0 if ok else 1


def ranks(mark):
    """{rank: pid} of the processes started with MBX_E2E_MARK=mark."""
    found = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            env = open("/proc/%s/environ" % p, "rb").read().split(b"\0")
        except OSError:
            continue
        if b"MBX_E2E_MARK=" + mark not in env:
            continue
        for var in (b"PMI_RANK=", b"OMPI_COMM_WORLD_RANK="):
            for e in env:
                if e.startswith(var):
                    found[int(e[len(var):])] = int(p)
    return found


def read_until(fd, out, want, seconds):
    end = time.monotonic() + seconds
    while want not in out and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return out, True
            if not chunk:
                return out, True
            out += chunk
    return out, False


def run(driver, echo, work, bridge, victim):
    mark = ("reset-%d-%s" % (os.getpid(), bridge)).encode()
    env = dict(os.environ, MBX_E2E_MARK=mark.decode(), MBX_EXPLORE_CMD=echo, TERM="xterm",
               TMPDIR=work, XDG_STATE_HOME=work)
    args = [driver, "--bridge", bridge, "--bridge-addr", "127.0.0.1", "--log",
            os.path.join(work, bridge + ".log")]
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(driver, args, env)
    out, _ = read_until(fd, b"", b"mbx-term-echo kind=" + bridge.encode(), 30)
    check("%s: rank 0 greeted" % bridge, b"mbx-term-echo kind=" + bridge.encode() in out)
    found = ranks(mark)
    check("%s: rank %d found (%s)" % (bridge, victim, found), victim in found)
    if victim in found:
        os.kill(found[victim], signal.SIGKILL)
    after, closed = read_until(fd, b"", b"\xff-never", 30)
    check("%s: the launcher exited" % bridge, closed)
    for seq in OFF:
        check("%s, rank %d killed: %r written after" % (bridge, victim, seq), seq in after)
    last = after.rfind(b"\x1b[?1049l")
    check("%s: every mode off before the alternate screen is left" % bridge,
          all(0 <= after.rfind(seq) < last for seq in OFF[:-1]))
    for p in ranks(mark).values():
        os.kill(p, signal.SIGKILL)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    os.close(fd)


def main():
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    driver, echo = (os.path.abspath(a) for a in sys.argv[1:])
    with tempfile.TemporaryDirectory(prefix="mbx-reset-e2e.") as work:
        run(driver, echo, work, "socket", 0)
        run(driver, echo, work, "tty", 1)
    print("launcher_reset_e2e: %s" % ("all checks passed" if fails == 0 else "%d failed" % fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
