"""The student/reference time ratios of a class's results (grade batch's class.json), largest first: where every
student handed in the reference (gpu-check's `class` phase), how far one timed run of the same kernel strays from
another in the same process. Usage: python3 scripts/class_ratios.py CLASS_JSON [HOW_MANY]"""
import json
import sys

path = sys.argv[1]
how_many = int(sys.argv[2]) if len(sys.argv) > 2 else 5
ratios = {}
for student in json.load(open(path))["students"]:
    for run in (student.get("results") or {}).get("runs", []):
        for lab in run["labs"]:
            for x in lab["exercises"]:
                m = x.get("median_ms") or {}
                if m.get("student") and m.get("reference"):
                    ratios.setdefault(f"lab{lab['lab']} {x['name']}", []).append(m["student"] / m["reference"])
print(f"{path}: {sum(len(v) for v in ratios.values())} timed exercises; largest student/reference time ratios:")
for name, values in sorted(ratios.items(), key=lambda kv: -max(kv[1]))[:how_many]:
    print(f"  {name}: {max(values):.3f} (of {len(values)})")
