// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rdma-mover: move a lot of verified data over one RC connection set up by
 * rdma_cm (iWARP on the emulated E810 under irdma), mixing SEND/RECV, RDMA
 * WRITE (followed by a SEND notification) and RDMA READ with chunk sizes
 * from 1 byte to the maximum chunk, unaligned local and remote offsets,
 * several WRs outstanding and signaled/unsignaled WRs.
 *
 *   rdma-mover -s [-a ADDR] [-p PORT]
 *   rdma-mover -c ADDR [-p PORT] [-t TOTAL] [-k CHUNK] [-S SEED] [-D DEPTH]
 *
 *   -s        server: listen on ADDR (default any), PORT (default 18515)
 *   -c ADDR   client: connect to ADDR
 *   -t TOTAL  bytes to move in all (default 256 MiB; suffix K/M/G)
 *   -k CHUNK  largest chunk (default 1 MiB)
 *   -S SEED   seed of the schedule and the data (default 1)
 *   -D DEPTH  data WRs per batch, i.e. outstanding (default 8, max 16)
 *   -v        print every batch
 *
 * The client passes TOTAL, CHUNK, SEED and DEPTH in the connect private
 * data; the server takes them from there (its own -t/-k/-S/-D are only
 * compared) and answers in the accept private data with the address, rkey
 * and sizes of its buffer: DEPTH write slots (CHUNK + 4 KiB + 64 each)
 * followed by a read region (4 MiB + CHUNK) filled with a known pattern.
 *
 * Both sides derive the same schedule from the seed: batches of 1..DEPTH
 * operations, each a SEND, an RDMA WRITE into slot i at a random offset
 * within the slot's first 4 KiB, or an RDMA READ (of the read region at a
 * random offset, or back from a slot written earlier in the same batch;
 * never more READs in a batch than the negotiated ORD), of a random length
 * (tiny, log-uniform or uniform up to CHUNK), from/to a local buffer at a
 * random offset in its first 64 bytes.  Small SENDs go inline.  Every data
 * WR is signaled or not at random; the batch ends with a signaled 16-byte
 * notification SEND, after which the server verifies every SEND it received
 * (length and content) and every WRITE slot, reposts its receives and
 * answers with a 16-byte ACK (carrying its mismatch count); the client then
 * verifies the data it READ.  Each byte of an operation's data is a
 * function of the seed, the operation and the byte's position, so a byte
 * placed at the wrong offset, a stale or a short transfer all show.
 * Completions are checked for status, opcode, order and (receives) byte_len.
 *
 * Output: "rdma-mover: client|server summary: total N bytes send N write N
 * read N ops N (send N write N read N) batches N time S s MB/s X
 * mismatches N errors N".  Exit 0 iff mismatches and errors are 0.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define MiB ((size_t)1024 * 1024)
#define MAX_DEPTH 16
#define MAGIC 0x52444d4dU /* "RDMM" */
#define RREGION (4 * MiB)
#define NOTIF_LEN 16
#define TIMEOUT_S 120

enum op_type { OP_SEND, OP_WRITE, OP_READ };
static const char *op_name[] = { "send", "write", "read" };

struct op {
	enum op_type type;
	uint32_t len;
	uint32_t loff;		/* offset in the local slot buffer (0..63) */
	uint64_t roff;		/* offset in the server's buffer (WRITE/READ) */
	uint64_t key;		/* pattern key of the data */
	uint64_t pstart;	/* pattern position of the first byte */
	bool signaled, inl;
};

struct batch {
	unsigned n, nsend;
	struct op op[MAX_DEPTH];
};

struct client_pd {		/* connect private data */
	uint32_t magic, depth;
	uint64_t seed, total;
	uint32_t chunk, ord;	/* ord: READs the client keeps outstanding */
};

struct server_pd {		/* accept private data */
	uint32_t magic, rkey;
	uint64_t addr, wlen, rlen;
};

struct notif {
	uint32_t magic, batch;
	uint32_t n, mismatches;
};

static int verbose;
static uint64_t mismatches, errors;

static void err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "rdma-mover: ERROR: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	errors++;
}

#define DIE(...) do { err(__VA_ARGS__); exit(2); } while (0)

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Schedule PRNG (xorshift64*). */
static uint64_t rng_state;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t pword(uint64_t key, uint64_t w)
{
	return splitmix(key ^ (w * 0xd6e8feb86659fd93ULL));
}

