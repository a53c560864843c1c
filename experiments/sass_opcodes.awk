# Counts each kernel's SASS instructions by opcode in `cuobjdump -sass` output, for the experiments' profile.sh:
#   cuobjdump -sass BINARY | awk -f experiments/sass_opcodes.awk > OUT-sass.json
# prints {"kernels": [{"kernel": MANGLED_NAME, "FFMA": n, ...}, ...]}. An opcode counts without its modifiers
# (ISETP.GE.AND is ISETP), except shared-memory loads, which keep their width (LDS, LDS.64, LDS.128): how many bytes
# one load moves is what a shared-memory bound depends on. A predicate (@P0, @!PT) does not count.
/Function : / { name = $NF; names[++k] = name; next }
name != "" && match($0, /\/\*[0-9a-f]+\*\/ +(@!?U?P[0-9T] +)?[A-Z][A-Z0-9_.]*/) {
  text = substr($0, RSTART, RLENGTH); sub(/.*\*\/ +/, "", text); sub(/^@!?U?P[0-9T] +/, "", text)
  op = text; if (text !~ /^LDS/) { split(text, parts, "."); op = parts[1] }
  count[name, op]++; ops[op] = 1 }
END { printf "{\"kernels\": ["
      for (i = 1; i <= k; i++) { printf "%s\n  {\"kernel\": \"%s\"", (i > 1 ? "," : ""), names[i]
        for (op in ops) if ((names[i], op) in count) printf ", \"%s\": %d", op, count[names[i], op]
        printf "}" }
      print "\n]}" }
