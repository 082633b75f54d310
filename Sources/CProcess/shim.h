#ifndef WAYMARK_CPROCESS_SHIM_H
#define WAYMARK_CPROCESS_SHIM_H
#include <sys/prctl.h>

/* prctl(2) is variadic, which Swift cannot call. Marks the process not
   dumpable: no core file, no ptrace or /proc/PID/mem by the same user. */
static inline int cprocess_set_undumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
#endif
