#!/bin/sh
# Prints the Debian archive this machine's apt uses (the URI of its first
# `deb` source that is not the security archive), for debootstrap: roots
# then come from the same mirror or proxy as the machine's own packages.
# WAYMARK_DEBIAN_ARCHIVE overrides it.
set -eu
if [ -n "${WAYMARK_DEBIAN_ARCHIVE:-}" ]; then echo "$WAYMARK_DEBIAN_ARCHIVE"; exit 0; fi
archive=$(
    {
        # deb822 stanzas: the URIs of a stanza of Types deb whose Suites are not -security.
        for file in /etc/apt/sources.list.d/*.sources; do
            [ -r "$file" ] && awk -v RS= '/(^|\n)Types:[^\n]*deb([ \n]|$)/ && !/Suites:[^\n]*-security/ && /Suites:[^\n]*(bookworm|trixie|stable|testing|sid|bullseye)/ {
                if (match($0, /URIs:[ \t]*[^ \t\n]+/)) { uri = substr($0, RSTART, RLENGTH); sub(/URIs:[ \t]*/, "", uri); print uri }
            }' "$file"
        done
        # One-line sources: deb [options] URI SUITE COMPONENT...
        for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
            [ -r "$file" ] && awk '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                if ($(i + 1) !~ /-security/ && $(i + 1) ~ /(bookworm|trixie|stable|testing|sid|bullseye)/) print $i }' "$file"
        done
    } 2>/dev/null | head -n 1
)
if [ -z "$archive" ]; then
    echo "no Debian archive in /etc/apt/sources.list or /etc/apt/sources.list.d: set WAYMARK_DEBIAN_ARCHIVE to one (its URL, ending in /debian)" >&2
    exit 1
fi
echo "$archive"
