#!/usr/bin/env bash
# The nightly soak pipeline, one step per call; the Kubernetes CronJobs and the GitHub workflow call these same steps.
#
#   nightly.sh shard <i>   [-- extra soak run args]  run shard i of $SHARDS (cycles only: --no-judge), exit 0 when it ran
#   nightly.sh finish                                merge every shard of the night, report (vs. the night before),
#                                                    gates, JUnit + job summary; exit code = the night's verdict
#   nightly.sh all         [-- extra soak run args]  every shard (in parallel), then finish: the local dry run
#   nightly.sh key                                   print the night's key (below) and exit
#
# Configuration (environment; defaults in brackets):
#   NIGHT_KEY  [UTC date, yyyy-mm-dd]  the night: names its folder, seeds its shards (--seed-from) and, being a
#                                      date, dates its report (not the day the first shard started)
#   NIGHT_JOB_NAME  when NIGHT_KEY is unset: the Job name a CronJob gave this pod's Job (<cronjob>-<scheduled unix
#                   minutes>, from the pod's job-name label, deploy/k8s/): the key is that schedule's UTC date, one
#                   value for every shard and the finish Job however late a pod starts or is retried
#   SHARDS [4]  CYCLES [320, over all shards]  SCENARIO [default]
#   NIGHTLY_DATA [./nightly]  holds nights/<key>/shard-<i>/ (one run folder per shard), nights/<key>/merged/,
#                             nights/<key>/{junit,summary}-*.{xml,md}
#   NIGHTLY_REPORTS [$NIGHTLY_DATA/reports]  the published reports folder: one dated report per night plus the
#                             index.html trend page over every night kept in it
#   NIGHTLY_WAIT_S [0]  finish: wait up to this long for every shard's done marker (a late shard Job), then go on
#   NIGHTLY_RUN_ARGS []  more `soak run` arguments for every shard (word-split), e.g. --target microvm
#   SOAK [node <repo>/dist/harness/cli.js]  how to call soak (word-split); it must answer `soak --capabilities --json`
#                             with every feature this script uses (else exit 3 before anything runs)
#   GITHUB_STEP_SUMMARY  when set, shard and finish append what failed, finish the walkthrough too
#
# Exit codes: shard 0 when its cycles ran (soak exited 0 and its journal holds a run-start and at least one cycle
# outcome, whatever the gates say; a forwarded SIGTERM stops soak after the current cycle, with the journal kept for
# finish), 130 aborted, 3 bad input or a CLI that is missing or lacks a feature, 4 harness failure (soak crashed, or
# its journal shows no cycle), 5 an adapter fault that ended the run; finish 0 pass, 1 a gate failed, 2 insufficient
# or inconclusive, 3 bad input, 4 harness failure or a failed shard (one whose exit was not 0, that left no done
# marker or no cycle: named on stderr and in the job summary; a failed gate's 1 and an adapter fault's 5 outrank it),
# 5 adapter fault. Everything is written before it exits.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
read -r -a soak <<<"${SOAK:-node $repo/dist/harness/cli.js}"
night_key() {
  if [[ -n ${NIGHT_KEY:-} ]]; then
    echo "$NIGHT_KEY"
  elif [[ ${NIGHT_JOB_NAME:-} =~ -([0-9]{8,})$ ]]; then
    date -u -d "@$((BASH_REMATCH[1] * 60))" +%F
  else
    [[ -z ${NIGHT_JOB_NAME:-} ]] ||
      echo "nightly: NIGHT_JOB_NAME '$NIGHT_JOB_NAME' does not end in a CronJob's scheduled minute; the night is today's UTC date" >&2
    date -u +%F
  fi
}
key=$(night_key)
shards=${SHARDS:-4}
cycles=${CYCLES:-320}
scenario=${SCENARIO:-default}
data=${NIGHTLY_DATA:-$PWD/nightly}
reports=${NIGHTLY_REPORTS:-$data/reports}

die() {
  echo "nightly: $*" >&2
  exit 3
}
[[ $key =~ ^[A-Za-z0-9._-]{1,64}$ ]] || die "NIGHT_KEY: expected letters, digits, . _ - (e.g. 2026-12-01), got '$key'"
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "SHARDS: expected a positive integer, got '$shards'"
[[ $cycles =~ ^[1-9][0-9]*$ ]] || die "CYCLES: expected a positive integer, got '$cycles'"
night=$data/nights/$key

# What this script asks of soak (`soak --capabilities --json` lists it; harness/commands/capabilities.ts).
NEEDS=('run --shard' 'run --seed-from' 'run --no-judge' 'run --no-report' 'run --json' merge 'report --baseline'
  'report --junit' 'report --summary-md' 'gates --junit' 'gates --summary-md')

