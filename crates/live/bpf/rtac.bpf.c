// SPDX-License-Identifier: (MIT OR Apache-2.0) AND GPL-2.0
/*
 * The kernel side of rtac's BPF mode: a sock_ops program attached to a
 * cgroup v2 and an iter/tcp program for sockets opened before it.
 *
 * The controller's math runs in user space (rtac-core, `src/bpf/`). This
 * program only measures and applies:
 *   - once per step interval (user space sets it to the controller's RTT
 *     estimate) it sends a sample of the socket's receive state to the ring
 *     buffer `samples`: the kernel's receiver RTT estimate (rcv_rtt_est),
 *     the bytes the program has read (copied_seq), the data segments in
 *     and those that came out of order (a hole: a segment lost);
 *     user space answers each sample in `clamps` (by socket cookie) with
 *     the window to hold and the next interval;
 *   - on every outgoing segment (BPF_SOCK_OPS_HDR_OPT_LEN_CB, enabled by
 *     BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG) it re-applies that window with
 *     bpf_setsockopt(TCP_WINDOW_CLAMP) where the kernel has moved it: Linux
 *     receive auto-tuning overwrites window_clamp whenever it grows the
 *     buffer, so a clamp set once does not hold.
 * The per-segment path is kept short, since it runs for every ACK the
 * receiver sends: the socket's state is in its own storage (no hash
 * lookup), `clamps` is read only while an answer is awaited and once per
 * batch of answers user space has written (the `answers` count), and the
 * liveness of user space is checked once per sample. A sample of a socket
 * sampled more often than its wake gap (WAKE_GAP_NS, or what user space
 * sets) wakes user space at most once per gap (the others wait in the
 * ring for the next wake-up).
 * With the uplink on, user space also bounds a sending socket's congestion
 * window (TCP_BPF_SNDCWND_CLAMP) from the sender's RTT (srtt_us).
 * Safety: when user space has not written its heartbeat for `stale_ns`
 * (killed, stuck) or asked for release, each controlled socket gets its
 * kernel window back once (clamp = the larger of the clamp it had before
 * and its receive buffer) and is then left alone. A socket whose sample
 * stays unanswered for `stale_ns` while user space is alive (its answer
 * could not be stored, its sample was lost, user space tracks as many
 * sockets as it may) is given back to the kernel the same way, for good,
 * and counted in `counters`: a socket that cannot be tracked gets Linux's
 * own window (auto-tuning), never a window held small.
 */
#include <linux/types.h>
#include <linux/bpf.h>

#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name

#define SOL_TCP 6
#define TCP_WINDOW_CLAMP 10
#define TCP_ESTABLISHED 1
#define TCP_CLOSE 7
#ifndef TCP_BPF_SOCK_OPS_CB_FLAGS_VAL
#define TCP_BPF_SOCK_OPS_CB_FLAGS_VAL 1008
#endif

static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *)BPF_FUNC_map_lookup_elem;
static long (*bpf_map_update_elem)(void *map, const void *key, const void *value, __u64 flags) =
    (void *)BPF_FUNC_map_update_elem;
static long (*bpf_map_delete_elem)(void *map, const void *key) = (void *)BPF_FUNC_map_delete_elem;
static __u64 (*bpf_ktime_get_ns)(void) = (void *)BPF_FUNC_ktime_get_ns;
static __u64 (*bpf_get_socket_cookie)(void *ctx) = (void *)BPF_FUNC_get_socket_cookie;
static long (*bpf_setsockopt)(void *sk, int level, int optname, void *optval, int optlen) =
    (void *)BPF_FUNC_setsockopt;
static long (*bpf_sock_ops_cb_flags_set)(struct bpf_sock_ops *ops, int flags) =
    (void *)BPF_FUNC_sock_ops_cb_flags_set;
static long (*bpf_ringbuf_output)(void *rb, void *data, __u64 size, __u64 flags) =
    (void *)BPF_FUNC_ringbuf_output;
static void *(*bpf_sk_storage_get)(void *map, void *sk, void *value, __u64 flags) =
    (void *)BPF_FUNC_sk_storage_get;
static long (*bpf_sk_storage_delete)(void *map, void *sk) = (void *)BPF_FUNC_sk_storage_delete;

/* Kernel types, relocated against the running kernel's BTF (CO-RE): only
 * the fields read here, by name. */
