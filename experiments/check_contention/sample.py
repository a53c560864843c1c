"""Where the lab processes of a host wait, sampled from /proc without a tracer (the GPU machine has no strace or perf):
every INTERVAL_MS, every thread of every process whose name starts with "lab" and a digit (a referee labN, a runner
labN-IMPL) is read for its state (R on a CPU, S asleep, D in the kernel uninterruptibly), its system call (number, and
for an ioctl the file it is on, /dev/nvidiactl or /dev/nvidia-uvm or /dev/nvidiaN, with its request code) and, where
the kernel lets root read it, the top of its kernel stack. On SIGINT or SIGTERM it prints what it counted: each
(process role, thread, state, call, where in the kernel) as a share of the samples of the processes' main threads
(the thread that makes their CUDA calls), then the same over every thread.
Usage: python3 experiments/check_contention/sample.py LABEL [INTERVAL_MS] > table.txt   (stop it with SIGINT)"""
import collections
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from nvidia_requests import NV_ESCAPES  # noqa: E402 (found through the path above)

SYSCALLS = {0: "read", 1: "write", 3: "close", 7: "poll", 9: "mmap", 10: "mprotect", 11: "munmap", 12: "brk",
            16: "ioctl", 17: "pread64", 23: "select", 24: "sched_yield", 28: "madvise", 35: "nanosleep",
            56: "clone", 59: "execve", 61: "wait4", 149: "mlock", 202: "futex", 228: "clock_gettime",
            230: "clock_nanosleep", 231: "exit_group", 232: "epoll_wait", 257: "openat", 270: "pselect6",
            271: "ppoll", 281: "epoll_pwait", 435: "clone3"}
LAB = re.compile(r"^lab[0-9]")
label = sys.argv[1] if len(sys.argv) > 1 else "sample"
interval = (float(sys.argv[2]) if len(sys.argv) > 2 else 10.0) / 1000
counts = collections.Counter()  # key -> samples, every thread
main_counts = collections.Counter()  # key -> samples, main threads only
fd_targets = {}  # (pid, fd) -> what the fd is
samples = 0
stop = False


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def target(pid, fd):
    key = (pid, fd)
    if key not in fd_targets:
        try:
            fd_targets[key] = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            return "?"
    return fd_targets[key]


def call_of(pid, tid):
    text = read(f"/proc/{pid}/task/{tid}/syscall")
    if text is None:
        return "?"
    fields = text.split()
    if not fields or fields[0] == "running":
        return "running"
    try:
        number = int(fields[0])
    except ValueError:
        return fields[0]
    name = SYSCALLS.get(number, f"syscall {number}")
    if name == "ioctl" and len(fields) > 2:
        request = int(fields[2], 16)
        # _IOC: the number in the low byte, the type character in the next (NVIDIA's resource manager uses 'F').
        kind = chr((request >> 8) & 0xFF) if 32 < (request >> 8) & 0xFF < 127 else "?"
        number = request & 0xFF
        what = NV_ESCAPES.get(number, f"{number:#04x}") if kind == "F" else f"{kind}:{number:#04x}"
        name += f" {target(pid, int(fields[1], 16))} {what}"
    return name


def where(pid, tid):
    stack = read(f"/proc/{pid}/task/{tid}/stack")
    if stack:
        frames = [line.split()[-1].split("+")[0] for line in stack.splitlines() if line.strip()]
        return "<".join(frames[:5])
    wchan = read(f"/proc/{pid}/task/{tid}/wchan")
    return wchan.strip() if wchan and wchan.strip() not in ("", "0") else "-"


def sample():
    global samples
    samples += 1
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        comm = (read(f"/proc/{pid}/comm") or "").strip()
        if not LAB.match(comm):
            continue
        role = "referee" if re.fullmatch(r"lab[0-9]+", comm) else "runner"
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            stat = read(f"/proc/{pid}/task/{tid}/stat")
            if not stat:
                continue
            rest = stat[stat.rfind(")") + 2:].split()
            thread = stat[stat.find("(") + 1:stat.rfind(")")]
            state = rest[0] if rest else "?"
            key = (role, "main" if tid == pid else thread, state,
                   "on a CPU" if state == "R" else call_of(pid, tid), "-" if state == "R" else where(pid, tid))
            counts[key] += 1
            if tid == pid:
                main_counts[key] += 1


def finish(*_):
    global stop
    stop = True


def kind_of(key):
    """What a thread sample was doing, coarsely: the table's lines summed by what they mean."""
    state, call = key[2], key[3]
    if state == "R":
        return "on a CPU"
    if call.startswith("ioctl /dev/nvidia"):
        return "in an NVIDIA driver call"
    if state == "T":
        return "stopped (a runner between its turns)"
    if call == "wait4":
        return "waiting for a child to end"
    return f"other, state {state}"


def table(title, counter, top):
    total = sum(counter.values())
    print(f"{title}: {total} thread samples")
    for (role, thread, state, call, place), n in counter.most_common(top):
        print(f"  {100 * n / max(total, 1):5.1f}%  {role:<7} {thread:<16} {state} {call:<40} {place}")


signal.signal(signal.SIGINT, finish)
signal.signal(signal.SIGTERM, finish)
start = time.monotonic()
while not stop:
    sample()
    time.sleep(interval)
print(f"== {label}: {samples} samples in {time.monotonic() - start:.1f} s")
kinds = collections.Counter()
for key, n in main_counts.items():
    kinds[kind_of(key)] += n
table("main threads", main_counts, 30)
print("main threads by kind: " + ", ".join(f"{k} {100 * n / max(sum(kinds.values()), 1):.1f}%"
                                           for k, n in kinds.most_common()))
table("every thread", counts, 15)
