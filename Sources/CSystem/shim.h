#ifndef WAYMARK_CSYSTEM_SHIM_H
#define WAYMARK_CSYSTEM_SHIM_H
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timex.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Linux calls that Glibc's Swift module does not bring. */

/* Flushes stdout and says whether any write to it failed since the start
   (the stream's error flag is sticky): 0, or an errno (EIO when the failed
   write's own errno is gone). Swift cannot name glibc's stdout safely. */
static inline int csystem_finish_stdout(void) {
    errno = 0;
    int flushed = fflush(stdout);
    if (flushed == 0 && !ferror(stdout)) return 0;
    return errno ? errno : EIO;
}

/* prctl(2) is variadic, which Swift cannot call. Marks the process not
   dumpable: no core file, no ptrace or /proc/PID/mem by the same user. */
static inline int csystem_set_undumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

/* No transparent huge pages for this process (kept across exec). */
static inline int csystem_disable_huge_pages(void) { return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0); }

/* adjtimex(2) read-only: 1 when the kernel says the wall clock is
   synchronized (no STA_UNSYNC, not TIME_ERROR), as timedatectl reports it.
   Under waymark.service's system call filter, which has no @clock call,
   adjtimex fails with EPERM; then systemd-timesyncd's flag file, touched at
   each synchronization and gone at boot with /run, answers instead. */
static inline int csystem_clock_synchronized(const char *timesync_flag) {
    struct timex status = { 0 };
    int state = adjtimex(&status);
    if (state < 0) return errno == EPERM && access(timesync_flag, F_OK) == 0;
    return state != TIME_ERROR && !(status.status & STA_UNSYNC);
}

/* recvmmsg(2): Glibc declares it only under _GNU_SOURCE, which Swift's
   Glibc module is built without; the same layout under our own name. */
struct csystem_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};
extern int csystem_recvmmsg(int fd, struct csystem_mmsghdr *vector, unsigned int count, int flags,
                            struct timespec *timeout) __asm__("recvmmsg");

/* Reads up to `count` (at most 64) waiting datagrams, without blocking, into
   consecutive `size`-byte slots of `buffer`. Their lengths go to `lengths`,
   -1 for one cut short by its slot. Returns how many were read, or -1 with
   errno set. */
static inline int csystem_recv_datagrams(int fd, unsigned char *buffer, unsigned int size, unsigned int count, int *lengths) {
    struct csystem_mmsghdr messages[64];
    struct iovec vectors[64];
    if (count > 64) count = 64;
    memset(messages, 0, sizeof messages);
    for (unsigned int i = 0; i < count; i++) {
        vectors[i].iov_base = buffer + (size_t)i * size;
        vectors[i].iov_len = size;
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
    }
    int received = csystem_recvmmsg(fd, messages, count, MSG_DONTWAIT, NULL);
    for (int i = 0; i < received; i++) {
        lengths[i] = (messages[i].msg_hdr.msg_flags & MSG_TRUNC) ? -1 : (int)messages[i].msg_len;
    }
    return received;
}
/* Names the calling thread (at most 15 bytes), as ps and top show it. */
static inline void csystem_set_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

/* ioctl(2) is variadic: the bytes waiting to be read on a socket
   (FIONREAD), or -1 with errno set. */
static inline int csystem_bytes_waiting(int fd) {
    int waiting = 0;
    return ioctl(fd, FIONREAD, &waiting) < 0 ? -1 : waiting;
}
#endif