#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)
struct in6_addr {
	union {
		__u8 u6_addr8[16];
	} in6_u;
};
struct ns_common {
	unsigned int inum;
};
struct net {
	struct ns_common ns;
};
struct sock_common {
	__be32 skc_daddr;
	__be16 skc_dport;
	unsigned short skc_family;
	volatile unsigned char skc_state;
	struct in6_addr skc_v6_daddr;
	struct {
		struct net *net;
	} skc_net;
};
struct kernfs_node {
	__u64 id;
};
struct cgroup;
struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys_state *parent;
};
struct cgroup {
	struct cgroup_subsys_state self;
	struct kernfs_node *kn;
};
struct sock_cgroup_data {
	struct cgroup *cgroup;
};
struct sock {
	struct sock_common __sk_common;
	int sk_rcvbuf;
	struct sock_cgroup_data sk_cgrp_data;
};
struct inet_sock {
	struct sock sk;
};
struct inet_connection_sock {
	struct inet_sock icsk_inet;
	struct {
		__u16 rcv_mss;
	} icsk_ack;
};
struct tcp_sock {
	struct inet_connection_sock inet_conn;
	__u32 rcv_nxt;
	__u32 copied_seq;
	__u32 rcv_wnd;
	__u32 window_clamp;
	__u32 data_segs_in;
	__u32 srtt_us;
	__u32 snd_cwnd;
	__u32 snd_cwnd_clamp;
	__u32 mss_cache;
	__u32 rcv_ooopack;
	__u64 tcp_mstamp;
	__u64 bytes_received;
	__u64 bytes_acked;
	struct {
		__u32 rtt_us;
	} rcv_rtt_est;
	struct {
		struct {
			__u32 t;
			__u32 v;
		} s[3];
	} rtt_min;
};
struct bpf_iter_meta;
struct bpf_iter__tcp {
	struct bpf_iter_meta *meta;
	struct sock_common *sk_common;
};
#pragma clang attribute pop

static struct tcp_sock *(*bpf_skc_to_tcp_sock)(void *sk) = (void *)BPF_FUNC_skc_to_tcp_sock;

/* Shared with user space: src/bpf/abi.rs mirrors these layouts. */
struct rtac_ctl {
	__u64 heartbeat_ns; /* CLOCK_MONOTONIC of user space's last heartbeat */
	__u64 stale_ns;     /* after this long without one, release every socket */
	__u64 cgroup_id;    /* iter/tcp adopts sockets of this cgroup and its
			     * descendants (0: every socket) */
	__u32 release;      /* 1: release every socket now */
	__u32 uplink;       /* 1: bound senders too (else a pure sender is let go) */
	__u32 initial_clamp; /* the controller's window before its first step */
	__u32 reserved;
};

struct rtac_clamp {
	__u32 clamp;        /* TCP_WINDOW_CLAMP in bytes; 0 = none */
	__u32 cwnd_clamp;   /* uplink: TCP_BPF_SNDCWND_CLAMP in packets; 0 = none */
	__u64 interval_ns;  /* time between two samples */
	__u32 seq;          /* the sample this answers */
	__u32 wake_gap_us;  /* how long this socket's samples may wait in the
			     * ring before one wakes user space (0: WAKE_GAP_NS) */
};

/* Per socket, in the socket's local storage (not shared with user space). */
struct rtac_state {
	__u64 cookie;
	__u64 last_sample_ns;
	__u64 interval_ns;  /* from user space's last answer */
	__u64 answers;      /* `answers` when this socket last looked */
	__u64 wake_gap_ns;  /* from user space's last answer; 0: WAKE_GAP_NS */
	__u32 seq;          /* the last sample's number */
	__u32 answered;     /* the number of the sample last answered */
	__u32 want;         /* the window clamp to hold, bytes; 0 = none */
	__u32 cwnd_want;    /* uplink: the cwnd clamp to hold, packets; 0 = none */
	__u32 orig_clamp;   /* window_clamp when first seen */
	__u32 applied;      /* 1 while a clamp of ours may be in force */
	__u32 orig_cwnd_clamp;
	__u32 cwnd_applied; /* 1 while a cwnd clamp of ours may be in force */
	__u64 asked_ns;     /* when the oldest unanswered sample was sent */
};

#define SAMPLE_NEW 1
#define SAMPLE_CLOSED 2
#define SAMPLE_ADOPTED 4
#define SAMPLE_GIVEN_UP 8 /* with SAMPLE_CLOSED: no answer came, the socket is the kernel's */

