/* Exercises rtac.h from C over a loopback TCP connection. */
#define _GNU_SOURCE
#include "rtac.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TOTAL (8 * 1024 * 1024)
#define CHECK(c)                                                    \
    do {                                                            \
        if (!(c)) {                                                 \
            fprintf(stderr, "check failed line %d: %s\n", __LINE__, #c); \
            exit(1);                                                \
        }                                                           \
    } while (0)

static void *sender(void *arg) {
    int fd = *(int *)arg;
    static char buf[65536];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)(i % 251);
    for (size_t sent = 0; sent < TOTAL;) {
        ssize_t n = write(fd, buf, sizeof buf);
        CHECK(n > 0);
        sent += (size_t)n;
    }
    close(fd);
    return NULL;
}

int main(void) {
    char err[256];
    CHECK(rtac_check_config("rtac", "bdp=20,delta=1ms", err, sizeof err) == 0);
    CHECK(rtac_check_config("rtac", "lambda=3", err, sizeof err) == -1);
    CHECK(strstr(err, "lambda") != NULL);
    CHECK(rtac_check_config("cubic", NULL, err, sizeof err) == -1);
    CHECK(strlen(rtac_version()) > 0);

    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0);
    CHECK(getsockname(l, (struct sockaddr *)&a, &alen) == 0);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(connect(c, (struct sockaddr *)&a, sizeof a) == 0);
    int s = accept(l, NULL, NULL);
    CHECK(s >= 0);

    /* A UDP socket is refused with a message. */
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(rtac_attach(u, "rtac", NULL, NULL, err, sizeof err) == NULL && strstr(err, "TCP") != NULL);

    rtac_socket *h = rtac_attach(c, "static", "rmem_max=600000", NULL, err, sizeof err);
    CHECK(h != NULL);
    int clamp = 0;
    socklen_t cl = sizeof clamp;
    CHECK(getsockopt(c, IPPROTO_TCP, TCP_WINDOW_CLAMP, &clamp, &cl) == 0 && clamp == 600000);

    pthread_t t;
    pthread_create(&t, NULL, sender, &s);
    static char buf[32768];
    long long total = 0;
    ssize_t n;
    int steps = 0;
    while ((n = read(c, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) CHECK(buf[i] == (char)((total + i) % 65536 % 251));
        total += n;
        int r = rtac_on_read(h, n);
        CHECK(r >= 0);
        steps += r;
    }
    pthread_join(t, NULL);
    CHECK(total == TOTAL);
    CHECK(rtac_step_now(h) == 0);
    rtac_step st;
    CHECK(rtac_last_step(h, &st) == 0);
    CHECK(st.rwnd_bytes == 600000 && st.steps >= 2);
    CHECK(rtac_error(h) == NULL);
    rtac_detach(h);
    rtac_detach(NULL);

    /* Two sockets in one group share one budget. */
    rtac_group *g = rtac_group_new("rtac", "bdp=100", err, sizeof err);
    CHECK(g != NULL);
    CHECK(rtac_group_new("rtac", "budget=sometimes", err, sizeof err) == NULL && strstr(err, "budget") != NULL);
    rtac_socket *m[2];
    int cs[2], ss[2];
    for (int i = 0; i < 2; i++) {
        cs[i] = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(connect(cs[i], (struct sockaddr *)&a, sizeof a) == 0);
        ss[i] = accept(l, NULL, NULL);
        m[i] = rtac_attach_group(g, cs[i], NULL, err, sizeof err);
        CHECK(m[i] != NULL);
    }
    rtac_group_info gs;
    CHECK(rtac_group_state(g, &gs) == 0);
    CHECK(gs.shared == 1 && gs.connections == 2 && gs.window_bytes > 0);
    rtac_detach(m[0]);
    CHECK(rtac_group_state(g, &gs) == 0 && gs.connections == 1);
    rtac_group_free(g);
    CHECK(rtac_step_now(m[1]) == 0);
    rtac_detach(m[1]);
    rtac_group_free(NULL);
    for (int i = 0; i < 2; i++) {
        close(cs[i]);
        close(ss[i]);
    }

    close(c);
    close(s);
    close(l);
    close(u);
    printf("capi ok: %lld bytes, %d steps during the reads\n", total, steps);
    return 0;
}
