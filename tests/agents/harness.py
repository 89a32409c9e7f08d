#!/usr/bin/env python3
"""Helpers of run.sh (stdlib only).

  harness.py lo-up
      Brings the loopback interface up when it is down (a fresh `unshare -rn` namespace):
      `ip link set lo up` when iproute2 is installed, else the SIOCSIFFLAGS ioctl. Exit 1 with
      a message when it stays down.

  harness.py wait-review WORKDIR MARKER TIMEOUT_S
      After the CLI has exited: waits for what its hooks started. Every process that carries
      the environment entry MARKER (GIT_SKILL_BASE_URL=<this run's review server>) belongs to
      this run: the CLI's hooks and the detached review they start. Waits until none is left,
      or a finished review log (WORKDIR/proj/.git/skill/reviews/*.json with a non-null
      "outcome" or "error") exists and no git-skill process is left, or TIMEOUT_S passes. Then
      ends (TERM, then KILL) the processes of this run still alive and adds to WORKDIR/cli.json:
      review_wait ("idle" | "finished" | "timeout"), review_wait_ms, reviews (each log's
      file, outcome, error) and leftover (the command lines it had to end).
"""

import fcntl
import glob
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


def lo_flags(sock):
    res = fcntl.ioctl(sock, SIOCGIFFLAGS, struct.pack("16sh14x", b"lo", 0))
    return struct.unpack("16sh14x", res)[1]


def lo_up():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = lo_flags(s)
        if flags & IFF_UP:
            return 0
        how = "ip link set lo up"
        if shutil.which("ip"):
            subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
        else:
            how = "the SIOCSIFFLAGS ioctl"
            try:
                fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sh14x", b"lo", flags | IFF_UP))
            except OSError as e:
                sys.stderr.write(f"run.sh: cannot bring lo up ({e})\n")
        if not lo_flags(s) & IFF_UP:
            sys.stderr.write(f"run.sh: the loopback interface is down and {how} did not bring it up "
                             "(run inside `unshare -rn`, where this process may configure it)\n")
            return 1
    return 0


def our_processes(marker):
    """(pid, argv) of every process whose environment holds marker, but this one."""
    found = []
    me = os.getpid()
    needle = marker.encode()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                env = f.read().split(b"\0")
            if needle not in env:
                continue
            with open(f"/proc/{d}/cmdline", "rb") as f:
                argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
            with open(f"/proc/{d}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
            if state == b"Z":
                continue
        except OSError:
            continue
        found.append((int(d), argv))
    return found


def is_git_skill(argv):
    return any("git-skill" in os.path.basename(a) for a in argv[:2]) or argv[:2] == ["git", "skill"]


def reviews(workdir):
    out = []
    for path in sorted(glob.glob(os.path.join(workdir, "proj", ".git", "skill", "reviews", "*.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                log = json.load(f)
        except (OSError, ValueError):
            continue  # being written
        if isinstance(log, dict) and (log.get("outcome") is not None or log.get("error") is not None):
            out.append({"file": os.path.relpath(path, workdir), "outcome": log.get("outcome"),
                        "error": log.get("error")})
    return out


def wait_review(workdir, marker, timeout):
    start = time.monotonic()
    reason = "timeout"
    idle = 0
    while time.monotonic() - start < timeout:
        alive = our_processes(marker)
        idle = 0 if alive else idle + 1
        if idle >= 2:
            reason = "idle"
            break
        if reviews(workdir) and not any(is_git_skill(argv) for _, argv in alive):
            reason = "finished"
            break
        time.sleep(0.2)
    waited = int((time.monotonic() - start) * 1000)
    leftover = our_processes(marker)
    for pid, _ in leftover:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    if leftover:
        time.sleep(1)
        for pid, _ in our_processes(marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    path = os.path.join(workdir, "cli.json")
    try:
        with open(path, encoding="utf-8") as f:
            result = json.load(f)
    except (OSError, ValueError):
        result = {}
    result.update({"review_wait": reason, "review_wait_ms": waited, "reviews": reviews(workdir),
                   "leftover": [" ".join(argv)[:300] for _, argv in leftover]})
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    return 0


def main():
    if sys.argv[1:2] == ["lo-up"]:
        return lo_up()
    if sys.argv[1:2] == ["wait-review"] and len(sys.argv) == 5:
        return wait_review(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