/* Pattern bytes [start, start + len) of KEY into buf. */
static void pfill(uint8_t *buf, uint64_t key, uint64_t start, size_t len)
{
	uint64_t p = start, end = start + len;
	while (p < end) {
		uint64_t v = pword(key, p / 8);
		unsigned o = p % 8, n = 8 - o;
		if (n > end - p)
			n = end - p;
		memcpy(buf, (uint8_t *)&v + o, n);
		buf += n;
		p += n;
	}
}

/* Mismatching bytes of buf against the pattern; reports the first. */
static uint64_t pcheck(const uint8_t *buf, uint64_t key, uint64_t start, size_t len,
		       const char *what)
{
	uint64_t p = start, end = start + len, bad = 0;
	while (p < end) {
		uint64_t v = pword(key, p / 8);
		unsigned o = p % 8, n = 8 - o;
		if (n > end - p)
			n = end - p;
		if (memcmp(buf, (uint8_t *)&v + o, n)) {
			for (unsigned i = 0; i < n; i++) {
				uint8_t want = ((uint8_t *)&v)[o + i];
				if (buf[i] != want) {
					if (!bad)
						fprintf(stderr, "rdma-mover: MISMATCH %s: byte %" PRIu64
							" of %zu: 0x%02x, expected 0x%02x\n", what,
							p + i - start, len, buf[i], want);
					bad++;
				}
			}
		}
		buf += n;
		p += n;
	}
	return bad;
}

static uint32_t rand_len(uint32_t chunk)
{
	switch (rnd() % 4) {
	case 0:
		return 1 + rnd() % (chunk < 64 ? chunk : 64);
	case 1: {
		unsigned bits = 0;
		while ((1ULL << bits) < chunk)
			bits++;
		uint64_t l = 1 + rnd() % (1ULL << (rnd() % (bits + 1)));
		return l > chunk ? chunk : l;
	}
	default:
		return 1 + rnd() % chunk;
	}
}

static struct {
	uint64_t seed, total;
	uint32_t chunk, depth, ord;
	size_t slot;		/* size of one slot */
	size_t wlen, rlen;	/* server buffer: write slots, read region */
	unsigned max_inline;
} P;

static uint64_t rkey_r(void)
{
	return splitmix(P.seed ^ 0x5245414452454749ULL);
}

static void gen_batch(struct batch *b, uint64_t bn)
{
	unsigned nread = 0;
	int last_write = -1;

	memset(b, 0, sizeof(*b));
	b->n = 1 + rnd() % P.depth;
	for (unsigned i = 0; i < b->n; i++) {
		struct op *o = &b->op[i];
		unsigned t = rnd() % 3;
		if (t == OP_READ && nread >= P.ord)
			t = rnd() % 2;
		o->type = t;
		o->len = rand_len(P.chunk);
		o->loff = rnd() % 8 ? rnd() % 64 : 0;
		o->signaled = rnd() % 2;
		o->key = splitmix(P.seed ^ (bn << 8) ^ i);
		o->pstart = 0;
		switch (t) {
		case OP_SEND:
			o->inl = o->len <= P.max_inline && rnd() % 2;
			b->nsend++;
			break;
		case OP_WRITE:
			o->roff = i * P.slot + (rnd() % 4 ? rnd() % 4096 : 0);
			last_write = i;
			break;
		case OP_READ:
			nread++;
			if (last_write >= 0 && rnd() % 2) {
				/* read back what this batch wrote */
				struct op *w = &b->op[last_write];
				o->roff = w->roff;
				o->len = w->len;
				o->key = w->key;
			} else {
				uint64_t off = rnd() % (P.rlen - o->len + 1);
				o->roff = P.wlen + off;
				o->key = rkey_r();
				o->pstart = off;
			}
			break;
		}
	}
}

/* ---- connection and resources ---- */

static struct rdma_event_channel *ch;
static struct rdma_cm_id *listen_id, *id;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_mr *mr;
static uint8_t *buf;
static size_t buflen;

static struct rdma_cm_event *get_event(enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	if (rdma_get_cm_event(ch, &ev))
		DIE("rdma_get_cm_event: %s", strerror(errno));
	if (ev->event != want)
		DIE("cm event %s (status %d), expected %s", rdma_event_str(ev->event),
		    ev->status, rdma_event_str(want));
	return ev;
}

