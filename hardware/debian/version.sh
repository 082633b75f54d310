#!/bin/sh
# The package version: the newest v* tag as `git describe` gives it
# (v0.2.0-5-gabc1234 becomes 0.2.0+5.gabc1234), or without a tag the
# source's version, the number of commits and the commit (0.1.0+git231.gabc1234).
# Both grow with every commit, so apt sees each build as an upgrade.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
if described=$(git -C "$top" describe --tags --match 'v[0-9]*' 2>/dev/null); then
    echo "${described#v}" | sed 's/-\([0-9]*\)-g/+\1.g/'
else
    base=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' "$top/Sources/Basics/Waymark.swift")
    echo "$base+git$(git -C "$top" rev-list --count HEAD).g$(git -C "$top" rev-parse --short HEAD)"
fi