# Append a line to the job summary when there is one.
summary() { if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then printf '%s\n' "$@" >>"$GITHUB_STEP_SUMMARY"; fi; }

# The line of a stderr file that says why: soak's own one-line error, else a Node error's message, else its last line.
why_line() { grep -m 1 -E '^(soak: |[A-Za-z]*Error\b)' "$1" 2>/dev/null || tail -n 1 "$1" 2>/dev/null || true; }

# Refuse to start (exit 3) unless soak runs and answers every feature in NEEDS: a missing build or an older CLI stops
# here, loudly, instead of running without a flag or counting a crash as a run.
require_cli() {
  if [[ -z ${SOAK:-} && ! -f $repo/dist/harness/cli.js ]]; then
    summary "nightly: soak is not built ($repo/dist/harness/cli.js is missing)"
    die "$repo/dist/harness/cli.js is missing: build it (npm ci && npm run build) or run the nightly.sh of an installed package (node_modules/keepstate-soak/deploy/nightly/nightly.sh)"
  fi
  local caps rc=0 missing err
  err=$(mktemp)
  caps=$("${soak[@]}" --capabilities --json 2>"$err") || rc=$?
  if ((rc != 0)); then
    caps=$(why_line "$err")
    rm -f "$err"
    die "'${soak[*]} --capabilities --json' exited $rc (a CLI too old for this script, or not runnable): $caps"
  fi
  rm -f "$err"
  missing=$(CAPS=$caps node -e '
    const need = process.argv.slice(1);
    let c;
    try { c = JSON.parse(process.env.CAPS); } catch { console.log("(its answer is not JSON)"); process.exit(0); }
    if (c === null || c.schemaVersion !== 1 || !Array.isArray(c.features)) { console.log("(schemaVersion 1 with features expected)"); process.exit(0); }
    console.log(need.filter((f) => !c.features.includes(f)).join(", "));' "${NEEDS[@]}")
  [[ -z $missing ]] || die "'${soak[*]}' lacks what this script uses: $missing (soak --capabilities --json)"
}

# How many cycle outcomes a journal holds after its run-start (0: none, no run-start, or no journal); a torn last line
# is skipped, as every reader of a journal skips it.
journal_cycles() {
  [[ -f $1 ]] || {
    echo 0
    return
  }
  node -e '
    const lines = require("node:fs").readFileSync(process.argv[1], "utf8").split("\n");
    let started = false, cycles = 0;
    for (const line of lines) {
      let e;
      try { e = JSON.parse(line); } catch { continue; }
      if (e?.type === "run-start") started = true;
      else if (started && e?.type === "cycle") cycles++;
    }
    console.log(cycles);' "$1"
}

# Run a command with SIGTERM/SIGINT forwarded to it (bash as PID 1 of a pod would otherwise swallow them); its code.
run_forwarding() {
  local child rc
  "$@" &
  child=$!
  trap 'kill -TERM "$child" 2>/dev/null || true' TERM INT
  set +e
  wait "$child"
  rc=$?
  while kill -0 "$child" 2>/dev/null; do # wait returns early when a trapped signal arrives
    wait "$child"
    rc=$?
  done
  set -e
  trap - TERM INT
  return "$rc"
}

shard() {
  local i=$1
  shift
  [[ $i =~ ^[0-9]+$ && $i -lt $shards ]] || die "shard: expected an index 0..$((shards - 1)), got '$i'"
  require_cli
  local dir=$night/shard-$i
  # A retried shard (backoffLimitPerIndex, a re-run job) starts clean; the earlier attempt is kept, never merged.
  if [[ -e $dir ]]; then mv "$dir" "$dir.attempt-$(date -u +%Y%m%dT%H%M%S)-$$"; fi
  mkdir -p "$dir"
  local args=(run --scenario "$scenario" --cycles "$cycles" --shard "$i/$shards" --out "$dir" --no-report --json
    --no-judge --seed-from "$key")
  local more=() rc=0 ran run why=''
  read -r -a more <<<"${NIGHTLY_RUN_ARGS:-}"
  run_forwarding "${soak[@]}" "${args[@]}" "${more[@]}" "$@" >"$dir/run.json" 2>"$dir/run.stderr" || rc=$?
  run=$(shard_run "$dir")
  ran=0
  [[ -z $run ]] || ran=$(journal_cycles "$run/journal.ndjson")
  if ((rc != 0)); then
    why="soak exited $rc: $(why_line "$dir/run.stderr")"
  elif ((ran == 0)); then # exit 0 without a cycle is not a run (a crash that looked like success, a stop before one)
    rc=4
    why='soak exited 0 but its journal holds no run-start with a cycle outcome'
  fi
  echo "$rc" >"$dir/done"
  if ((rc == 0)); then
    echo "nightly: shard $i/$shards of $key ran $ran cycles ($dir)" >&2
  else
    echo "nightly: shard $i/$shards of $key FAILED, exit $rc, $ran cycles: $why ($dir)" >&2
    summary "nightly: shard $i/$shards of $key failed (exit $rc, $ran cycles): $why"
  fi
  return "$rc"
}

# A shard's run folder: its `latest` (a link, or a copy after an artifact upload dropped the link), else its only run.
shard_run() {
  local d
  if [[ -e $1/latest/journal.ndjson ]]; then
    echo "$1/latest"
    return
  fi
  for d in "$1"/*/journal.ndjson; do [[ -e $d ]] && dirname "$d" && return; done
  return 0
}

# Why shard i of the night failed (one line), or nothing when it ran: exit 0 in its done marker and a cycle journaled.
shard_failure() {
  local dir=$night/shard-$1 done run
  [[ -e $dir/done ]] || {
    echo "no done marker (it did not finish: never started, killed, or still running)"
    return
  }
  done=$(<"$dir/done")
  if [[ $done != 0 ]]; then
    echo "exit $done: $(why_line "$dir/run.stderr")"
    return
  fi
  run=$(shard_run "$dir")
  [[ -n $run ]] || {
    echo 'no journal'
    return
  }
  [[ $(journal_cycles "$run/journal.ndjson") != 0 ]] || echo 'no cycle outcome in its journal'
}

finish() {
  require_cli
  local waited=0 i
  local wait_s=${NIGHTLY_WAIT_S:-0}
  for ((i = 0; i < shards; i++)); do
    while [[ ! -e $night/shard-$i/done && $waited -lt $wait_s ]]; do
      sleep 5
      waited=$((waited + 5))
    done
  done
  local dirs=() missing=() failed=() run why
  for ((i = 0; i < shards; i++)); do
    run=$(shard_run "$night/shard-$i")
    if [[ -n $run ]]; then dirs+=("$run"); else missing+=("$i"); fi
    why=$(shard_failure "$i")
    [[ -z $why ]] || failed+=("shard $i: $why")
  done
  if ((${#failed[@]} > 0)); then
    summary "## Nightly $key: ${#failed[@]} of $shards shards failed" '' "${failed[@]/#/- }" ''
    printf 'nightly: FAILED %s\n' "${failed[@]}" >&2
  fi
  ((${#dirs[@]} > 0)) || {
    echo "nightly: no shard of $key left a journal under $night" >&2
    summary "nightly: no shard of $key left a journal: no report"
    exit 4
  }
  ((${#missing[@]} == 0)) || echo "nightly: shards without a journal (left out): ${missing[*]}" >&2
  rm -rf "$night/merged" # a re-run finish merges again from the shards' journals
  "${soak[@]}" merge "${dirs[@]}" --out "$night/merged"
  mkdir -p "$reports"
  local rc=0
  # compared with the night before
  "${soak[@]}" report "$night/merged" --out "$reports" --baseline auto \
    --junit "$night/junit-report.xml" --summary-md "$night/summary-report.md" || rc=$?
  ((rc <= 2)) || exit "$rc"
  rc=0
  "${soak[@]}" gates "$night/merged" --junit "$night/junit-gates.xml" --summary-md "$night/summary-gates.md" || rc=$?
  if [[ -n ${GITHUB_STEP_SUMMARY:-} && -e $night/summary-report.md ]]; then
    cat "$night/summary-report.md" >>"$GITHUB_STEP_SUMMARY"
  fi
  # a failed shard makes the night a harness failure, unless what ran already failed a gate or had an adapter fault
  if ((${#failed[@]} > 0 && rc != 1 && rc != 5)); then rc=4; fi
  return "$rc"
}

all() {
  local pids=() i rc=0
  for ((i = 0; i < shards; i++)); do
    shard "$i" "$@" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || rc=$?; done
  ((rc != 3)) || exit "$rc" # bad input: every shard failed alike, nothing to report
  finish                    # a failed shard is named there, and fails the night
}

step=${1:-}
shift || true
case $step in
  shard)
    i=${1:-}
    shift || true
    [[ ${1:-} == -- ]] && shift
    shard "$i" "$@"
    ;;
  finish) finish ;;
  key) echo "$key" ;;
  all)
    [[ ${1:-} == -- ]] && shift
    all "$@"
    ;;
  *) die "usage: nightly.sh shard <i> [-- soak run args] | finish | all [-- soak run args] | key" ;;
esac