struct rtac_sample {
	__u64 cookie;
	__u64 t_ns;
	__u64 bytes_received;
	__u32 copied_seq;
	__u32 rcv_nxt;
	__u32 rcv_rtt_us;   /* rcv_rtt_est.rtt_us: the smoothed RTT << 3 */
	__u32 rcv_wnd;
	__u32 window_clamp;
	__u32 data_segs_in;
	__u32 rcv_mss;
	__u32 flags;
	__u32 min_rtt_us;   /* the connection's minimum RTT (handshake) */
	__u16 family;       /* AF_INET or AF_INET6 */
	__u16 dport;        /* peer port, network order */
	__u8 daddr[16];     /* peer address (IPv4: first 4 bytes) */
	__u64 bytes_acked;  /* the sending side, for the uplink */
	__u32 srtt_us;      /* the sender's smoothed RTT << 3 */
	__u32 snd_cwnd;
	__u32 mss_cache;
	__u32 seq;          /* numbers the samples of a socket, from 1 */
	__u32 rcv_ooopack;  /* segments received out of order */
	__u32 netns;        /* the socket's network namespace (ns.inum), first sample */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rtac_ctl);
} ctl SEC(".maps");

/* Answers by socket cookie. Allocated per entry (no preallocation), so
 * user space sizes it from the system's limits at load time
 * (`set_max_entries`); an answer that cannot be stored leaves its socket
 * unanswered, and the socket is given back to the kernel (above). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct rtac_clamp);
} clamps SEC(".maps");

/* Sockets whose end (close, or given back to the kernel) could not be sent
 * through the ring buffer (full): user space drains it, so that its table
 * and `clamps` lose no entry. Sized like `clamps`. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u32);
} ended SEC(".maps");

/* What could not be done, per CPU (user space sums them; src/bpf/abi.rs
 * names the indices). */
#define COUNT_GIVEN_UP 0    /* sockets given back: sample unanswered for stale_ns */
#define COUNT_LOST_SAMPLE 1 /* samples the full ring buffer refused */
#define COUNT_NO_STORAGE 2  /* sockets without storage (memory): never controlled */
#define COUNT_LOST_END 3    /* ends neither the ring nor `ended` could take */
#define COUNTERS 4
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rtac_state);
} state SEC(".maps");

/* How many batches of answers user space has written into `clamps`: it
 * adds one after each batch, so a socket awaiting an answer looks it up
 * only when there may be one. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} answers SEC(".maps");

/* When a sample last woke user space (CLOCK_MONOTONIC, ns). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} last_wake SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} samples SEC(".maps");

#define DEFAULT_INTERVAL_NS 10000000ULL
#define WAKE_GAP_NS 5000000ULL

/* The settings, if user space is alive (heartbeat fresh, no release). */
static struct rtac_ctl *user_space_alive(__u64 now)
{
	__u32 zero = 0;
	struct rtac_ctl *c = bpf_map_lookup_elem(&ctl, &zero);
	/* Signed: the socket's clock (below) may lag a heartbeat just written. */
	if (!c || c->release || (__s64)(now - c->heartbeat_ns) >= (__s64)c->stale_ns)
		return 0;
	return c;
}

/* Whether a sample of a socket wakes user space: always if the socket is
 * sampled less often than its wake gap (or opens or closes), else if no
 * sample has woken it for that gap (WAKE_GAP_NS unless user space set
 * another: a longer one for sub-millisecond paths). */
static __u64 wake(struct rtac_state *st, __u64 now, __u32 flags)
{
	__u32 zero = 0;
	__u64 *last = bpf_map_lookup_elem(&last_wake, &zero);
	if (!last)
		return 0;
	__u64 gap = st->wake_gap_ns ? st->wake_gap_ns : WAKE_GAP_NS;
	if (flags || st->interval_ns >= gap || (__s64)(now - *last) >= (__s64)gap) {
		*last = now;
		return BPF_RB_FORCE_WAKEUP;
	}
	return BPF_RB_NO_WAKEUP;
}

static void count(__u32 what)
{
	__u64 *n = bpf_map_lookup_elem(&counters, &what);
	if (n)
		*n += 1;
}

