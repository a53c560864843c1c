"""Sums what experiments/driver_lock/census.cpp counted (one file a process in DIR) by the role each process played in
grading: a lab binary's command (check, check --small under a sanitizer, time, info) and, for a runner, its impl and
the command of the referee that started it. For each role: processes, driver calls and their seconds, a student's
share (STUDENTS), and the kinds of call that took the most seconds. With a second DIR (the same class on more GPUs)
and its students, the growth of each role's and kind's seconds a student from the first to the second.
Usage: python3 census.py DIR STUDENTS [DIR2 STUDENTS2]"""
import collections
import os
import re
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from nvidia_requests import NV_ESCAPES, UVM_CALLS  # noqa: E402 (found through the path above)

CLASSES = 3
HEADER = struct.Struct("<8sii512s")
COUNTS = CLASSES * 256
RECORD = HEADER.size + 2 * 8 * COUNTS
LAB = re.compile(r"^lab(\d)$")
RUNNER = re.compile(r"^lab(\d)-(\w+)")


def call_name(kind, nr):
    if kind == 0:
        return "%s(F:0x%02x)" % (NV_ESCAPES.get(nr, "?"), nr)
    if kind == 1:
        return "%s(uvm:0x%02x)" % (UVM_CALLS.get(nr, "?"), nr)
    return "other:%s" % (chr(nr) if 32 < nr < 127 else "0x%02x" % nr)


def read(folder):
    procs = {}
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        if len(data) < RECORD or not data.startswith(b"census1"):
            continue
        _, pid, ppid, cmd = HEADER.unpack_from(data)
        calls = struct.unpack_from("<%dQ" % COUNTS, data, HEADER.size)
        ns = struct.unpack_from("<%dQ" % COUNTS, data, HEADER.size + 8 * COUNTS)
        words = cmd.split(b"\0")[0].decode(errors="replace").split()
        procs[pid] = {"ppid": ppid, "words": words, "calls": calls, "ns": ns}
    return procs


def own_role(words):
    """A lab binary's role from its own command line, or None."""
    if not words:
        return None
    base = os.path.basename(words[0])
    m = LAB.match(base)
    if m:
        command = words[1] if len(words) > 1 else "?"
        if command == "check" and "--small" in words:
            command = "check --small"
        return "referee " + command
    m = RUNNER.match(base)
    if m:
        return "runner " + m.group(2)
    return None


def roles(procs):
    out = {}
    for pid, p in procs.items():
        role = own_role(p["words"])
        if role and role.startswith("runner"):
            parent = procs.get(p["ppid"])
            started_by = own_role(parent["words"]) if parent else None
            role += " of " + (started_by or "?").replace("referee ", "")
        if role is None:
            role = "other " + (os.path.basename(p["words"][0]) if p["words"] else "?")
        out[pid] = role
    return out


def summarize(folder):
    procs = read(folder)
    role_of = roles(procs)
    by_role = collections.defaultdict(lambda: {"n": 0, "calls": 0, "ns": 0, "kinds": collections.Counter(),
                                               "kind_calls": collections.Counter()})
    for pid, p in procs.items():
        r = by_role[role_of[pid]]
        r["n"] += 1
        for i in range(COUNTS):
            if p["calls"][i]:
                name = call_name(i // 256, i % 256)
                r["calls"] += p["calls"][i]
                r["ns"] += p["ns"][i]
                r["kinds"][name] += p["ns"][i]
                r["kind_calls"][name] += p["calls"][i]
    return by_role


def report(folder, students, by_role):
    total_ns = sum(r["ns"] for r in by_role.values())
    print("%s: %d students; a student's driver calls by role (processes, calls, seconds in them), the costliest kinds"
          % (folder, students))
    for role, r in sorted(by_role.items(), key=lambda kv: -kv[1]["ns"]):
        if not r["calls"]:
            continue
        top = ", ".join("%s %d/%.2f s" % (k, r["kind_calls"][k] / students, v / 1e9 / students)
                        for k, v in r["kinds"].most_common(6))
        print("  %-34s %6.1f procs %8.0f calls %7.2f s  (%s)" % (role, r["n"] / students, r["calls"] / students,
                                                             r["ns"] / 1e9 / students, top))
    print("  all: %.2f s a student in driver calls" % (total_ns / 1e9 / students))
    kinds = collections.Counter()
    for r in by_role.values():
        kinds.update(r["kinds"])
    print("  by kind: " + ", ".join("%s %.2f s" % (k, v / 1e9 / students) for k, v in kinds.most_common(8)))
    return kinds


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    first = summarize(sys.argv[1])
    kinds1 = report(sys.argv[1], int(sys.argv[2]), first)
    if len(sys.argv) == 5:
        n1, n2 = int(sys.argv[2]), int(sys.argv[4])
        second = summarize(sys.argv[3])
        kinds2 = report(sys.argv[3], n2, second)
        print("growth a student, %s -> %s (seconds in driver calls):" % (sys.argv[1], sys.argv[3]))
        for role in sorted(set(first) | set(second), key=lambda k: -(second[k]["ns"] if k in second else 0)):
            a = first[role]["ns"] / 1e9 / n1 if role in first else 0
            b = second[role]["ns"] / 1e9 / n2 if role in second else 0
            if a or b:
                print("  %-34s %7.2f -> %7.2f s (+%.2f)" % (role, a, b, b - a))
        for k in sorted(set(kinds1) | set(kinds2), key=lambda k: -(kinds2.get(k, 0) / n2 - kinds1.get(k, 0) / n1))[:10]:
            print("  %-34s %7.2f -> %7.2f s" % (k, kinds1.get(k, 0) / 1e9 / n1, kinds2.get(k, 0) / 1e9 / n2))


if __name__ == "__main__":
    main()
