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
#   SOAK [node <repo>/dist/harness/cli.js]  how to call soak (word-split)
#   GITHUB_STEP_SUMMARY  when set, finish appends the walkthrough to it
#
# Exit codes: shard 0 when its cycles ran (whatever the gates say; a forwarded SIGTERM stops soak after the current
# cycle, with the journal kept for finish), 130 aborted, 3/4 bad input or harness failure, 5 an adapter fault that
# ended the run; finish 0 pass, 1 a gate failed, 2 insufficient or inconclusive, 3/4 bad input or harness failure, 5
# adapter fault (everything is written before it exits).
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

# Does `soak <verb> --help` list this flag? (part of the pipeline predates some flags; see README "Nightly soaks")
supports() { "${soak[@]}" "$1" --help 2>/dev/null | grep -q -- "$2"; }

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
  local dir=$night/shard-$i
  # A retried shard (backoffLimitPerIndex, a re-run job) starts clean; the earlier attempt is kept, never merged.
  if [[ -e $dir ]]; then mv "$dir" "$dir.attempt-$(date -u +%Y%m%dT%H%M%S)-$$"; fi
  mkdir -p "$dir"
  local args=(run --scenario "$scenario" --cycles "$cycles" --shard "$i/$shards" --out "$dir" --no-report --json)
  local judged=1
  if supports run --seed-from; then # the CLI that has --seed-from has --no-judge too
    args+=(--no-judge --seed-from "$key")
    judged=0
  else # older CLI: seed from the key here; the shard judges its own gates, so its 1/2 mean "ran" too
    args+=(--seed "$(printf '%s' "$key" | cksum | cut -d' ' -f1)")
  fi
  local more=() rc=0
  read -r -a more <<<"${NIGHTLY_RUN_ARGS:-}"
  run_forwarding "${soak[@]}" "${args[@]}" "${more[@]}" "$@" >"$dir/run.json" 2>"$dir/run.stderr" || rc=$?
  if [[ $judged == 1 && ($rc == 1 || $rc == 2) ]]; then rc=0; fi
  echo "$rc" >"$dir/done"
  echo "nightly: shard $i/$shards of $key exit $rc ($dir)" >&2
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

finish() {
  local waited=0 i
  local wait_s=${NIGHTLY_WAIT_S:-0}
  for ((i = 0; i < shards; i++)); do
    while [[ ! -e $night/shard-$i/done && $waited -lt $wait_s ]]; do
      sleep 5
      waited=$((waited + 5))
    done
  done
  local dirs=() missing=() run
  for ((i = 0; i < shards; i++)); do
    run=$(shard_run "$night/shard-$i")
    if [[ -n $run ]]; then dirs+=("$run"); else missing+=("$i"); fi
  done
  ((${#dirs[@]} > 0)) || {
    echo "nightly: no shard of $key left a journal under $night" >&2
    exit 4
  }
  ((${#missing[@]} == 0)) || echo "nightly: shards without a journal (left out): ${missing[*]}" >&2
  rm -rf "$night/merged" # a re-run finish merges again from the shards' journals
  "${soak[@]}" merge "${dirs[@]}" --out "$night/merged"
  mkdir -p "$reports"
  local extra=() rc=0
  if supports report --junit; then extra=(--junit "$night/junit-report.xml" --summary-md "$night/summary-report.md"); fi
  if supports report --baseline; then extra+=(--baseline auto); fi # compared with the night before
  "${soak[@]}" report "$night/merged" --out "$reports" "${extra[@]}" || rc=$?
  ((rc <= 2)) || exit "$rc"
  extra=()
  if supports gates --junit; then extra=(--junit "$night/junit-gates.xml" --summary-md "$night/summary-gates.md"); fi
  rc=0
  "${soak[@]}" gates "$night/merged" "${extra[@]}" || rc=$?
  if [[ -n ${GITHUB_STEP_SUMMARY:-} && -e $night/summary-report.md ]]; then
    cat "$night/summary-report.md" >>"$GITHUB_STEP_SUMMARY"
  fi
  return "$rc"
}

all() {
  local pids=() i rc=0
  for ((i = 0; i < shards; i++)); do
    shard "$i" "$@" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || rc=$?; done
  ((rc == 0 || rc == 130)) || exit "$rc"
  finish
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