/* Sends a sample; whether the ring buffer took it. */
static int emit(struct tcp_sock *tp, struct rtac_state *st, __u64 now, __u32 flags)
{
	struct rtac_sample s = {};
	s.cookie = st->cookie;
	s.seq = st->seq;
	s.t_ns = now;
	s.bytes_received = tp->bytes_received;
	s.copied_seq = tp->copied_seq;
	s.rcv_nxt = tp->rcv_nxt;
	s.rcv_rtt_us = tp->rcv_rtt_est.rtt_us;
	s.rcv_wnd = tp->rcv_wnd;
	s.window_clamp = tp->window_clamp;
	s.data_segs_in = tp->data_segs_in;
	s.rcv_mss = tp->inet_conn.icsk_ack.rcv_mss;
	s.flags = flags;
	s.min_rtt_us = tp->rtt_min.s[0].v;
	s.bytes_acked = tp->bytes_acked;
	s.srtt_us = tp->srtt_us;
	s.snd_cwnd = tp->snd_cwnd;
	s.mss_cache = tp->mss_cache;
	s.rcv_ooopack = tp->rcv_ooopack;
	if (flags & SAMPLE_NEW) {
		struct sock_common *skc = &tp->inet_conn.icsk_inet.sk.__sk_common;
		s.family = skc->skc_family;
		s.dport = skc->skc_dport;
		if (s.family == 10 /* AF_INET6 */)
			__builtin_memcpy(s.daddr, skc->skc_v6_daddr.in6_u.u6_addr8, 16);
		else
			__builtin_memcpy(s.daddr, &skc->skc_daddr, 4);
		/* For user space's route lookup, which is per namespace. */
		if (__builtin_preserve_field_info(skc->skc_net, 2 /* BPF_FIELD_EXISTS */)) {
			struct net *net = skc->skc_net.net;
			if (net)
				s.netns = net->ns.inum;
		}
	}
	if (bpf_ringbuf_output(&samples, &s, sizeof(s), wake(st, now, flags)) != 0) {
		count(COUNT_LOST_SAMPLE);
		return 0;
	}
	return 1;
}

/* The last sample of a socket (closed, or given back to the kernel); if the
 * ring buffer is full, its cookie goes to `ended` for user space. */
static void end(struct tcp_sock *tp, struct rtac_state *st, __u64 now, __u32 flags)
{
	st->seq++;
	if (emit(tp, st, now, flags))
		return;
	if (bpf_map_update_elem(&ended, &st->cookie, &flags, BPF_ANY) != 0)
		count(COUNT_LOST_END);
}

/* Starts controlling a socket: its storage (`sk`: what the calling program
 * type passes to bpf_sk_storage_get) and its first sample. */
static void track(void *sk, struct tcp_sock *tp, __u64 cookie, __u32 flags)
{
	struct rtac_state *st = bpf_sk_storage_get(&state, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!st) {
		/* No state, no clamp: the kernel's own window. */
		count(COUNT_NO_STORAGE);
		return;
	}
	if (st->cookie)
		return;
	__u32 zero = 0;
	struct rtac_ctl *c = bpf_map_lookup_elem(&ctl, &zero);
	__u64 now = bpf_ktime_get_ns();
	st->cookie = cookie;
	st->last_sample_ns = now;
	st->interval_ns = DEFAULT_INTERVAL_NS;
	st->seq = 1;
	st->asked_ns = now;
	/* Until user space has answered the first sample, the controller's
	 * initial window. */
	st->want = c ? c->initial_clamp : 0;
	st->orig_clamp = tp->window_clamp;
	st->orig_cwnd_clamp = tp->snd_cwnd_clamp;
	emit(tp, st, now, flags);
}

static void forget(void *sk, struct tcp_sock *tp)
{
	struct rtac_state *st = bpf_sk_storage_get(&state, sk, 0, 0);
	if (!st || !st->cookie)
		return;
	end(tp, st, bpf_ktime_get_ns(), SAMPLE_CLOSED);
	bpf_map_delete_elem(&clamps, &st->cookie);
	st->cookie = 0;
}

/* Gives the kernel its receive window back: a clamp of at least what the
 * socket had before and what its buffer can hold (auto-tuning sets it from
 * the buffer again as it grows it). */
static void release_window(void *sk, struct tcp_sock *tp, struct rtac_state *st)
{
	if (!st->applied)
		return;
	int v = tp->inet_conn.icsk_inet.sk.sk_rcvbuf;
	if (v < (int)st->orig_clamp)
		v = st->orig_clamp;
	bpf_setsockopt(sk, SOL_TCP, TCP_WINDOW_CLAMP, &v, sizeof(v));
	st->applied = 0;
}

/* Gives the sender its congestion window clamp back (uplink). */
static void release_cwnd(void *sk, struct rtac_state *st)
{
	if (!st->cwnd_applied)
		return;
	int c = st->orig_cwnd_clamp;
	bpf_setsockopt(sk, SOL_TCP, TCP_BPF_SNDCWND_CLAMP, &c, sizeof(c));
	st->cwnd_applied = 0;
}