static void setup_qp(struct rdma_cm_id *cid)
{
	struct ibv_qp_init_attr qa;
	struct ibv_device_attr da;

	if (ibv_query_device(cid->verbs, &da))
		DIE("ibv_query_device");
	pd = ibv_alloc_pd(cid->verbs);
	scq = ibv_create_cq(cid->verbs, 4 * MAX_DEPTH, NULL, NULL, 0);
	rcq = ibv_create_cq(cid->verbs, 4 * MAX_DEPTH, NULL, NULL, 0);
	if (!pd || !scq || !rcq)
		DIE("alloc pd/cq: %s", strerror(errno));
	for (unsigned inl = 64;; inl = 0) {
		memset(&qa, 0, sizeof(qa));
		qa.send_cq = scq;
		qa.recv_cq = rcq;
		qa.qp_type = IBV_QPT_RC;
		qa.sq_sig_all = 0;
		qa.cap.max_send_wr = 2 * MAX_DEPTH + 2;
		qa.cap.max_recv_wr = 2 * MAX_DEPTH + 2;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		qa.cap.max_inline_data = inl;
		if (!rdma_create_qp(cid, pd, &qa))
			break;
		if (!inl)
			DIE("rdma_create_qp: %s", strerror(errno));
	}
	P.max_inline = qa.cap.max_inline_data;
	if (qa.cap.max_send_wr < P.depth + 1)
		DIE("max_send_wr %u < depth %u + 1", qa.cap.max_send_wr, P.depth);
	if (verbose)
		printf("qp %u: max_send_wr %u max_recv_wr %u max_inline %u; device ord %d ird %d\n",
		       cid->qp->qp_num, qa.cap.max_send_wr, qa.cap.max_recv_wr,
		       qa.cap.max_inline_data, da.max_qp_init_rd_atom, da.max_qp_rd_atom);
	P.ord = da.max_qp_init_rd_atom < (int)P.depth ? (unsigned)da.max_qp_init_rd_atom : P.depth;
	if (P.ord > (unsigned)da.max_qp_rd_atom)
		P.ord = da.max_qp_rd_atom;
	if (P.ord < 1)
		P.ord = 1;
}

static void reg_buf(size_t len, int access)
{
	buflen = len;
	if (posix_memalign((void **)&buf, 4096, len))
		DIE("no memory for %zu bytes", len);
	memset(buf, 0xee, len);
	mr = ibv_reg_mr(pd, buf, len, access);
	if (!mr)
		DIE("ibv_reg_mr %zu: %s", len, strerror(errno));
}

static double deadline;

static void poll_one(struct ibv_cq *cq, struct ibv_wc *wc, const char *what)
{
	unsigned long spins = 0;
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			DIE("ibv_poll_cq: %d", n);
		if (n)
			return;
		if (++spins % 4096 == 0) {
			if (now() > deadline)
				DIE("timeout waiting for a %s completion", what);
			usleep(50);
		}
	}
}

static void check_wc(struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_opcode opc,
		     int byte_len, const char *what)
{
	if (wc->status != IBV_WC_SUCCESS)
		DIE("%s: completion status %s (%d) vendor_err 0x%x wr_id 0x%" PRIx64, what,
		    ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, wc->wr_id);
	if (wc->wr_id != wr_id)
		DIE("%s: completion wr_id 0x%" PRIx64 ", expected 0x%" PRIx64, what,
		    wc->wr_id, wr_id);
	if (wc->opcode != opc)
		DIE("%s: completion opcode %d, expected %d", what, wc->opcode, opc);
	if (byte_len >= 0 && wc->byte_len != (uint32_t)byte_len)
		DIE("%s: completion byte_len %u, expected %d", what, wc->byte_len, byte_len);
	if (wc->qp_num != id->qp->qp_num)
		DIE("%s: completion qp_num %u, expected %u", what, wc->qp_num, id->qp->qp_num);
}

static void post_recv(uint8_t *p, size_t len, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)p, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;
	if (ibv_post_recv(id->qp, &wr, &bad))
		DIE("ibv_post_recv: %s", strerror(errno));
}

static void post_send(enum ibv_wr_opcode opc, uint8_t *p, size_t len, uint64_t wr_id,
		      bool signaled, bool inl, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)p, len, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				  .opcode = opc }, *bad;
	wr.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) | (inl ? IBV_SEND_INLINE : 0);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	int rc = ibv_post_send(id->qp, &wr, &bad);
	if (rc)
		DIE("ibv_post_send %d len %zu: %s", opc, len, strerror(rc));
}

