#!/bin/sh
# Installs the Debian packages named that are missing, with one line of
# output ("installing 9 Debian packages… done in 41 s"); apt's own output
# goes to /tmp/waymark-apt.log, shown only when apt fails. Not as root, it
# prints the apt-get line to run instead, and fails.
set -eu
missing=""
for package in "$@"; do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed' || missing="$missing $package"
done
[ -n "$missing" ] || exit 0
count=$(echo $missing | wc -w)
noun="Debian packages"
[ "$count" = 1 ] && noun="Debian package"
if [ "$(id -u)" != 0 ]; then
    echo "$count $noun missing; run: sudo apt-get install$missing"
    exit 1
fi
STEP_LOG=/tmp/waymark-apt.log exec "$(dirname "$0")/step.sh" "installing $count $noun" sh -c \
    "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing"
