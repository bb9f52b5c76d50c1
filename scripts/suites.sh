# How scripts/test runs its suites and reports them: one line per suite (its name, result and
# time), what a suite prints kept in its own log file, and a failing suite's log named and its
# tail printed. Sourced; the caller sets `logs` (a folder) and `failed` (an array).

now() { date +%s.%N; }

# report NAME STATUS STARTED [ENDED]: the suite's line; on failure its log's path and tail.
report() {
  local name="$1" status="$2" started="$3" ended="${4:-$(now)}" log="$logs/$1.log"
  local took
  took="$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.0f", b - a }')"
  if [ "$status" -eq 0 ]; then
    printf '%-18s passed  %4s s\n' "$name" "$took"
  else
    printf '%-18s FAILED  %4s s  (exit %s; log: %s)\n' "$name" "$took" "$status" "$log"
    tail -n 40 "$log" | sed 's/^/    /'
    failed+=("$name")
  fi
}

# suite NAME COMMAND…: run COMMAND with its output in NAME's log, then report.
suite() {
  local name="$1" started
  shift
  started="$(now)"
  "$@" >"$logs/$name.log" 2>&1
  report "$name" "$?" "$started"
}

# background NAME COMMAND…: start COMMAND now, beside the next suites; `finish NAME` reports it.
declare -A pids starts
background() {
  local name="$1"
  shift
  starts[$name]="$(now)"
  ( "$@" >"$logs/$name.log" 2>&1; echo $? >"$logs/$name.status"; now >"$logs/$name.ended" ) &
  pids[$name]=$!
}
finish() {
  wait "${pids[$1]}"
  report "$1" "$(cat "$logs/$1.status")" "${starts[$1]}" "$(cat "$logs/$1.ended")"
}