static uint64_t bytes[3], ops[3], nbatches;

static void summary(const char *role, double t)
{
	uint64_t total = bytes[0] + bytes[1] + bytes[2];
	printf("rdma-mover: %s summary: total %" PRIu64 " bytes send %" PRIu64 " write %" PRIu64
	       " read %" PRIu64 " ops %" PRIu64 " (send %" PRIu64 " write %" PRIu64 " read %" PRIu64
	       ") batches %" PRIu64 " time %.1f s MB/s %.2f mismatches %" PRIu64 " errors %" PRIu64 "\n",
	       role, total, bytes[0], bytes[1], bytes[2], ops[0] + ops[1] + ops[2], ops[0], ops[1],
	       ops[2], nbatches, t, t > 0 ? total / t / 1e6 : 0.0, mismatches, errors);
}

static void disconnect_and_free(bool active)
{
	struct rdma_cm_event *ev;
	if (active && rdma_disconnect(id))
		err("rdma_disconnect: %s", strerror(errno));
	ev = get_event(RDMA_CM_EVENT_DISCONNECTED);
	rdma_ack_cm_event(ev);
	if (!active)
		rdma_disconnect(id);
	rdma_destroy_qp(id);
	if (ibv_dereg_mr(mr))
		err("ibv_dereg_mr");
	if (ibv_destroy_cq(scq) || ibv_destroy_cq(rcq))
		err("ibv_destroy_cq");
	if (ibv_dealloc_pd(pd))
		err("ibv_dealloc_pd");
	if (rdma_destroy_id(id))
		err("rdma_destroy_id");
	if (listen_id && rdma_destroy_id(listen_id))
		err("rdma_destroy_id (listen)");
	rdma_destroy_event_channel(ch);
	free(buf);
}

static void set_sizes(void)
{
	P.slot = P.chunk + 4096 + 64;
	P.wlen = P.depth * P.slot;
	P.rlen = RREGION + P.chunk;
}

/* ---- server ---- */

