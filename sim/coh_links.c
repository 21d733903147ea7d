/*
 * sim/coh_links.c - the sockets of the coherence model and the links
 * between them: which cores a socket has, the route latency from one
 * socket to another, and the messages of a miss that take the links in
 * turn, each direction of a link busy for a message's size over its
 * bandwidth.
 */
#include "coh_internal.h"

#include <stdlib.h>

/* Occupancy in ps of `bytes` on a link of bw bytes/s, rounded up. */
static uint64_t occupancy_ps(unsigned bytes, double bw)
{
	if (bw <= 0.0 || bytes == 0)
		return 0;
	double ps = (double)bytes * 1e12 / bw;
	uint64_t whole = (uint64_t)ps;
	return (double)whole < ps ? whole + 1 : whole;
}

/* Direction of each hop of each route, walking from the route's source. */
static void plan_hops(struct coh_model *m)
{
	const struct topo *t = m->t;
	unsigned ns = t->nsockets;

	for (unsigned a = 0; a < ns; a++) {
		for (unsigned b = 0; b < ns; b++) {
			unsigned off = t->route_off[a * ns + b], cur = a;
			for (unsigned k = 0; k < t->route_len[a * ns + b]; k++) {
				const struct topo_link *lk = &t->links[t->route_links[off + k]];
				struct hop *h = &m->hops[off + k];
				h->link = t->route_links[off + k];
				h->dir = lk->a == cur ? 0 : 1;
				cur = h->dir ? lk->a : lk->b;
			}
		}
	}
}

/* One-way latency of every route: the sum of its links' latencies (a
 * topology without routes, built by hand, gives its class latencies). */
static void plan_route_latencies(struct coh_model *m)
{
	const struct topo *t = m->t;
	unsigned ns = t->nsockets;

	for (unsigned a = 0; a < ns; a++) {
		for (unsigned b = 0; b < ns; b++) {
			unsigned i = a * ns + b;
			uint64_t lat = 0;

			if (a == b)
				continue;
			for (unsigned k = 0; t->route_len && k < t->route_len[i]; k++)
				lat += t->links[t->route_links[t->route_off[i] + k]].lat_ps;
			if (!t->route_len || !t->route_len[i])
				lat = t->class_lat_ps[class_between(m, a, b)];
			m->route_lat[i] = lat;
		}
	}
}

static void plan_socket_masks(struct coh_model *m)
{
	unsigned ns = m->t->nsockets;

	for (unsigned s = 0; s < ns; s++) {
		m->sock_words[2 * s] = m->words;
		m->sock_first[s] = m->t->ncores;
	}
	for (unsigned c = 0; c < m->t->ncores; c++) {
		unsigned s = socket_of(m, c);

		m->sock_mask[(size_t)s * m->words + (c >> 6)] |= 1ull << (c & 63);
		if (c >> 6 < m->sock_words[2 * s])
			m->sock_words[2 * s] = c >> 6;
		if ((c >> 6) + 1 > m->sock_words[2 * s + 1])
			m->sock_words[2 * s + 1] = (c >> 6) + 1;
		if (c < m->sock_first[s])
			m->sock_first[s] = c;
	}
}

struct class_key {
	const struct coh_model *m;
	unsigned from;
};

/* Sockets by class from key->from, then by their lowest core. */
static int class_cmp(const void *a, const void *b, void *arg)
{
	const struct class_key *key = arg;
	unsigned sa = *(const uint32_t *)a, sb = *(const uint32_t *)b;
	unsigned ka = class_between(key->m, key->from, sa);
	unsigned kb = class_between(key->m, key->from, sb);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (key->m->sock_first[sa] != key->m->sock_first[sb])
		return key->m->sock_first[sa] < key->m->sock_first[sb] ? -1 : 1;
	return sa < sb ? -1 : sa > sb;
}

static void plan_class_order(struct coh_model *m)
{
	unsigned ns = m->t->nsockets;

	for (unsigned a = 0; a < ns; a++) {
		struct class_key key = { .m = m, .from = a };
		uint32_t *order = &m->by_class[(size_t)a * ns];

		for (unsigned s = 0; s < ns; s++)
			order[s] = s;
		qsort_r(order, ns, sizeof(*order), class_cmp, &key);
	}
}

