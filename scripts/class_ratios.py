"""The student/reference time ratios of a class's results (grade batch's class.json), largest first: where every
student handed in the reference (gpu-check's `class` and `scaling` phases), how far one timed run of the same kernel
strays from another in the same process. With --per-lab, each lab's largest ratio as well (the goal: within 1.02),
beside the same run's ratio of the runners' event times: where the graded ratio strays and the event ratio does not,
the GPU did the same work and the host-clock bound (a sample counts at least the referee's clock around it, less the
course runners' usual gap) moved the grade. Then how many timed exercises were timed again (f unresolved, or the
clock's charge beyond 0.02: host_charge) and how many kept a charge after their retimes.
Usage: python3 scripts/class_ratios.py CLASS_JSON [HOW_MANY] [--per-lab]"""
import json
import sys

args = [a for a in sys.argv[1:] if a != "--per-lab"]
path = args[0]
how_many = int(args[1]) if len(args) > 1 else 5
ratios = {}
events = {}  # (lab, exercise, graded ratio) -> the same run's event-time ratio
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
    for lab in sorted({lab for lab, _ in ratios}):
        (name, worst) = max(((n, max(v)) for (l, n), v in ratios.items() if l == lab), key=lambda nv: nv[1])
        event = events.get((lab, name, worst))
        event_text = "" if event is None else f", events {event:.3f}"
        print(f"  lab{lab}: at most {worst:.3f} ({name}{event_text}){'' if worst <= 1.02 else ' ABOVE 1.02'}")
print(f"  timed again: {retimed} of {timed} timed exercises; a host charge beyond 0.02 kept by {len(charged)}"
      + (f": {', '.join(charged[:how_many])}" if charged else ""))