static int server(const char *addr, const char *port, struct client_pd *want)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP }, *ai;
	struct rdma_cm_event *ev;
	struct rdma_conn_param cp;
	struct client_pd cpd;
	struct server_pd spd;
	unsigned nrecv = MAX_DEPTH + 1, ring = 0;

	if (rdma_getaddrinfo(addr, port, &hints, &ai))
		DIE("rdma_getaddrinfo %s:%s: %s", addr ? addr : "*", port, strerror(errno));
	if (rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP))
		DIE("rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(listen_id, ai->ai_src_addr))
		DIE("rdma_bind_addr: %s", strerror(errno));
	rdma_freeaddrinfo(ai);
	if (rdma_listen(listen_id, 1))
		DIE("rdma_listen: %s", strerror(errno));
	printf("rdma-mover: server listening on port %s\n", port);
	fflush(stdout);

	ev = get_event(RDMA_CM_EVENT_CONNECT_REQUEST);
	id = ev->id;
	if (ev->param.conn.private_data_len < sizeof(cpd))
		DIE("connect private data: %u bytes", ev->param.conn.private_data_len);
	memcpy(&cpd, ev->param.conn.private_data, sizeof(cpd));
	if (cpd.magic != MAGIC || !cpd.depth || cpd.depth > MAX_DEPTH || !cpd.chunk)
		DIE("bad connect private data");
	if ((want->seed && want->seed != cpd.seed) || (want->total && want->total != cpd.total) ||
	    (want->chunk && want->chunk != cpd.chunk) || (want->depth && want->depth != cpd.depth))
		DIE("client parameters differ from ours");
	unsigned ird = ev->param.conn.initiator_depth;
	if (!cpd.ord || cpd.ord > ird)
		DIE("client ord %u, its initiator depth %u", cpd.ord, ird);
	P.seed = cpd.seed;
	P.total = cpd.total;
	P.chunk = cpd.chunk;
	P.depth = cpd.depth;
	set_sizes();
	setup_qp(id);
	/* the schedule's READs per batch: the client's ORD */
	P.ord = cpd.ord;
	/* [write slots][read region][receive ring: depth + 1 slots] */
	reg_buf(P.wlen + P.rlen + nrecv * P.slot,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	pfill(buf + P.wlen, rkey_r(), 0, P.rlen);
	uint8_t *rbuf = buf + P.wlen + P.rlen;
	for (unsigned i = 0; i < nrecv; i++)
		post_recv(rbuf + i * P.slot + (i * 13) % 64, P.chunk, i);

	memset(&cp, 0, sizeof(cp));
	spd = (struct server_pd){ MAGIC, mr->rkey, (uintptr_t)buf, P.wlen, P.rlen };
	cp.private_data = &spd;
	cp.private_data_len = sizeof(spd);
	cp.responder_resources = ev->param.conn.initiator_depth;
	cp.initiator_depth = ev->param.conn.responder_resources;
	rdma_ack_cm_event(ev);
	if (rdma_accept(id, &cp))
		DIE("rdma_accept: %s", strerror(errno));
	ev = get_event(RDMA_CM_EVENT_ESTABLISHED);
	rdma_ack_cm_event(ev);
	printf("rdma-mover: server connected: seed %" PRIu64 " total %" PRIu64 " chunk %u depth %u "
	       "client ord %u inline %u\n", P.seed, P.total, P.chunk, P.depth, ird, P.max_inline);
	fflush(stdout);

	rng_state = splitmix(P.seed) | 1;
	double t0 = now();
	uint64_t total = 0;
	struct batch b;
	struct notif ack;
	uint8_t *ackbuf = buf + P.wlen + P.rlen + (nrecv - 1) * P.slot + P.chunk + 2048;
	while (total < P.total) {
		uint64_t bad0 = mismatches;
		unsigned used = 0;
		char what[96];
		gen_batch(&b, nbatches);
		deadline = now() + TIMEOUT_S;
		/* the SENDs in order, then the notification */
		for (unsigned i = 0; i <= b.n; i++) {
			struct ibv_wc wc;
			struct op *o = &b.op[i];
			if (i < b.n && o->type != OP_SEND)
				continue;
			unsigned slot = (ring + used) % nrecv;
			uint8_t *p = rbuf + slot * P.slot + (slot * 13) % 64;
			snprintf(what, sizeof(what), "batch %" PRIu64 " op %u recv", nbatches, i);
			poll_one(rcq, &wc, what);
			check_wc(&wc, slot, IBV_WC_RECV, i < b.n ? (int)o->len : NOTIF_LEN, what);
			used++;
			if (i < b.n) {
				snprintf(what, sizeof(what), "batch %" PRIu64 " op %u send len %u", nbatches, i, o->len);
				mismatches += pcheck(p, o->key, 0, o->len, what);
			} else {
				struct notif nt;
				memcpy(&nt, p, sizeof(nt));
				if (nt.magic != MAGIC || nt.batch != (uint32_t)nbatches || nt.n != b.n)
					DIE("batch %" PRIu64 ": bad notification (magic 0x%x batch %u n %u)",
					    nbatches, nt.magic, nt.batch, nt.n);
			}
		}
		/* the WRITEs are placed before the notification */
		for (unsigned i = 0; i < b.n; i++) {
			struct op *o = &b.op[i];
			if (o->type == OP_WRITE) {
				snprintf(what, sizeof(what), "batch %" PRIu64 " op %u write len %u off %" PRIu64,
					 nbatches, i, o->len, o->roff);
				mismatches += pcheck(buf + o->roff, o->key, 0, o->len, what);
			}
			bytes[o->type] += o->len;
			ops[o->type]++;
			total += o->len;
		}
		for (unsigned k = 0; k < used; k++) {
			unsigned slot = (ring + k) % nrecv;
			post_recv(rbuf + slot * P.slot + (slot * 13) % 64, P.chunk, slot);
		}
		ring = (ring + used) % nrecv;
		ack = (struct notif){ MAGIC, nbatches, b.n, mismatches - bad0 };
		memcpy(ackbuf, &ack, sizeof(ack));
		post_send(IBV_WR_SEND, ackbuf, sizeof(ack), 0xacc, true, false, 0, 0);
		struct ibv_wc wc;
		poll_one(scq, &wc, "ack send");
		check_wc(&wc, 0xacc, IBV_WC_SEND, -1, "ack send");
		if (verbose)
			printf("batch %" PRIu64 ": %u ops, total %" PRIu64 "\n", nbatches, b.n, total);
		nbatches++;
	}
	double t = now() - t0;
	disconnect_and_free(false);
	summary("server", t);
	return mismatches || errors;
}

/* ---- client ---- */

static int client(const char *addr, const char *port)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *ai;
	struct rdma_cm_event *ev;
	struct rdma_conn_param cp;
	struct client_pd cpd;
	struct server_pd spd;

	set_sizes();
	if (rdma_getaddrinfo(addr, port, &hints, &ai))
		DIE("rdma_getaddrinfo %s:%s: %s", addr, port, strerror(errno));
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		DIE("rdma_create_id: %s", strerror(errno));
	if (rdma_resolve_addr(id, ai->ai_src_addr, ai->ai_dst_addr, 5000))
		DIE("rdma_resolve_addr: %s", strerror(errno));
	rdma_freeaddrinfo(ai);
	rdma_ack_cm_event(get_event(RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 5000))
		DIE("rdma_resolve_route: %s", strerror(errno));
	rdma_ack_cm_event(get_event(RDMA_CM_EVENT_ROUTE_RESOLVED));
	setup_qp(id);
	/* [source slots][read destination slots][notification][ack] */
	reg_buf(2 * P.depth * P.slot + 4096, IBV_ACCESS_LOCAL_WRITE);
	uint8_t *src = buf, *dst = buf + P.depth * P.slot;
	uint8_t *nbuf = buf + 2 * P.depth * P.slot, *abuf = nbuf + 256;

	cpd = (struct client_pd){ MAGIC, P.depth, P.seed, P.total, P.chunk, P.ord };
	memset(&cp, 0, sizeof(cp));
	cp.private_data = &cpd;
	cp.private_data_len = sizeof(cpd);
	cp.initiator_depth = P.ord;
	cp.responder_resources = P.ord;
	cp.retry_count = 7;
	if (rdma_connect(id, &cp))
		DIE("rdma_connect: %s", strerror(errno));
	ev = get_event(RDMA_CM_EVENT_ESTABLISHED);
	if (ev->param.conn.private_data_len < sizeof(spd))
		DIE("accept private data: %u bytes", ev->param.conn.private_data_len);
	memcpy(&spd, ev->param.conn.private_data, sizeof(spd));
	if (ev->param.conn.initiator_depth && ev->param.conn.initiator_depth < P.ord)
		DIE("negotiated initiator depth %u < our ord %u", ev->param.conn.initiator_depth, P.ord);
	rdma_ack_cm_event(ev);
	if (spd.magic != MAGIC || spd.wlen != P.wlen || spd.rlen != P.rlen)
		DIE("bad accept private data (magic 0x%x wlen %" PRIu64 " rlen %" PRIu64 ")",
		    spd.magic, spd.wlen, spd.rlen);
	printf("rdma-mover: client connected: seed %" PRIu64 " total %" PRIu64 " chunk %u depth %u "
	       "ord %u inline %u server buffer 0x%" PRIx64 " rkey 0x%x\n", P.seed, P.total, P.chunk,
	       P.depth, P.ord, P.max_inline, spd.addr, spd.rkey);
	fflush(stdout);

	rng_state = splitmix(P.seed) | 1;
	double t0 = now();
	uint64_t total = 0;
	struct batch b;
	while (total < P.total) {
		char what[96];
		gen_batch(&b, nbatches);
		deadline = now() + TIMEOUT_S;
		post_recv(abuf, 64, 0xacc);
		for (unsigned i = 0; i < b.n; i++) {
			struct op *o = &b.op[i];
			uint64_t wr_id = nbatches << 8 | i;
			switch (o->type) {
			case OP_SEND:
				pfill(src + i * P.slot + o->loff, o->key, 0, o->len);
				post_send(IBV_WR_SEND, src + i * P.slot + o->loff, o->len, wr_id,
					  o->signaled, o->inl, 0, 0);
				break;
			case OP_WRITE:
				pfill(src + i * P.slot + o->loff, o->key, 0, o->len);
				post_send(IBV_WR_RDMA_WRITE, src + i * P.slot + o->loff, o->len, wr_id,
					  o->signaled, false, spd.addr + o->roff, spd.rkey);
				break;
			case OP_READ:
				/* poison, so a short or skipped placement shows */
				memset(dst + i * P.slot + o->loff, 0xa5 ^ (nbatches & 0xff), o->len);
				post_send(IBV_WR_RDMA_READ, dst + i * P.slot + o->loff, o->len, wr_id,
					  o->signaled, false, spd.addr + o->roff, spd.rkey);
				break;
			}
		}
		struct notif nt = { MAGIC, nbatches, b.n, 0 };
		memcpy(nbuf, &nt, sizeof(nt));
		post_send(IBV_WR_SEND, nbuf, NOTIF_LEN, nbatches << 8 | 0xff, true,
			  P.max_inline >= NOTIF_LEN && (nbatches & 1), 0, 0);
		/* completions: the signaled WRs in SQ order, the notification last */
		static const enum ibv_wc_opcode wco[] = { IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ };
		for (unsigned i = 0; i <= b.n; i++) {
			struct ibv_wc wc;
			if (i < b.n && !b.op[i].signaled)
				continue;
			snprintf(what, sizeof(what), "batch %" PRIu64 " op %u %s", nbatches, i,
				 i < b.n ? op_name[b.op[i].type] : "notification");
			poll_one(scq, &wc, what);
			check_wc(&wc, nbatches << 8 | (i < b.n ? i : 0xff),
				 i < b.n ? wco[b.op[i].type] : IBV_WC_SEND,
				 i < b.n && b.op[i].type == OP_READ ? (int)b.op[i].len : -1, what);
		}
		struct ibv_wc wc;
		snprintf(what, sizeof(what), "batch %" PRIu64 " ack", nbatches);
		poll_one(rcq, &wc, what);
		check_wc(&wc, 0xacc, IBV_WC_RECV, NOTIF_LEN, what);
		struct notif ack;
		memcpy(&ack, abuf, sizeof(ack));
		if (ack.magic != MAGIC || ack.batch != (uint32_t)nbatches || ack.n != b.n)
			DIE("batch %" PRIu64 ": bad ack (magic 0x%x batch %u n %u)", nbatches,
			    ack.magic, ack.batch, ack.n);
		if (ack.mismatches)
			err("batch %" PRIu64 ": the server found %u mismatching bytes", nbatches,
			    ack.mismatches);
		for (unsigned i = 0; i < b.n; i++) {
			struct op *o = &b.op[i];
			if (o->type == OP_READ) {
				snprintf(what, sizeof(what), "batch %" PRIu64 " op %u read len %u roff %" PRIu64,
					 nbatches, i, o->len, o->roff);
				mismatches += pcheck(dst + i * P.slot + o->loff, o->key, o->pstart, o->len, what);
			}
			bytes[o->type] += o->len;
			ops[o->type]++;
			total += o->len;
		}
		if (verbose)
			printf("batch %" PRIu64 ": %u ops, total %" PRIu64 "\n", nbatches, b.n, total);
		nbatches++;
		if (errors > 10)
			break;
	}
	double t = now() - t0;
	disconnect_and_free(true);
	summary("client", t);
	return mismatches || errors;
}

