"""Whether a several-GPU batch's workers still grade in step (grade batch's class.json): each record's `grading.steps`
holds when its checks, its lab-wide sanitizer runs and each lab's own step ran, on the host's monotonic clock. For
each kind of step, the seconds in which two or more workers were in it at once, against the seconds any worker was:
checks that start a burst of CUDA processes on every worker at once, or sanitizer runs that the host runs nearly one
at a time, meet when the workers are in step; the host's sanitizer turn and the host link's claim are there to keep
them apart. Each line ends with a student's seconds in that kind of step (their spans summed, over the students
graded): what a worker's student took in it, to set against a class on fewer GPUs. Records of batches older than the
steps are counted and skipped.
Usage: python3 scripts/class_timeline.py CLASS_JSON [CLASS_JSON ...]"""
import collections
import json
import sys


def overlap(spans):
    """spans: [(from, to, worker)]. Seconds with two or more workers in a span at once, and with at least one."""
    events = sorted([(a, 1, w) for a, b, w in spans] + [(b, -1, w) for a, b, w in spans])
    active = collections.Counter()
    together = anyone = 0.0
    last = None
    for t, change, worker in events:
        if last is not None:
            busy = sum(1 for n in active.values() if n > 0)
            if busy >= 2:
                together += t - last
            if busy >= 1:
                anyone += t - last
        active[worker] += change
        last = t
    return together, anyone


for path in sys.argv[1:]:
    spans = collections.defaultdict(list)  # kind of step -> [(from, to, worker)]
    workers, older, graded = set(), 0, 0
    for s in json.load(open(path))["students"]:
        grading = s.get("grading") or {}
        steps = grading.get("steps")
        if not steps:
            older += 1
            continue
        graded += 1
        worker = grading.get("gpu", "")
        workers.add(worker)
        for kind in ("checks", "sanitizer"):
            if steps.get(kind):
                spans[kind].append((steps[kind][0], steps[kind][1], worker))
        for lab in steps.get("labs", []):
            spans[f"lab{lab['lab']}"].append((lab["span"][0], lab["span"][1], worker))
    print(f"{path}: {len(workers)} worker(s); seconds with two or more workers in the step at once / with any"
          + (f" ({older} records without steps skipped)" if older else ""))
    for kind in sorted(spans, key=lambda k: (k not in ("checks", "sanitizer"), k)):
        together, anyone = overlap(spans[kind])
        share = f"{100 * together / anyone:.0f}%" if anyone > 0 else "-"
        each = sum(b - a for a, b, _ in spans[kind]) / graded
        print(f"  {kind:<10} {together:8.1f} / {anyone:8.1f} s  ({share} of it together), {each:.2f} s a student")
