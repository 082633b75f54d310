#ifndef WAYMARK_CSYSTEM_SHIM_H
#define WAYMARK_CSYSTEM_SHIM_H
#include <sys/prctl.h>
#include <sys/timex.h>

/* Linux calls that Glibc's Swift module does not bring. */

/* prctl(2) is variadic, which Swift cannot call. Marks the process not
   dumpable: no core file, no ptrace or /proc/PID/mem by the same user. */
static inline int csystem_set_undumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

/* adjtimex(2) read-only: 1 when the kernel says the wall clock is
   synchronized (no STA_UNSYNC, not TIME_ERROR), as timedatectl reports it. */
static inline int csystem_clock_synchronized(void) {
    struct timex status = { 0 };
    int state = adjtimex(&status);
    return state >= 0 && state != TIME_ERROR && !(status.status & STA_UNSYNC);
}
#endif