/* Gives the kernel its windows back, the congestion window's too. */
static void restore(void *sk, struct tcp_sock *tp, struct rtac_state *st)
{
	release_cwnd(sk, st);
	release_window(sk, tp, st);
}

#define SENDER_ACKED (1ULL << 20)
#define SENDER_RECEIVED (64ULL << 10)

/* A socket that has sent a megabyte and received almost nothing is a
 * sender: without the uplink there is nothing to apply to it, so its
 * per-segment callback (one per data segment it sends) is turned off. */
static void let_sender_go(struct bpf_sock_ops *ops, struct tcp_sock *tp, struct rtac_ctl *c)
{
	if (c->uplink || tp->bytes_acked < SENDER_ACKED || tp->bytes_received > SENDER_RECEIVED)
		return;
	bpf_sock_ops_cb_flags_set(ops, ops->bpf_sock_ops_cb_flags & ~BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
}

/* The time (CLOCK_MONOTONIC, ns) as the socket last read it: TCP refreshes
 * tcp_mstamp (µs) for each segment it receives and each burst it sends,
 * so at an outgoing ACK it is the time of the segment being answered.
 * Reading it costs nothing; bpf_ktime_get_ns() cost about 90 ns per call
 * here, a third of the per-segment program. */
static __u64 socket_now(struct tcp_sock *tp)
{
	return tp->tcp_mstamp * 1000;
}

/* Holds user space's window on one socket, and sends a sample when one is
 * due (sock_ops, on every outgoing segment). */
static void control(struct bpf_sock_ops *ops, struct tcp_sock *tp, struct rtac_state *st)
{
	__u64 now = socket_now(tp);
	__u32 zero = 0;
	__u64 *written = bpf_map_lookup_elem(&answers, &zero);
	if (st->answered != st->seq && written && *written != st->answers) {
		st->answers = *written;
		struct rtac_clamp *c = bpf_map_lookup_elem(&clamps, &st->cookie);
		if (c && c->seq != st->answered) {
			/* An answer to an older sample: the newest is awaited
			 * from its own time on. */
			if (c->seq != st->seq)
				st->asked_ns = st->last_sample_ns;
			st->answered = c->seq;
			st->want = c->clamp;
			st->cwnd_want = c->cwnd_clamp;
			if (c->interval_ns)
				st->interval_ns = c->interval_ns;
			st->wake_gap_ns = c->wake_gap_us * 1000ULL;
		}
	}
	if ((__s64)(now - st->last_sample_ns) >= (__s64)st->interval_ns) {
		__u64 idle = now - st->last_sample_ns;
		st->last_sample_ns = now;
		struct rtac_ctl *settings = user_space_alive(now);
		if (!settings) {
			/* Until user space answers a sample again. */
			restore(ops, tp, st);
			st->want = 0;
			st->cwnd_want = 0;
			st->answered = st->seq;
			return;
		}
		/* A socket that sent nothing for the stale time had no chance to
		 * ask again (a sample lost to a full ring buffer, then quiet):
		 * it waits for an answer from now on. */
		if ((__s64)idle >= (__s64)settings->stale_ns)
			st->asked_ns = now;
		if (st->answered != st->seq && (__s64)(now - st->asked_ns) >= (__s64)settings->stale_ns) {
			/* No answer for as long as a dead daemon's: the kernel's
			 * window, for good (its per-segment callback finds no
			 * cookie from now on). */
			restore(ops, tp, st);
			count(COUNT_GIVEN_UP);
			end(tp, st, now, SAMPLE_CLOSED | SAMPLE_GIVEN_UP);
			st->cookie = 0;
			return;
		}
		let_sender_go(ops, tp, settings);
		if (st->answered == st->seq)
			st->asked_ns = now;
		st->seq++;
		emit(tp, st, now, 0);
	}
	if (st->want && tp->window_clamp != st->want) {
		int v = st->want;
		if (bpf_setsockopt(ops, SOL_TCP, TCP_WINDOW_CLAMP, &v, sizeof(v)) == 0)
			st->applied = 1;
	} else if (!st->want) {
		/* No window from user space (the controller leaves it to the
		 * kernel for now): the kernel's own. */
		release_window(ops, tp, st);
	}
	if (st->cwnd_want && tp->snd_cwnd_clamp != st->cwnd_want) {
		int v = st->cwnd_want;
		if (bpf_setsockopt(ops, SOL_TCP, TCP_BPF_SNDCWND_CLAMP, &v, sizeof(v)) == 0)
			st->cwnd_applied = 1;
	} else if (!st->cwnd_want) {
		release_cwnd(ops, st);
	}
}


SEC("sockops")
int rtac_sockops(struct bpf_sock_ops *ops)
{
	struct bpf_sock *bsk = ops->sk;
	if (!bsk)
		return 1;
	struct tcp_sock *tp = bpf_skc_to_tcp_sock(bsk);
	if (!tp)
		return 1;
	switch (ops->op) {
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB: {
		struct rtac_state *st = bpf_sk_storage_get(&state, bsk, 0, 0);
		if (st && st->cookie)
			control(ops, tp, st);
		break;
	}
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		bpf_sock_ops_cb_flags_set(ops, ops->bpf_sock_ops_cb_flags | BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG |
						       BPF_SOCK_OPS_STATE_CB_FLAG);
		track(bsk, tp, bpf_get_socket_cookie(ops), SAMPLE_NEW);
		break;
	case BPF_SOCK_OPS_STATE_CB:
		if (ops->args[1] == TCP_CLOSE)
			forget(bsk, tp);
		break;
	}
	return 1;
}

#define MAX_CGROUP_DEPTH 16

/* Whether the socket's cgroup is `id` or below it. */
static int in_cgroup(struct tcp_sock *tp, __u64 id)
{
	if (!id)
		return 1;
	struct cgroup *cg = tp->inet_conn.icsk_inet.sk.sk_cgrp_data.cgroup;
	for (int i = 0; i < MAX_CGROUP_DEPTH && cg; i++) {
		if (cg->kn && cg->kn->id == id)
			return 1;
		struct cgroup_subsys_state *parent = cg->self.parent;
		if (!parent)
			return 0;
		cg = parent->cgroup;
	}
	return 0;
}

/* The TCP socket an iter/tcp step visits, or NULL. */
static struct tcp_sock *iter_tcp_sock(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	return skc ? bpf_skc_to_tcp_sock(skc) : 0;
}

/* Sockets that were established before the sock_ops program was attached
 * get no ESTABLISHED callback: this iterator (run once at start) adopts
 * the ones in the controlled cgroup, turning on the same per-segment
 * callbacks for them (TCP_BPF_SOCK_OPS_CB_FLAGS, Linux 6.10). */
SEC("iter/tcp")
int rtac_adopt(struct bpf_iter__tcp *ctx)
{
	struct tcp_sock *tp = iter_tcp_sock(ctx);
	if (!tp || tp->inet_conn.icsk_inet.sk.__sk_common.skc_state != TCP_ESTABLISHED)
		return 0;
	__u32 zero = 0;
	struct rtac_ctl *c = bpf_map_lookup_elem(&ctl, &zero);
	if (!c || !in_cgroup(tp, c->cgroup_id))
		return 0;
	struct rtac_state *st = bpf_sk_storage_get(&state, tp, 0, 0);
	if (st && st->cookie)
		return 0;
	int flags = BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG | BPF_SOCK_OPS_STATE_CB_FLAG;
	if (bpf_setsockopt(tp, SOL_TCP, TCP_BPF_SOCK_OPS_CB_FLAGS_VAL, &flags, sizeof(flags)) != 0)
		return 0;
	track(tp, tp, bpf_get_socket_cookie(tp), SAMPLE_NEW | SAMPLE_ADOPTED);
	return 0;
}

/* Run at a clean stop, before the sock_ops program is detached: gives every
 * socket this instance controlled its kernel window back at once (an idle
 * socket sends no segment that would let the sock_ops program do it). The
 * per-segment callbacks stay on: they are the socket's, not this
 * instance's, and another rtac program attached above or below this
 * cgroup may rely on them; without a program the kernel's hook returns at
 * once. */
SEC("iter/tcp")
int rtac_release(struct bpf_iter__tcp *ctx)
{
	struct tcp_sock *tp = iter_tcp_sock(ctx);
	if (!tp)
		return 0;
	struct rtac_state *st = bpf_sk_storage_get(&state, tp, 0, 0);
	if (!st || !st->cookie)
		return 0;
	restore(tp, tp, st);
	bpf_map_delete_elem(&clamps, &st->cookie);
	bpf_sk_storage_delete(&state, tp);
	return 0;
}

char _license[] SEC("license") = "GPL";
