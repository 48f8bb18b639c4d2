# What the benchmark scripts share: reading their examples' JSON lines, medians, and the machine's CPU time.
# Sourced; defines functions only.

# field NAME: the value after "NAME": in the JSON line on stdin (a number, or a string without its quotes)
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([0-9.a-z]*\).*/\1/p"; }

# median FILE: the median of the numbers in FILE (one per line)
median() {
  sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# machine_ticks: "busy stolen all", the CPU time of the whole machine so far in ticks (/proc/stat): busy
# (user, nice, system, irq, softirq), stolen by the hypervisor, and all of it (busy, idle, iowait, stolen)
machine_ticks() { awk '/^cpu / { busy = $2 + $3 + $4 + $7 + $8; print busy, $9, busy + $5 + $6 + $9 }' /proc/stat; }

# percent PART ALL: PART as a whole percentage of ALL
percent() { awk -v p="$1" -v a="$2" 'BEGIN { printf "%.0f\n", 100 * p / a }'; }