static uint64_t parse_size(const char *s)
{
	char *e;
	uint64_t v = strtoull(s, &e, 0);
	switch (*e) {
	case 'G': case 'g': v <<= 10; /* fallthrough */
	case 'M': case 'm': v <<= 10; /* fallthrough */
	case 'K': case 'k': v <<= 10;
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "18515";
	int srv = -1, c;
	struct client_pd want = { 0 };

	P.total = 256 * MiB;
	P.chunk = MiB;
	P.seed = 1;
	P.depth = 8;
	P.ord = 8;
	while ((c = getopt(argc, argv, "sc:a:p:t:k:S:D:v")) != -1) {
		switch (c) {
		case 's': srv = 1; break;
		case 'c': srv = 0; addr = optarg; break;
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 't': P.total = want.total = parse_size(optarg); break;
		case 'k': P.chunk = want.chunk = parse_size(optarg); break;
		case 'S': P.seed = want.seed = strtoull(optarg, NULL, 0); break;
		case 'D': P.depth = want.depth = atoi(optarg); break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: %s -s [-a ADDR] | -c ADDR  [-p PORT] [-t TOTAL] "
				"[-k CHUNK] [-S SEED] [-D DEPTH] [-v]\n", argv[0]);
			return 2;
		}
	}
	if (srv < 0 || !P.chunk || !P.depth || P.depth > MAX_DEPTH || !P.seed) {
		fprintf(stderr, "rdma-mover: need -s or -c ADDR; 1 <= depth <= %d; seed != 0\n", MAX_DEPTH);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ch = rdma_create_event_channel();
	if (!ch)
		DIE("rdma_create_event_channel: %s", strerror(errno));
	return srv ? server(addr, port, &want) : client(addr, port);
}
