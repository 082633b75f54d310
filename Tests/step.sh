#!/bin/sh
# Runs one step of a make target with one line of output:
#   step.sh "building waymark" COMMAND...
# prints "building waymark… done in 41 s". The command's own output goes to
# a log (STEP_LOG, or /tmp/waymark-step.log), shown only when it fails.
set -eu
what=$1; shift
log=${STEP_LOG:-/tmp/waymark-step.log}
printf '%s… ' "$what"
started=$(date +%s)
if "$@" > "$log" 2>&1; then
    echo "done in $(( $(date +%s) - started )) s"
else
    status=$?
    echo "failed (exit $status); the last lines of $log:"
    tail -n 40 "$log"
    exit "$status"
fi
