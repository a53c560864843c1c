"""The student/reference time ratios of a class's results (grade batch's class.json), largest first: where every
student handed in the reference (gpu-check's `class` and `scaling` phases), how far one timed run of the same kernel
strays from another in the same process. With --per-lab, each lab's largest ratio as well (the goal: within 1.02),
beside the same run's ratio of the runners' event times: where the graded ratio strays and the event ratio does not,
the GPU did the same work and the host-clock bound (a sample counts at least the referee's clock around it, less the
course runners' usual gap) moved the grade; and each lab's smallest ratio: a lab whose ratios stray below 1 as far as
above it is noisy, not slower as a student (the same kernel in both slots). An exercise graded by a metric (its
manifest's `graded_by`: lab 07's pipelines, by overlap) counts there by what grades it, the reference's value of the
metric over the student's, not by its time. Then how many timed exercises were timed again (f unresolved, or the
clock's charge beyond 0.02: host_charge) and how many kept a charge after their retimes. With --per-lab also the
spread of the ratios graded by time, the standard deviation of their logarithm: where every maximum is one run's
luck, the spread compares two ways of grading a class (two placements of its workers) by all of their runs.
Usage: python3 scripts/class_ratios.py CLASS_JSON [HOW_MANY] [--per-lab]"""
import glob
import json
import math
import os
import statistics
import sys

# (lab, exercise) -> the metric that grades it, from every lab's manifest (labs/NN_name/manifest.json).
graded_by = {}
for manifest in glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "labs", "*",
                                       "manifest.json")):
    lab_id = int(os.path.basename(os.path.dirname(manifest)).split("_")[0])
    for exercise in json.load(open(manifest)).get("exercises", []):
        if "graded_by" in exercise:
            graded_by[(lab_id, exercise["name"])] = exercise["graded_by"]["metric"]

args = [a for a in sys.argv[1:] if a != "--per-lab"]
path = args[0]
how_many = int(args[1]) if len(args) > 1 else 5
ratios = {}
events = {}  # (lab, exercise, graded ratio) -> the same run's event-time ratio
by_metric = {}  # (lab, exercise) -> [(the reference's metric over the student's, student's, reference's)]
timed, retimed, charged = 0, 0, []
for student in json.load(open(path))["students"]:
    for run in (student.get("results") or {}).get("runs", []):
        for lab in run["labs"]:
            for x in lab["exercises"]:
                m = x.get("median_ms") or {}
                if x.get("timed_runs"):
                    timed += 1
                    retimed += x["timed_runs"] > 1
                    if abs(x.get("host_charge") or 0) > 0.02:
                        charged.append(f"lab{lab['lab']} {x['name']} {x['host_charge']:+.3f}")
                metric = graded_by.get((lab["lab"], x["name"]))
                values = x.get("metrics") or {}
                student, reference = values.get(f"{metric}_student"), values.get(f"{metric}_reference")
                if metric and student and reference:
                    by_metric.setdefault((lab["lab"], x["name"]), []).append((reference / student, student, reference))
                if m.get("student") and m.get("reference"):
                    ratio = m["student"] / m["reference"]
                    ratios.setdefault((lab["lab"], x["name"]), []).append(ratio)
                    e = x.get("event_median_ms") or {}
                    if e.get("student") and e.get("reference"):
                        events[(lab["lab"], x["name"], ratio)] = e["student"] / e["reference"]
print(f"{path}: {sum(len(v) for v in ratios.values())} timed exercises; largest student/reference time ratios:")
for (lab, name), values in sorted(ratios.items(), key=lambda kv: -max(kv[1]))[:how_many]:
    print(f"  lab{lab} {name}: {max(values):.3f} (of {len(values)})")
if "--per-lab" in sys.argv:
    for lab in sorted({lab for lab, _ in ratios} | {lab for lab, _ in by_metric}):
        # Each exercise by what grades it: its metric where the manifest says so, else its time.
        candidates, least = [], []
        for (l, n), v in ratios.items():
            if l == lab and (l, n) not in by_metric:
                worst = max(v)
                event = events.get((l, n, worst))
                candidates.append((worst, f"{n}" + ("" if event is None else f", events {event:.3f}")))
                least.append((min(v), n))
        for (l, n), v in by_metric.items():
            if l == lab:
                worst, student, reference = max(v)
                candidates.append((worst, f"{n} by {graded_by[(l, n)]}: {student:.3f} against the reference's "
                                          f"{reference:.3f}"))
                least.append((min(v)[0], n))
        worst, text = max(candidates)
        best, best_name = min(least)
        print(f"  lab{lab}: at most {worst:.3f} ({text}){'' if worst <= 1.02 else ' ABOVE 1.02'}, "
              f"at least {best:.3f} ({best_name})")
    by_time = [r for (l, n), v in ratios.items() if (l, n) not in by_metric for r in v]
    if len(by_time) > 1:
        spread = statistics.stdev(math.log(r) for r in by_time)
        print(f"  spread: {len(by_time)} ratios graded by time, standard deviation of their logarithm "
              f"{100 * spread:.2f}%, {sum(r > 1.01 for r in by_time)} above 1.01, {sum(r > 1.02 for r in by_time)} "
              "above 1.02")
print(f"  timed again: {retimed} of {timed} timed exercises; a host charge beyond 0.02 kept by {len(charged)}"
      + (f": {', '.join(charged[:how_many])}" if charged else ""))
