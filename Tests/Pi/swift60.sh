#!/bin/sh
# make test's second compiler: Debian 13's own swiftlang 6.0.3, what
# `apt install swiftlang` gives on Raspberry Pi OS trixie, run natively in a
# trixie amd64 root. Every target and test builds with it, and the suites
# that start no peer process run with it (the peers are the first
# compiler's tests to run). The root and the build are cached outside the
# clone (WAYMARK_CACHE), so a second run rebuilds only what changed.
set -eu
pi=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$pi/../.." && pwd)
. "$pi/roots.sh"
cache=${WAYMARK_CACHE:-/var/cache/waymark}
mkdir -p "$cache/build-swift60"

# Whole test targets that start no peer, and the peer-free suites of the others.
suites='^(AdvertisementsTests|BasicsTests|CaptureTests|FuzzTests|LifecycleTests|RadioTests|RecordingTests|StorageTests|TelemetryTests|VocabularyTests)\.'
suites="$suites|\.(ManagementCommandTests|ManagementEventTests|DBusMarshalTests|BluetoothAddressTests|ClockJumpTests"
suites="$suites|ConfigurationTests|ConfigFileSyntaxTests|DiskFullTests|StoreFaultTests|SampleStamperTests|RecordingExecutorTests|KernelMonitorTests|InvocationTests|ReplayedLocationTests|PairingMonitorPatternTests|PrivateAddressTests|BackoffTests|GPSDReportTests"
suites="$suites|NMEAFixAssemblerTests|NMEASentenceTests|HomeAssistantDiscoveryTests|OutboxCursorTests|TrackerAttributesTests|HealthFactsDBusTests)/"

printf 'making the trixie amd64 root with swiftlang 6.0.3 (cached in %s)… ' "$cache"
started=$(date +%s)
root=$("$pi/debian-root.sh" amd64 trixie $BUILD_PACKAGES)
echo "done in $(( $(date +%s) - started )) s"
swift60="$pi/in-root.sh --bind $top:/src --bind $cache/build-swift60:/build $root swift"
where="--package-path /src --scratch-path /build"
STEP_LOG=/tmp/waymark-swift60-build.log "$top/Tests/step.sh" "building every target and test with $("$pi/in-root.sh" "$root" swift --version 2>/dev/null | head -n 1)" \
    $swift60 build $where --build-tests
export STEP_LOG=/tmp/waymark-swift60-test.log
"$top/Tests/step.sh" "running the suites that start no peer with swiftlang 6.0.3" $swift60 test $where --skip-build --no-parallel --filter "$suites"
grep -E '^. Test run with' "$STEP_LOG" | sed 's/^/  swiftlang 6.0.3: /'
