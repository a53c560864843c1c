"""The scaling of a class graded on several GPU counts, from each student's grading wall (`grading.wall_s` of grade
batch's class.json: one worker's seconds for that student, its build aside), with its resolution. The steady state of
gpu-check's `scaling` phase comes from when the records were written: one figure, no spread, and a few students a GPU
give it few intervals. Here a GPU count's seconds a student on the host are its workers' mean wall over the workers,
and its scaling against a class graded on one GPU (the first of those graded on the most CPUs, `grading.cpus`: one
GPU held to a part of the host's CPUs, gpu-check's g1c, is not what a second GPU is measured against, whichever
order the files come in) is that class's mean wall times the GPUs over this one's,
bounded by two standard errors of the ratio (each mean's standard error, the walls' standard deviation over the root
of their count, added in quadrature relative to its mean): a goal (1.8x on two GPUs, 3.4x on four) inside the bounds
is not decided by that many students. A class of a single student has no spread, so no bounds.
Two classes graded on the same number of GPUs (two placements of the workers: gpu-check's gN and gNs; one GPU on
all the CPUs and on a part, g1 and g1c; or two commits' classes) are then compared directly: the later file's mean
wall over the earlier's, with the same bounds; bounds that leave out 1 say which grades faster at that many students.
Usage: python3 scripts/class_scaling.py CLASS_JSON [CLASS_JSON ...]   (e.g. scaling-g1.json scaling-g2.json)"""
import json
import math
import statistics
import sys


def relative_error(walls):
    """The standard error of the walls' mean over the mean, or None for a single wall."""
    if len(walls) < 2:
        return None
    return statistics.stdev(walls) / math.sqrt(len(walls)) / statistics.mean(walls)


def cpu_count(text):
    """How many CPUs a list such as "0-15,32-47" names (0 for none or an unreadable one)."""
    count = 0
    for part in (text or "").split(","):
        first, _, last = part.strip().partition("-")
        if first.isdigit() and (not last or last.isdigit()):
            count += int(last or first) - int(first) + 1
    return count


print("scaling from each student's grading wall (one worker's seconds a student; bounds: two standard errors):")
classes = []  # (path, walls, GPUs, CPUs of its first student) of each file with a graded student, in order
for path in sys.argv[1:]:
    students = [s for s in json.load(open(path))["students"] if (s.get("grading") or {}).get("wall_s")]
    if not students:
        print(f"  {path}: no student with a grading wall")
        continue
    classes.append((path, [s["grading"]["wall_s"] for s in students],
                    len({s["grading"].get("gpu") for s in students}), cpu_count(students[0]["grading"].get("cpus"))))
one_gpu = max((c for c in classes if c[2] == 1), key=lambda c: c[3], default=None)  # the first of the most CPUs
for path, walls, gpus, _ in classes:
    mean = statistics.mean(walls)
    line = (f"  {path}: {gpus} GPU(s), {len(walls)} student(s): {mean:.1f} s a student a worker "
            f"(walls {min(walls):.1f} to {max(walls):.1f}), {mean / gpus:.1f} s a student on the host")
    if one_gpu is not None and gpus > 1:
        base_path, base = one_gpu[:2]
        scaling = gpus * statistics.mean(base) / mean
        line += f", {scaling:.2f}x {base_path}"
        errors = [relative_error(base), relative_error(walls)]
        if None not in errors:
            spread = 2 * scaling * math.hypot(*errors)
            line += f" ({scaling - spread:.2f} to {scaling + spread:.2f})"
    print(line)
for i, (path, walls, gpus, _) in enumerate(classes):
    for other_path, other, other_gpus, _ in classes[:i]:
        if gpus == other_gpus:
            ratio = statistics.mean(walls) / statistics.mean(other)
            line = (f"  {path} against {other_path}, both on {gpus} GPU(s): a worker's mean wall {ratio:.3f} of the "
                    "other's")
            errors = [relative_error(walls), relative_error(other)]
            if None not in errors:
                spread = 2 * ratio * math.hypot(*errors)
                line += f" ({ratio - spread:.3f} to {ratio + spread:.3f})"
            print(line)
