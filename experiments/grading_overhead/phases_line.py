"""One line of timed_run.sh: a time run's wall clock split into its phases and its exit, and its medians."""
import json
import sys

label, t0, t1, written, path = sys.argv[1], *map(float, sys.argv[2:5]), sys.argv[5]
try:
    j = json.load(open(path))
except (OSError, ValueError):
    print(f"{label}: no results ({t1 - t0:.2f} s)")
    sys.exit(0)
ph = j.get("phases_s", {})
inner = {"generate_device"}  # a part of generate, not a phase of its own
total = sum(v for k, v in ph.items() if k not in inner)
r = j.get("runners", {})
medians = " ".join(f"{k} {v['median_ms']:.3f}±{v['noise_pct']:.1f}%" for k, v in r.items()
                   if k in ("student", "reference", "baseline"))
print(f"{label}: wall {t1 - t0:.2f} s = before results {written - t0:.2f} (phases {total:.2f}: "
      + ", ".join(f"{k} {v:.2f}" for k, v in ph.items()) + f") + exit {t1 - written:.2f}; {medians}")
