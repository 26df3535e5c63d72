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
 *     the bytes the program has read (copied_seq), the data segments in;
 *   - on every outgoing segment (BPF_SOCK_OPS_HDR_OPT_LEN_CB, enabled by
 *     BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG) it re-applies the window user
 *     space wrote in `clamps` with bpf_setsockopt(TCP_WINDOW_CLAMP): Linux
 *     receive auto-tuning overwrites window_clamp whenever it grows the
 *     buffer, so a clamp set once does not hold.
 * With the uplink on, user space also bounds a sending socket's congestion
 * window (TCP_BPF_SNDCWND_CLAMP) from the sender's RTT (srtt_us).
 * Safety: when user space has not written its heartbeat for `stale_ns`
 * (killed, stuck) or asked for release, each controlled socket gets its
 * kernel window back once (clamp = the larger of the clamp it had before
 * and its receive buffer) and is then left alone.
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
static long (*bpf_getsockopt)(void *sk, int level, int optname, void *optval, int optlen) =
    (void *)BPF_FUNC_getsockopt;
static long (*bpf_sock_ops_cb_flags_set)(struct bpf_sock_ops *ops, int flags) =
    (void *)BPF_FUNC_sock_ops_cb_flags_set;
static long (*bpf_ringbuf_output)(void *rb, void *data, __u64 size, __u64 flags) =
    (void *)BPF_FUNC_ringbuf_output;

/* Kernel types, relocated against the running kernel's BTF (CO-RE): only
 * the fields read here, by name. */
#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)
struct in6_addr {
	union {
		__u8 u6_addr8[16];
	} in6_u;
};
struct sock_common {
	__be32 skc_daddr;
	__be16 skc_dport;
	unsigned short skc_family;
	volatile unsigned char skc_state;
	struct in6_addr skc_v6_daddr;
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
};

struct rtac_state {
	__u64 last_sample_ns;
	__u32 orig_clamp;   /* window_clamp when first seen */
	__u32 applied;      /* 1 while a clamp of ours may be in force */
	__u32 orig_cwnd_clamp;
	__u32 cwnd_applied; /* 1 while a cwnd clamp of ours may be in force */
};

#define SAMPLE_NEW 1
#define SAMPLE_CLOSED 2
#define SAMPLE_ADOPTED 4

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
	__u32 reserved;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rtac_ctl);
} ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct rtac_clamp);
} clamps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct rtac_state);
} state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} samples SEC(".maps");

#define DEFAULT_INTERVAL_NS 10000000ULL

/* The settings, if user space is alive (heartbeat fresh, no release). */
static struct rtac_ctl *user_space_alive(__u64 now)
{
	__u32 zero = 0;
	struct rtac_ctl *c = bpf_map_lookup_elem(&ctl, &zero);
	if (!c || c->release || now - c->heartbeat_ns >= c->stale_ns)
		return 0;
	return c;
}

static void emit(struct tcp_sock *tp, __u64 cookie, __u64 now, __u32 flags)
{
	struct rtac_sample s = {};
	s.cookie = cookie;
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
	if (flags & SAMPLE_NEW) {
		struct sock_common *skc = &tp->inet_conn.icsk_inet.sk.__sk_common;
		s.family = skc->skc_family;
		s.dport = skc->skc_dport;
		if (s.family == 10 /* AF_INET6 */)
			__builtin_memcpy(s.daddr, skc->skc_v6_daddr.in6_u.u6_addr8, 16);
		else
			__builtin_memcpy(s.daddr, &skc->skc_daddr, 4);
	}
	bpf_ringbuf_output(&samples, &s, sizeof(s), 0);
}

static void track(struct tcp_sock *tp, __u64 cookie, __u64 now, __u32 flags)
{
	struct rtac_state st = {};
	st.last_sample_ns = now;
	st.orig_clamp = tp->window_clamp;
	st.orig_cwnd_clamp = tp->snd_cwnd_clamp;
	if (bpf_map_update_elem(&state, &cookie, &st, BPF_NOEXIST) == 0)
		emit(tp, cookie, now, flags);
}

static void forget(struct tcp_sock *tp, __u64 cookie)
{
	if (!bpf_map_lookup_elem(&state, &cookie))
		return;
	emit(tp, cookie, bpf_ktime_get_ns(), SAMPLE_CLOSED);
	bpf_map_delete_elem(&state, &cookie);
	bpf_map_delete_elem(&clamps, &cookie);
}

/* Gives the kernel its window back: a clamp of at least what the socket
 * had before and what its buffer can hold (auto-tuning sets it from the
 * buffer again as it grows it). */
static void restore(void *sk, struct tcp_sock *tp, struct rtac_state *st)
{
	if (st->cwnd_applied) {
		int c = st->orig_cwnd_clamp;
		bpf_setsockopt(sk, SOL_TCP, TCP_BPF_SNDCWND_CLAMP, &c, sizeof(c));
		st->cwnd_applied = 0;
	}
	if (!st->applied)
		return;
	int v = tp->inet_conn.icsk_inet.sk.sk_rcvbuf;
	if (v < (int)st->orig_clamp)
		v = st->orig_clamp;
	bpf_setsockopt(sk, SOL_TCP, TCP_WINDOW_CLAMP, &v, sizeof(v));
	st->applied = 0;
}

