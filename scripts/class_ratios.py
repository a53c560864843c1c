"""The student/reference time ratios of a class's results (grade batch's class.json), largest first: where every
student handed in the reference (gpu-check's `class` and `scaling` phases), how far one timed run of the same kernel
strays from another in the same process. With --per-lab, each lab's largest ratio as well (the goal: within 1.02).
Usage: python3 scripts/class_ratios.py CLASS_JSON [HOW_MANY] [--per-lab]"""
import json
import sys

args = [a for a in sys.argv[1:] if a != "--per-lab"]
path = args[0]
how_many = int(args[1]) if len(args) > 1 else 5
ratios = {}
for student in json.load(open(path))["students"]:
    for run in (student.get("results") or {}).get("runs", []):
        for lab in run["labs"]:
            for x in lab["exercises"]:
                m = x.get("median_ms") or {}
                if m.get("student") and m.get("reference"):
                    ratios.setdefault((lab["lab"], x["name"]), []).append(m["student"] / m["reference"])
print(f"{path}: {sum(len(v) for v in ratios.values())} timed exercises; largest student/reference time ratios:")
for (lab, name), values in sorted(ratios.items(), key=lambda kv: -max(kv[1]))[:how_many]:
    print(f"  lab{lab} {name}: {max(values):.3f} (of {len(values)})")
if "--per-lab" in sys.argv:
    for lab in sorted({lab for lab, _ in ratios}):
        (name, worst) = max(((n, max(v)) for (l, n), v in ratios.items() if l == lab), key=lambda nv: nv[1])
        print(f"  lab{lab}: at most {worst:.3f} ({name}){'' if worst <= 1.02 else ' ABOVE 1.02'}")