void coh_links_init(struct coh_model *m)
{
	const struct topo *t = m->t;
	unsigned nroute = 0;

	for (unsigned i = 0; t->route_off && t->route_len && i < t->nsockets * t->nsockets; i++)
		if (t->route_off[i] + t->route_len[i] > nroute)
			nroute = t->route_off[i] + t->route_len[i];
	m->hops = coh_xcalloc(nroute, sizeof(*m->hops));
	m->route_lat = coh_xcalloc((size_t)t->nsockets * t->nsockets, sizeof(uint64_t));
	m->sock_mask = coh_xcalloc((size_t)t->nsockets * m->words, sizeof(uint64_t));
	m->sock_words = coh_xcalloc(2 * (size_t)t->nsockets, sizeof(uint32_t));
	m->sock_first = coh_xcalloc(t->nsockets, sizeof(uint32_t));
	m->by_class = coh_xcalloc((size_t)t->nsockets * t->nsockets, sizeof(uint32_t));
	m->ldir = coh_xcalloc(2 * (size_t)t->nlinks, sizeof(*m->ldir));
	m->occ_ctrl = coh_xcalloc(t->nlinks, sizeof(uint64_t));
	m->occ_data = coh_xcalloc(t->nlinks, sizeof(uint64_t));
	m->c.link_msgs = coh_xcalloc(t->nlinks, sizeof(uint64_t));
	m->c.link_bytes = coh_xcalloc(t->nlinks, sizeof(uint64_t));
	for (unsigned i = 0; i < t->nlinks; i++) {
		m->occ_ctrl[i] = occupancy_ps(t->ctrl_msg_bytes, t->links[i].bw_bytes_per_s);
		m->occ_data[i] = occupancy_ps(t->data_msg_bytes, t->links[i].bw_bytes_per_s);
	}
	if (nroute)
		plan_hops(m);
	plan_route_latencies(m);
	plan_socket_masks(m);
	plan_class_order(m);
}

void coh_links_free(struct coh_model *m)
{
	free(m->hops);
	free(m->route_lat);
	free(m->sock_mask);
	free(m->sock_words);
	free(m->sock_first);
	free(m->by_class);
	free(m->ldir);
	free(m->occ_ctrl);
	free(m->occ_data);
	free(m->c.link_msgs);
	free(m->c.link_bytes);
}

/*
 * A message of miss `req` needs a link direction from time t for occ ps.  It
 * goes at once if the link is free then, or if it fits before the latest
 * reservation (requests arrive in simulated-time order but may start
 * later, behind a busy line, so reservations can lie ahead of t); otherwise
 * it waits for the latest reservation to end.  The messages of one miss (its
 * invalidations) do not wait for each other: the fan-out charge covers
 * them; they only extend the reservation.  Returns the wait.
 */
static uint64_t link_reserve(struct link_dir *d, uint64_t req, uint64_t t, uint64_t occ)
{
	uint64_t w = 0;

	if (occ == 0)
		return 0;
	if (d->req == req && t < d->free_at) {
		d->free_at += occ;
		return 0;
	}
	if (t < d->free_at && t + occ <= d->res_start)
		return 0;
	if (t < d->free_at)
		w = d->free_at - t;
	d->req = req;
	d->res_start = t + w;
	d->free_at = t + w + occ;
	return w;
}

/*
 * Send one message of the current miss (m->req) from socket a to socket b,
 * leaving at t0: it takes each link of the route in turn (occupancy, then
 * the link's latency).  Counts it on every link.  Returns the time spent
 * waiting; *arrive = arrival.
 */
uint64_t coh_msg_send(struct coh_model *m, unsigned a, unsigned b, bool data,
		      uint64_t t0, uint64_t *arrive)
{
	const struct topo *t = m->t;
	unsigned ns = t->nsockets, off = t->route_off[a * ns + b];
	unsigned bytes = data ? t->data_msg_bytes : t->ctrl_msg_bytes;
	uint64_t now = t0, wait = 0;

	for (unsigned k = 0; k < t->route_len[a * ns + b]; k++) {
		const struct hop *h = &m->hops[off + k];
		uint64_t occ = data ? m->occ_data[h->link] : m->occ_ctrl[h->link];
		uint64_t w = link_reserve(&m->ldir[2 * h->link + h->dir], m->req, now, occ);
		wait += w;
		now += w + occ + t->links[h->link].lat_ps;
		m->c.link_msgs[h->link]++;
		m->c.link_bytes[h->link] += bytes;
	}
	if (arrive)
		*arrive = now;
	return wait;
}
