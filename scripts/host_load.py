"""What the host's CPUs did while a class was graded, from /proc/stat sampled every few seconds by scripts/gpu-check.sh
(each line: the time, then the `cpu`, `ctxt`, `procs_running` and `procs_blocked` lines of /proc/stat on one line).
Prints the CPUs busy on average (user, system, and in all; iowait apart) and in the busiest intervals (the median, the
90th percentile and the largest share of one interval between samples: bursts the average hides), the run queue
(processes runnable and blocked in the kernel, averaged over the samples, and the most runnable at once) and context
switches a second: whether the workers of a several-GPU batch ran out of cores or waited on something else (a lock in
the driver, the disk).
Usage: python3 scripts/host_load.py HOST_SAMPLES"""
import sys

USER_HZ = 100  # the unit of /proc/stat's CPU times on Linux


def parse(line):
    words = line.split()
    stamp, fields = float(words[0]), words[1:]
    cpu = fields.index("cpu")
    times = [int(x) for x in fields[cpu + 1:cpu + 11] if x.isdigit()]
    named = {fields[i]: int(fields[i + 1]) for i in range(len(fields) - 1)
             if fields[i] in ("ctxt", "procs_running", "procs_blocked")}
    return stamp, times, named


samples = []
for line in open(sys.argv[1]):
    try:
        samples.append(parse(line))
    except (ValueError, IndexError):
        continue  # a line cut short when the sampler was stopped
if len(samples) < 2:
    print(f"host load: fewer than two samples in {sys.argv[1]}")
    sys.exit(0)


def shares(x, y):
    """Between two samples' CPU times: each of user, nice, system, idle, iowait, irq, softirq, steal as a share of the
    whole (percent), the whole, and the busy share (all but idle and iowait)."""
    d = ([q - p for p, q in zip(x, y)] + [0] * 8)[:8]
    whole = sum(d)
    part = [100.0 * v / whole if whole else 0.0 for v in d]
    return part, whole, 100.0 - part[3] - part[4] if whole else 0.0


(t0, a, n0), (t1, b, n1) = samples[0], samples[-1]
part, whole, busy = shares(a, b)
user, nice, system, idle, iowait, irq, softirq, steal = part
cpus = whole / ((t1 - t0) * USER_HZ)  # CPUs the samples cover
bursts = sorted(shares(x, y)[2] for (_, x, _), (_, y, _) in zip(samples, samples[1:]))  # each interval's busy share
running = sum(s[2].get("procs_running", 0) for s in samples) / len(samples)
most = max(s[2].get("procs_running", 0) for s in samples)
blocked = sum(s[2].get("procs_blocked", 0) for s in samples) / len(samples)
switches = (n1.get("ctxt", 0) - n0.get("ctxt", 0)) / (t1 - t0)
print(f"host load over {t1 - t0:.0f} s ({len(samples)} samples, {cpus:.0f} CPUs): busy {busy:.1f}% "
      f"({busy / 100 * cpus:.1f} CPUs' worth; user {user + nice:.1f}%, system {system + irq + softirq:.1f}%), "
      f"iowait {iowait:.1f}%; an interval's busy share: median {bursts[len(bursts) // 2]:.0f}%, 90th percentile "
      f"{bursts[int(0.9 * len(bursts))]:.0f}%, largest {bursts[-1]:.0f}%; runnable {running:.1f} (at most {most}), "
      f"blocked {blocked:.1f}; {switches:.0f} context switches a second")
