#!/bin/sh
# Makes the trixie roots that are missing from the cache, at the same time:
#   make-roots.sh        the compiler root (amd64) and the arm64 build root
#   make-roots.sh pi     and the virtual Pi's root
# Each is one emulated dpkg run for most of its time, on one core, so two
# at once take little more than the longest alone. Prints one line.
set -eu
pi=$(cd "$(dirname "$0")" && pwd)
. "$pi/roots.sh"
cache=${WAYMARK_CACHE:-/var/cache/waymark}
printf 'making the trixie roots%s (cached in %s)… ' "${1:+ and the virtual Pi's}" "$cache"
started=$(date +%s)
pids=""
"$pi/debian-root.sh" amd64 trixie $BUILD_PACKAGES > /dev/null & pids="$pids $!"
"$pi/debian-root.sh" arm64 trixie $ARM64_BUILD_PACKAGES > /dev/null & pids="$pids $!"
if [ "${1:-}" = pi ]; then
    "$pi/debian-root.sh" arm64 trixie $PI_PACKAGES > /dev/null & pids="$pids $!"
fi
failed=0
for pid in $pids; do wait "$pid" || failed=1; done
[ "$failed" = 0 ] || { echo failed; exit 1; }
echo "done in $(( $(date +%s) - started )) s"
