#!/bin/sh
# Runs an example that must fail at once with its reason:
#   fails-fast.sh "what it must say" program [args...]
# passes when the program exits non-zero within 20 s and says it.
set -u
says=$1
shift
out=$(timeout 20 "$@" 2>&1)
rc=$?
if [ $rc -eq 124 ]; then
  echo "still running after 20 s: $*"
  exit 1
fi
if [ $rc -eq 0 ]; then
  echo "succeeded, where it had to fail: $*"
  exit 1
fi
case $out in
  *"$says"*) echo "failed at once (exit $rc): $out"; exit 0 ;;
esac
echo "failed (exit $rc) without saying \"$says\": $out"
exit 1