/* Applies user space's window to one socket and sends a sample when one is
 * due. `sk` is what bpf_setsockopt takes in the calling program type. */
static void control(void *sk, struct tcp_sock *tp, __u64 cookie)
{
	struct rtac_state *st = bpf_map_lookup_elem(&state, &cookie);
	if (!st)
		return;
	__u64 now = bpf_ktime_get_ns();
	struct rtac_clamp *c = bpf_map_lookup_elem(&clamps, &cookie);
	struct rtac_ctl *settings = user_space_alive(now);
	if (!settings) {
		restore(sk, tp, st);
		return;
	}
	/* Until user space has answered the socket's first sample, the
	 * controller's initial window. */
	__u32 want = c ? c->clamp : settings->initial_clamp;
	if (want && tp->window_clamp != want) {
		int v = want;
		if (bpf_setsockopt(sk, SOL_TCP, TCP_WINDOW_CLAMP, &v, sizeof(v)) == 0)
			st->applied = 1;
	}
	__u64 interval = DEFAULT_INTERVAL_NS;
	if (c) {
		if (c->cwnd_clamp && tp->snd_cwnd_clamp != c->cwnd_clamp) {
			int v = c->cwnd_clamp;
			if (bpf_setsockopt(sk, SOL_TCP, TCP_BPF_SNDCWND_CLAMP, &v, sizeof(v)) == 0)
				st->cwnd_applied = 1;
		}
		if (c->interval_ns)
			interval = c->interval_ns;
	}
	if (now - st->last_sample_ns >= interval) {
		st->last_sample_ns = now;
		emit(tp, cookie, now, 0);
	}
}

#define SENDER_ACKED (1ULL << 20)
#define SENDER_RECEIVED (64ULL << 10)

/* A socket that has sent a megabyte and received almost nothing is a
 * sender: without the uplink there is nothing to apply to it, so its
 * per-segment callback (one per data segment it sends) is turned off. */
static void let_sender_go(struct bpf_sock_ops *ops, struct tcp_sock *tp)
{
	__u32 zero = 0;
	struct rtac_ctl *c = bpf_map_lookup_elem(&ctl, &zero);
	if (!c || c->uplink || tp->bytes_acked < SENDER_ACKED || tp->bytes_received > SENDER_RECEIVED)
		return;
	bpf_sock_ops_cb_flags_set(ops, ops->bpf_sock_ops_cb_flags & ~BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
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
	__u64 cookie = bpf_get_socket_cookie(ops);
	switch (ops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		bpf_sock_ops_cb_flags_set(ops, ops->bpf_sock_ops_cb_flags | BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG |
						       BPF_SOCK_OPS_STATE_CB_FLAG);
		track(tp, cookie, bpf_ktime_get_ns(), SAMPLE_NEW);
		break;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		control(ops, tp, cookie);
		let_sender_go(ops, tp);
		break;
	case BPF_SOCK_OPS_STATE_CB:
		if (ops->args[1] == TCP_CLOSE)
			forget(tp, cookie);
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
	__u64 cookie = bpf_get_socket_cookie(tp);
	if (bpf_map_lookup_elem(&state, &cookie))
		return 0;
	int flags = BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG | BPF_SOCK_OPS_STATE_CB_FLAG;
	if (bpf_setsockopt(tp, SOL_TCP, TCP_BPF_SOCK_OPS_CB_FLAGS_VAL, &flags, sizeof(flags)) != 0)
		return 0;
	track(tp, cookie, bpf_ktime_get_ns(), SAMPLE_NEW | SAMPLE_ADOPTED);
	return 0;
}

/* Run at a clean stop, before the sock_ops program is detached: gives every
 * socket this instance controlled its kernel window back at once (an idle
 * socket sends no segment that would let the sock_ops program do it) and
 * turns off the per-segment callbacks it turned on. */
SEC("iter/tcp")
int rtac_release(struct bpf_iter__tcp *ctx)
{
	struct tcp_sock *tp = iter_tcp_sock(ctx);
	if (!tp)
		return 0;
	__u64 cookie = bpf_get_socket_cookie(tp);
	struct rtac_state *st = bpf_map_lookup_elem(&state, &cookie);
	if (!st)
		return 0;
	restore(tp, tp, st);
	int flags = 0;
	if (bpf_getsockopt(tp, SOL_TCP, TCP_BPF_SOCK_OPS_CB_FLAGS_VAL, &flags, sizeof(flags)) == 0) {
		flags &= ~(BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG | BPF_SOCK_OPS_STATE_CB_FLAG);
		bpf_setsockopt(tp, SOL_TCP, TCP_BPF_SOCK_OPS_CB_FLAGS_VAL, &flags, sizeof(flags));
	}
	bpf_map_delete_elem(&state, &cookie);
	bpf_map_delete_elem(&clamps, &cookie);
	return 0;
}

char _license[] SEC("license") = "GPL";
