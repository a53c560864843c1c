"""Where a class's grading seconds went, a student on average (grade batch's class.json): each lab's wall time, the
checks', the sanitizer runs' and the timed runs' wall times (summed over exercises: checks and sanitizer runs go at
once, so their sums exceed the wall), the wait for the host's sanitizer turn (grade batch) and the timed runs made
instead of waiting for it (the spans of labs' steps that ended before the student's sanitizer step began), and the
timed runs' phases (`phases_s` of `labN time`: CUDA context, runners' start, generate, host_link_wait (lab 07's wait
for its turns on the host link, from 2026-11-27; before, the grader waited outside the run and each lab's wall
against its timed runs showed it), timing, ...; `generate_ahead`, a first exercise's generate() made by its check run
before the timed turn, is the checks' time, not the timed runs', and is summed apart as "generate ahead";
`generate_beside_runners`, a second exercise's host work made in the turn while the runners start, is a phase), with
what the timed runs spent outside every phase (starting and ending processes), what the lab walls spent outside the
timed runs (in all, and each lab's wall against its timed runs: the first lab to run, lab 07 in a batch where a lab over
the host link goes first, also holds every lab's checks and sanitizer runs), and the longest a lab's sanitizer run
took (the limit's yardstick).
Comparing two classes, one per GPU count, says what the workers of a several-GPU batch contend for.
Usage: python3 scripts/class_phases.py CLASS_JSON [CLASS_JSON ...]"""
import collections
import json
import sys

for path in sys.argv[1:]:
    students = [s for s in json.load(open(path))["students"] if s.get("results")]
    n = len(students)
    if n == 0:
        print(f"{path}: no graded student")
        continue
    totals = collections.Counter()
    by_lab = collections.defaultdict(lambda: [0.0, 0.0])  # lab -> [wall, timed runs], summed over students
    slowest_run = (0.0, None)  # the longest sanitizer run a lab's grading averaged, and its lab
    for s in students:
        # The student's wait for the host's sanitizer turn (grade batch, from 2026-11-27): every lab with sanitizer
        # runs records the same one wait.
        totals["sanitizer turn wait"] += max((lab.get("sanitizer_wait_s") or 0
                                              for lab in s["results"]["runs"][0]["labs"]), default=0)
        # The labs' first timed runs made while another worker held the turn (grade batch, from 2026-11-28).
        steps = (s.get("grading") or {}).get("steps") or {}
        if steps.get("sanitizer"):
            totals["timed while waiting"] += sum(lab["span"][1] - lab["span"][0] for lab in steps.get("labs", [])
                                                      if lab["span"][1] <= steps["sanitizer"][0])
        for lab in s["results"]["runs"][0]["labs"]:
            totals["lab wall"] += lab.get("wall_s") or 0
            by_lab[lab["lab"]][0] += lab.get("wall_s") or 0
            by_lab[lab["lab"]][1] += sum(x.get("time_s") or 0 for x in lab["exercises"])
            # A lab's sanitizer seconds over its tools (an exercise's `sanitized` has an entry a tool): the time of
            # one run where each tool made one run over the lab's exercises, their shares adding up to its wall.
            tools = max((len(x.get("sanitized") or []) for x in lab["exercises"]), default=0)
            if tools:
                run = sum(x.get("sanitize_s") or 0 for x in lab["exercises"]) / tools
                slowest_run = max(slowest_run, (run, lab["lab"]), key=lambda r: r[0])
            for x in lab["exercises"]:
                totals["checks (summed)"] += x.get("check_s") or 0
                totals["timed runs"] += x.get("time_s") or 0
                totals["sanitizer (summed)"] += x.get("sanitize_s") or 0
                for phase, seconds in (x.get("phases_s") or {}).items():
                    if phase == "generate_ahead":  # before the timed run's turn: its check run's seconds
                        totals["generate ahead"] += seconds
                    elif phase != "generate_device":  # a part of generate
                        totals["phase " + phase] += seconds
    outside = totals["timed runs"] - sum(v for k, v in totals.items() if k.startswith("phase "))
    print(f"{path}: {n} students, seconds a student")
    summed = ["lab wall", "checks (summed)", "sanitizer (summed)", "sanitizer turn wait", "timed while waiting",
              "timed runs", "generate ahead"]
    for key in summed + sorted(k for k in totals if k.startswith("phase ")):
        print(f"  {key:<22} {totals[key] / n:8.2f}")
    print(f"  {'timed, outside phases':<22} {outside / n:8.2f}")
    print(f"  {'untimed (wall - timed)':<22} {(totals['lab wall'] - totals['timed runs']) / n:8.2f}")
    print("  by lab, wall / timed runs: " +
          ", ".join(f"{lab} {wall / n:.1f} / {timed / n:.1f}" for lab, (wall, timed) in sorted(by_lab.items())))
    if slowest_run[1] is not None:
        print(f"  slowest sanitizer run   {slowest_run[0]:8.2f} (lab {slowest_run[1]}, its tools' runs averaged)")
