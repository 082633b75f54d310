#!/bin/sh
# Makes waymark_VERSION_ARCH.deb from a built release binary:
#   package.sh ARCH VERSION BINARY OUTDIR [ROOT]
# ROOT is the Debian root of the package's target (its dpkg and libraries);
# without it, this machine's. The binary runs there (under qemu-user for a
# foreign architecture) to write the man page, the completion and the
# default config, and dpkg-shlibdeps reads the libraries it links from
# there, so Depends names that release's packages (trixie's t64 names, say).
set -eu
arch=$1 version=$2 binary=$3 out=$4 root=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/waymark-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
pkg=$stage/pkg

# Runs a command in the target's root (or here), with the stage at /stage.
target() {
    if [ -n "$root" ]; then
        "$top/Tests/Pi/in-root.sh" --bind "$stage:/stage" "$root" "$@"
    else
        (cd "$stage" && "$@")
    fi
}
in_stage() { if [ -n "$root" ]; then echo "/stage/$1"; else echo "$stage/$1"; fi; }

# systemd's own units moved to /usr/lib with trixie's merged /usr.
unitdir=/usr/lib/systemd/system
[ "$(target sh -c '. /etc/os-release; echo "$VERSION_CODENAME"')" = bookworm ] && unitdir=/lib/systemd/system

install -D -m 0755 "$binary" "$pkg/usr/bin/waymark"
target strip --strip-unneeded --remove-section=.comment --remove-section=.note "$(in_stage pkg/usr/bin/waymark)"
sed 's|@BINDIR@|/usr/bin|' "$top/hardware/waymark.service" | install -D -m 0644 /dev/stdin "$pkg$unitdir/waymark.service"
install -D -m 0644 "$top/hardware/io.waymark.Gateway1.conf" "$pkg/usr/share/dbus-1/system.d/io.waymark.Gateway1.conf"
install -D -m 0644 "$top/hardware/waymark.sysusers" "$pkg/usr/lib/sysusers.d/waymark.conf"
install -D -m 0644 "$top/hardware/waymark.tmpfiles" "$pkg/usr/lib/tmpfiles.d/waymark.conf"
install -D -m 0644 "$top/udev/60-waymark.rules" "$pkg/usr/lib/udev/rules.d/60-waymark.rules"
# The package's version, for the gateway_info the daemon sends the fleet.
printf '%s\n' "$version" | install -D -m 0644 /dev/stdin "$pkg/usr/lib/waymark/package-version"

waymark=$(in_stage pkg/usr/bin/waymark)
mkdir -p "$pkg/etc/waymark" "$pkg/usr/share/man/man1" "$pkg/usr/share/man/man5" "$pkg/usr/share/bash-completion/completions" "$pkg/usr/share/doc/waymark"
target "$waymark" config --defaults > "$pkg/etc/waymark/waymark.conf"
target "$waymark" manual waymark | gzip -9n > "$pkg/usr/share/man/man1/waymark.1.gz"
target "$waymark" manual waymark.conf | gzip -9n > "$pkg/usr/share/man/man5/waymark.conf.5.gz"
target "$waymark" completion > "$pkg/usr/share/bash-completion/completions/waymark"
chmod 0644 "$pkg/etc/waymark/waymark.conf" "$pkg/usr/share/man/man1/waymark.1.gz" "$pkg/usr/share/man/man5/waymark.conf.5.gz" \
    "$pkg/usr/share/bash-completion/completions/waymark"

doc=$pkg/usr/share/doc/waymark
install -m 0644 "$here/copyright" "$doc/copyright"
gzip -9n < "$top/README.md" > "$doc/README.md.gz"
gzip -9n < "$top/CHANGELOG.md" > "$doc/CHANGELOG.md.gz"
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
date=$(git -C "$top" log -1 --format=%aD 2>/dev/null || date -R)
cat > "$stage/changelog" <<CHANGES
waymark ($version) unstable; urgency=medium

  * Built from commit $commit. The project's history is in CHANGELOG.md.gz.

 -- Waymark team <team@waymark.invalid>  $date
CHANGES
gzip -9n < "$stage/changelog" > "$doc/changelog.gz"
chmod 0644 "$doc"/*
# The boot checks of fleet update tools (README: "Health, for fleet updates").
for example in "$top"/hardware/fleet/*; do install -D -m 0644 "$example" "$doc/examples/${example##*/}"; done

# Depends from the libraries the binary links, as the target's dpkg knows them.
mkdir -p "$stage/debian"
printf 'Source: waymark\n\nPackage: waymark\nArchitecture: any\n' > "$stage/debian/control"
shlibs=$(target sh -c "cd $(in_stage .) && dpkg-shlibdeps -O -e$waymark" 2>"$stage/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { cat "$stage/shlibdeps.log" >&2; echo "dpkg-shlibdeps found no dependencies" >&2; exit 1; }

mkdir -p "$pkg/DEBIAN"
for script in postinst prerm postrm; do install -m 0755 "$here/$script" "$pkg/DEBIAN/$script"; done
echo /etc/waymark/waymark.conf > "$pkg/DEBIAN/conffiles"
(cd "$pkg" && find . -path ./DEBIAN -prune -o -type f ! -path ./etc/\* -printf '%P\0' | sort -z | xargs -0 md5sum) > "$pkg/DEBIAN/md5sums"
size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
cat > "$pkg/DEBIAN/control" <<CONTROL
Package: waymark
Version: $version
Architecture: $arch
Maintainer: Waymark team <team@waymark.invalid>
Installed-Size: $size
Depends: $shlibs, systemd, dbus, bluez, init-system-helpers (>= 1.52)
Recommends: gpsd
Suggests: libjs-leaflet
Section: net
Priority: optional
Description: vehicle gateway: BLE beacon and GPS trip recorder
 Waymark runs on a Raspberry Pi in a car. It listens through BlueZ for the
 car's BLE beacon and for paired BLE sensor tags, reads position from gpsd
 or an NMEA receiver, records trips while a logged-in session is
 authorized, and uploads them to the fleet backend from a durable queue.
 .
 The service starts once /etc/waymark/waymark.conf names a backend; then
 log in once with "sudo -u waymark waymark login".
CONTROL
mkdir -p "$out"
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out/waymark_${version}_$arch.deb" > /dev/null
echo "$out/waymark_${version}_$arch.deb"
