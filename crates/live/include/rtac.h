/*
 * rtac.h - receiver-side TCP window control on a live Linux socket.
 *
 * The C interface of rtac-live (librtac_live.so). Attach a controller to
 * a connected TCP socket, report every read, detach before closing:
 *
 *     char err[256];
 *     rtac_socket *s = rtac_attach(fd, "rtac", "bdp=209", NULL, err, sizeof err);
 *     if (!s) { fprintf(stderr, "rtac: %s\n", err); ... go on without it ... }
 *     while ((n = read(fd, buf, sizeof buf)) > 0) {
 *         rtac_on_read(s, n);
 *         ...
 *     }
 *     rtac_detach(s);
 *     close(fd);
 *
 * Once per RTT estimate, rtac_on_read runs a control step: it reads
 * TCP_INFO, feeds the controller the bytes read and the kernel's receiver
 * RTT estimate (tcpi_rcv_rtt), and applies the controller's window with
 * TCP_WINDOW_CLAMP (set again at every step, because receive auto-tuning
 * raises the clamp when it grows the buffer).
 *
 * Connections that share one access link (the downloads of one program
 * through one interface) can share one window budget instead: the
 * aggregate of their rates runs one RTAC, and each connection gets its
 * share (crates/core/src/controller/link_budget.rs):
 *
 *     rtac_group *g = rtac_group_new("rtac", NULL, err, sizeof err);
 *     rtac_socket *a = rtac_attach_group(g, fd1, NULL, err, sizeof err);
 *     rtac_socket *b = rtac_attach_group(g, fd2, NULL, err, sizeof err);
 *     ... rtac_on_read(a, n), rtac_on_read(b, m) as above ...
 *     rtac_detach(a); rtac_detach(b); rtac_group_free(g);
 *
 * rtac_attach gives each socket its own controller, whatever its "budget"
 * parameter says; rtac_attach_group puts the socket in the group's budget
 * when the controller has a per-link form ("rtac" without
 * "budget=connection"), else gives it its own controller too. Putting
 * connections that cross different access links into one group makes them
 * share a queue estimate they do not share: one group per link.
 *
 * Controllers: "none", "static", "autotuning", "drwa", "rtac", "drw".
 * Parameters: "key=value" items separated by commas; unknown keys and bad
 * values are errors that name the key (see crates/core/README.md).
 *
 * A handle is internally locked: several threads may share it. No function
 * aborts or unwinds; failures are return values. Link with -lrtac_live.
 */
#ifndef RTAC_H
#define RTAC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A controller attached to one socket. */
typedef struct rtac_socket rtac_socket;

/* One control step. Zero means "not known yet" for the estimates and
 * "no limit" for rwnd_bytes. */
typedef struct rtac_step {
    double t_s;                 /* seconds since the handle was created */
    uint64_t rtt_us;            /* the controller's RTT estimate */
    uint64_t rtt_min_us;        /* its minimum RTT (with any compensation) */
    uint64_t window_bytes;      /* its estimate of the sender's window */
    uint64_t rwnd_bytes;        /* the window applied (TCP_WINDOW_CLAMP) */
    uint64_t kernel_rcv_rtt_us; /* tcpi_rcv_rtt, the sample fed at this step */
    uint64_t read_bytes;        /* bytes read since the previous step */
    uint64_t steps;             /* control steps so far */
} rtac_step;

/* A window budget shared by the sockets attached to it. */
typedef struct rtac_group rtac_group;

/* A group's budget. Zero means "not known yet". */
typedef struct rtac_group_info {
    uint32_t shared;         /* 1: one budget; 0: each socket its own controller */
    uint32_t probing;        /* 1 while a drain probe holds every window down */
    uint64_t connections;    /* sockets in the budget */
    uint64_t window_bytes;   /* the aggregate window */
    double rate_bytes_s;     /* the rate it allows (window / smoothed RTT) */
    uint64_t queue_delay_us; /* the estimate of the shared queueing delay */
    uint64_t base_rtt_us;    /* the aggregate's base RTT */
} rtac_group_info;

/* Checks a controller name and parameters (params may be NULL).
 * Returns 0, or -1 with a NUL-terminated message in err (err may be NULL). */
int rtac_check_config(const char *controller, const char *params, char *err, size_t err_len);

/* Starts controlling the connected TCP socket fd (IPv4 or IPv6). log_path
 * (NULL: none) receives one row per control step: CSV, or JSON lines if it
 * ends in .jsonl. Applies the controller's initial window. Returns NULL
 * with a message in err if the configuration is invalid, fd is not a TCP
 * socket, or a socket query fails. */
rtac_socket *rtac_attach(int fd, const char *controller, const char *params, const char *log_path, char *err,
                         size_t err_len);

/* Makes a group: one budget of controller/params (as rtac_attach takes
 * them) for the sockets attached with rtac_attach_group. Returns NULL with
 * a message in err on a bad configuration. */
rtac_group *rtac_group_new(const char *controller, const char *params, char *err, size_t err_len);

/* As rtac_attach, with the socket in group g's budget: its window is its
 * share. The handle is used and detached like rtac_attach's. */
rtac_socket *rtac_attach_group(const rtac_group *g, int fd, const char *log_path, char *err, size_t err_len);

/* Copies the group's budget into *out. Returns 0, or -1 if g or out is NULL. */
int rtac_group_state(const rtac_group *g, rtac_group_info *out);

/* Frees the group handle (NULL is ignored). Sockets attached to it keep
 * their budget until they are detached. */
void rtac_group_free(rtac_group *g);

/* Reports that the program read `bytes` from the socket (values <= 0 are
 * ignored). Returns 1 if a control step ran, 0 if not, -1 if control has
 * stopped after an error (see rtac_error): the socket then has its
 * original clamp back, and reading may simply go on. */
int rtac_on_read(rtac_socket *s, long long bytes);

/* Runs a control step now. Returns 0, or -1 if control has stopped. */
int rtac_step_now(rtac_socket *s);

/* Copies the last control step into *out. Returns 0, or -1 if there is
 * none or control has stopped. */
int rtac_last_step(const rtac_socket *s, rtac_step *out);

/* Why control stopped, or NULL while it runs. Valid until rtac_detach. */
const char *rtac_error(const rtac_socket *s);

/* Stops controlling (restores the socket's original TCP_WINDOW_CLAMP) and
 * frees the handle. Call it before closing the socket. NULL is ignored. */
void rtac_detach(rtac_socket *s);

/* The library version, e.g. "0.1.0". */
const char *rtac_version(void);

#ifdef __cplusplus
}
#endif

#endif /* RTAC_H */
