#!/bin/sh
# greenboot: /etc/greenboot/check/required.d/50-waymark.sh. greenboot runs
# it once the system is up; a failure marks the boot bad, and after its
# retries, rolls back. The daemon may still be starting: give it two minutes.
for attempt in 1 2 3 4 5 6 7 8 9 10 11 12; do
    waymark health && exit 0
    [ $? -eq 10 ] || exit 1
    sleep 10
done
exit 1
