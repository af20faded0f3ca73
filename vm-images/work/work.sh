#!/bin/busybox sh
# work: the coding workload profile (init starts it with soak.work=coding; vm-images/README.md). Beside the agent it
# does what a coding agent does: unpacks a source tree shipped in the image, then in a loop edits files, builds them
# with a compiler (tcc, objects rebuilt only for what the edit touched, a clean build every 16 iterations), runs the
# tests of that build, commits (a compressed snapshot of sources and build, the last 8 kept), and keeps a long-running
# process (the build's `serve` mode, restarted on every 8th build) that it queries every iteration.
# After each iteration it writes `<iteration> <failures> <served> <last failure>` to <dir>/.status (write, rename);
# the agent reads that file into every full heartbeat (` W ...`), and the checker fails a resume whose workload failed.
# A failure means the restored state disagreed with itself: a build of edited sources that do not carry the edit, a
# test run whose iteration the build does not know, a server whose count is not the number of queries it was sent.
# A step that fails while the guest's own disk is full is not one: its last failure reads `space`, the count stays.
# Usage: work <dir> [<break iteration>]; TEST-ONLY: at <break iteration> the edit writes the wrong iteration (negative
# control: the failure must reach the verdict).
dir="$1"
brk="${2:-0}"
tree="${WORK_TREE:-/usr/share/work/proj.tar.gz}" # the image's; tests run the script on the host with their own
cc="tcc -c"
wait_s="${WORK_SERVE_WAIT_S:-10}" # how long a query may go unanswered (tests: shorter)
space_kib=256 # less free than this where the work lives: a failure is the disk's (see failed)
rm -rf "$dir"
mkdir -p "$dir" && cd "$dir" || exit 1
tar -xzf "$tree" || { echo "WORK-ERROR unpack $tree"; exit 1; }
mkdir -p obj bin .commits
iter=0 fails=0 served=0 last=- pings=0 server= rebuild=0 spaced=-9

status() {
  echo "$iter $fails $served $last" > .status.tmp && mv .status.tmp .status
}
failed() {
  # the guest's own disk full (less than space_kib free where the work lives) is not the restored state disagreeing
  # with itself: a failure then, or in the iteration after (a binary or source it cut short), is counted apart (last
  # failure `space`), never as a failure; the status may not be writable until there is room again (the heartbeat then
  # keeps the previous account)
  if [ "$(df -Pk . | awk 'NR == 2 { print $4 }')" -lt "$space_kib" ] 2>/dev/null; then
    spaced=$iter
    rebuild=1 # what the full disk cut short (a source being edited, an object, the link): from the tree next iteration
  fi
  if [ "$spaced" -ge $((iter - 1)) ]; then
    last=space
    echo "WORK-SPACE iteration $iter: $1 failed with the work's disk full (in this iteration or the one before): $2"
    return
  fi
  fails=$((fails + 1))
  last="$1"
  echo "WORK-FAIL iteration $iter: $1 $2"
}
compile() {
  $cc -o "obj/$1.o" "src/$1.c" 2> .cc.err || { failed build "$1.c: $(head -c 160 .cc.err)"; return 1; }
}
start_server() { # a new build's server, on new pipes (nothing a vanished one left unread)
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then printf q >&3; fi
  [ -n "$server" ] && wait "$server"
  exec 3>&- 4>&-
  rm -f req resp
  mkfifo req resp
  exec 3<>req 4<>resp
  bin/proj serve <&3 >&4 &
  server=$!
  pings=0
}

status
files="str hash table sort main sys"
for f in $files; do compile "$f"; done
tcc -nostdlib -static -o bin/proj obj/*.o || failed build link
start_server
while :; do
  iter=$((iter + 1))
  want=$iter
  # after a step failed with the disk full, the sources it was editing may be cut short: start again from the tree
  # (every edit is made again below: the iteration's define and this iteration's revision comment)
  if [ "$rebuild" = 1 ]; then tar -xzf "$tree" || failed build "unpack $tree"; fi
  [ "$iter" = "$brk" ] && want=$((iter + 1))
  sed -i "s/^#define ITER .*/#define ITER $want/" src/version.h
  # one more edit: a rotating file's revision comment (its object is rebuilt)
  set -- $files
  shift $((iter % 4))
  edited=$1
  sed -i "1s/rev [0-9]*/rev $iter/" "src/$edited.c"
  fresh=$rebuild
  if [ $((iter % 16)) = 0 ] || [ "$rebuild" = 1 ]; then
    rebuild=0
    rm -f obj/*.o
    for f in $files; do compile "$f"; done
  else
    compile "$edited" && compile main
  fi
  tcc -nostdlib -static -o bin/proj.new obj/*.o && mv bin/proj.new bin/proj || failed build link
  [ "$fresh" = 1 ] && start_server # the one running may be a binary the full disk cut short
  got=$(bin/proj test "$iter")
  case "$got" in
    "ok $iter "*) ;;
    *) failed test "$got" ;;
  esac
  # commit: a compressed snapshot of the sources and the build, the last 8 kept (what a version control commit writes)
  tar -czf ".commits/$iter.tgz" src bin/proj || failed build "commit $iter"
  rm -f ".commits/$((iter - 8)).tgz"
  [ $((iter % 8)) = 0 ] && start_server
  echo >&3
  pings=$((pings + 1))
  n=
  read -r -t "$wait_s" n <&4
  served=$((served + 1))
  if [ -z "$n" ]; then
    failed serve "no answer to query $pings in $wait_s s"
    start_server
  elif [ "$n" != "$pings" ]; then
    failed serve "answered $n to query $pings"
  fi
  status
done
