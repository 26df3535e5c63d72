/* A receiver for the BPF-mode tests and the Must-show runs, built with
 * `cc -static` so that LD_PRELOAD cannot reach it.
 *   recv HOST PORT [PATH]
 * connects (IPv4), sends "GET PATH HTTP/1.0" (or one byte "x" without PATH),
 * reads until the peer closes and prints
 *   DONE <bytes> <min clamp> <max clamp> <reads at the min> <reads>
 * where the clamps are TCP_WINDOW_CLAMP read back after each read past the
 * first MiB. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: recv HOST PORT [PATH]\n");
		return 2;
	}
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2]))};
	if (inet_pton(AF_INET, argv[1], &a.sin_addr) != 1 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
		perror("connect");
		return 1;
	}
	char req[512];
	int n = argc > 3 ? snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", argv[3], argv[1])
			 : snprintf(req, sizeof req, "x");
	if (write(s, req, n) != n) {
		perror("write");
		return 1;
	}
	static char buf[1 << 16];
	long long got = 0;
	unsigned lo = ~0u, hi = 0;
	long at_lo = 0, reads = 0;
	for (;;) {
		ssize_t r = read(s, buf, sizeof buf);
		if (r <= 0)
			break;
		got += r;
		unsigned c;
		socklen_t l = sizeof c;
		if (got > (1 << 20) && getsockopt(s, IPPROTO_TCP, TCP_WINDOW_CLAMP, &c, &l) == 0) {
			if (c < lo) {
				lo = c;
				at_lo = 0;
			}
			at_lo += c == lo;
			hi = c > hi ? c : hi;
			reads++;
		}
	}
	printf("DONE %lld %u %u %ld %ld\n", got, lo, hi, at_lo, reads);
	return 0;
}
