#include "zeek/run.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zeek/gz.h"
#include "zeek/scan.h"

#define NO_HDR ((size_t)-1)
#define GZ_MAX_LINE ((size_t)64 << 20)

typedef struct unit {
	size_t file;
	char *base;        /* the mapped file (shared by its units); NULL for gzip */
	size_t off, end;   /* this unit's bytes */
	size_t size;       /* the whole file */
	int json, last;
	size_t last_hash;  /* phase 1: start of the last '#' line in the unit, or NO_HDR */
	size_t hdr;        /* start of the header lines in effect at off, or NO_HDR */
	uint64_t lines;    /* phase 2 */
} unit;

typedef struct job {
	const pq_zeek_files *files;
	const pq_zeek_run_cfg *cfg;
	unit *u;
	size_t nu;
	atomic_size_t next;
	int phase;
	atomic_int failed;
	pthread_mutex_t lock;
	pq_diag diag;
} job;

static void fail(job *j, int rc, const pq_diag *d)
{
	pthread_mutex_lock(&j->lock);
	if (!atomic_load(&j->failed)) {
		j->diag = *d;
		j->diag.code = rc;
		atomic_store(&j->failed, rc);
	}
	pthread_mutex_unlock(&j->lock);
}

/* The start of the unit's last line that begins with '#' (NO_HDR: none). Searched from
 * the end backwards: a unit is read only back to its last header line, not twice over
 * (rotated logs concatenated have a header every few MB). */
static void find_last_hash(unit *u)
{
	u->last_hash = NO_HDR;
	const char *b = u->base;
	for (size_t end = u->end; end > u->off;) {
		const char *h = memrchr(b + u->off, '#', end - u->off);
		if (!h)
			break;
		size_t at = (size_t)(h - b);
		if (at == 0 || b[at - 1] == '\n') {
			u->last_hash = at;
			break;
		}
		end = at;
	}
}

/* The run of '#' lines that ends with the line at pos: walk back while the line before
 * also starts with '#'. */
static size_t run_start(const char *b, size_t pos)
{
	while (pos > 0) {
		size_t prev = pos - 1; /* the '\n' ending the previous line */
		while (prev > 0 && b[prev - 1] != '\n')
			prev--;
		if (b[prev] != '#')
			break;
		pos = prev;
	}
	return pos;
}

static size_t header_len(const char *b, size_t start, size_t limit)
{
	size_t p = start;
	while (p < limit && b[p] == '#') {
		const char *nl = memchr(b + p, '\n', limit - p);
		p = nl ? (size_t)(nl - b) + 1 : limit;
	}
	return p - start;
}

static int scan_gzip(job *j, unit *u, pq_zeek_scan *s, pq_diag *d)
{
	const char *path = j->files->v[u->file];
	pq_zeek_gz *g = NULL;
	size_t cap = 1 << 22, have = 0;
	char *buf = NULL;
	int rc = pq_zeek_gz_open(path, &g, d), skipping = 0;
	if (rc < 0)
		return rc;
	if (!(buf = malloc(cap))) {
		rc = PQ_ENOMEM;
		goto out;
	}
	for (;;) {
		long r = pq_zeek_gz_read(g, buf + have, cap - have, d);
		if (r < 0) {
			rc = (int)r;
			goto out;
		}
		if (r == 0)
			break;
		if (skipping) { /* the rest of a line counted as too long: up to its newline, dropped */
			const char *nl = memchr(buf, '\n', (size_t)r);
			if (!nl)
				continue;
			have = (size_t)r - (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, have);
			skipping = 0;
			s->line++;
		} else {
			have += (size_t)r;
		}
		long used = pq_zeek_scan_buf(s, buf, have, 0);
		if (used < 0) {
			rc = (int)used;
			goto out;
		}
		memmove(buf, buf + used, have - (size_t)used);
		have -= (size_t)used;
		if (have == cap) { /* one line fills the buffer: grow, or skip it */
			char *nb = cap < GZ_MAX_LINE ? realloc(buf, cap * 2) : NULL;
			if (nb) {
				buf = nb;
				cap *= 2;
			} else {
				pq_zeek_agg_bad(s->agg, path, s->unit, s->line + 1, PQ_ZB_TOOLONG, "over 64 MiB");
				skipping = 1;
				have = 0;
			}
		}
	}
	if (skipping) /* the input ended inside the long line */
		s->line++;
	/* a damaged or cut stream leaves its last line unfinished; data after a whole stream
	 * that is not gzip is counted and named with its offset, never dropped in silence */
	enum pq_zeek_gz_end end = pq_zeek_gz_trouble_kind(g);
	long used = pq_zeek_scan_buf(s, buf, have, end != PQ_ZGZ_DAMAGED);
	if (used < 0) {
		rc = (int)used;
		goto out;
	}
	if (end != PQ_ZGZ_OK)
		pq_zeek_agg_bad(s->agg, path, s->unit, s->line + 1, end == PQ_ZGZ_TAIL ? PQ_ZB_GZTAIL : PQ_ZB_GZIP,
				pq_zeek_gz_trouble(g));
out:
	free(buf);
	pq_zeek_gz_free(g);
	return rc;
}

static int do_unit(job *j, unit *u, uint32_t idx, pq_zeek_agg *agg, pq_diag *d)
{
	pq_zeek_scan s;
	pq_zeek_scan_init(&s, agg, j->files->v[u->file], idx, u->json);
	int rc = 0;
	if (!u->base) {
		rc = scan_gzip(j, u, &s, d);
	} else {
		if (u->hdr != NO_HDR)
			pq_zeek_scan_inherit(&s, u->base + u->hdr, header_len(u->base, u->hdr, u->off));
		long used = pq_zeek_scan_buf(&s, u->base + u->off, u->end - u->off, u->last);
		rc = used < 0 ? (int)used : 0;
	}
	pq_zeek_scan_finish(&s);
	u->lines = s.line;
	return rc;
}

typedef struct worker {
	job *j;
	pq_zeek_agg agg;
} worker;

static void *work(void *arg)
{
	worker *w = arg;
	job *j = w->j;
	for (;;) {
		size_t i = atomic_fetch_add(&j->next, 1);
		if (i >= j->nu || atomic_load(&j->failed))
			break;
		if (j->phase == 1) {
			if (j->u[i].base && !j->u[i].json)
				find_last_hash(&j->u[i]);
			continue;
		}
		pq_diag d = {0};
		int rc = do_unit(j, &j->u[i], (uint32_t)i, &w->agg, &d);
		if (rc) {
			if (!d.msg[0])
				pq_diag_set(&d, rc, "%s: %s", j->files->v[j->u[i].file], pq_strerror(rc));
			fail(j, rc, &d);
		}
	}
	return NULL;
}

static int add_unit(unit **u, size_t *n, size_t *cap, unit x)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		unit *nu = realloc(*u, nc * sizeof *nu);
		if (!nu)
			return PQ_ENOMEM;
		*u = nu;
		*cap = nc;
	}
	(*u)[(*n)++] = x;
	return 0;
}

/* Maps a plain file and cuts it into line-aligned units. */
static int plan_file(const pq_zeek_files *files, size_t fi, size_t chunk, unit **u, size_t *n, size_t *cap,
		     uint64_t *bytes, pq_diag *d)
{
	const char *path = files->v[fi];
	int gz = pq_zeek_is_gzip(path, d);
	if (gz < 0)
		return gz;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return pq_diag_set(d, -e, "%s: cannot open: %s", path, strerror(e));
	}
	*bytes += (uint64_t)st.st_size;
	if (gz || st.st_size == 0) {
		close(fd);
		return add_unit(u, n, cap, (unit){.file = fi, .hdr = NO_HDR, .last = 1, .last_hash = NO_HDR});
	}
	size_t size = (size_t)st.st_size;
	char *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	int e = errno;
	close(fd);
	if (base == MAP_FAILED)
		return pq_diag_set(d, -e, "%s: cannot map: %s", path, strerror(e));
	madvise(base, size, MADV_SEQUENTIAL);
	size_t first = 0;
	while (first < size && (base[first] == ' ' || base[first] == '\n' || base[first] == '\r'))
		first++;
	int json = first < size && base[first] == '{';
	for (size_t off = 0; off < size;) {
		size_t end = off + chunk < size ? off + chunk : size;
		if (end < size) {
			const char *nl = memchr(base + end, '\n', size - end);
			end = nl ? (size_t)(nl - base) + 1 : size;
		}
		int rc = add_unit(u, n, cap, (unit){.file = fi, .base = base, .off = off, .end = end, .size = size,
						     .json = json, .last = end == size, .hdr = NO_HDR,
						     .last_hash = NO_HDR});
		if (rc)
			return rc;
		off = end;
	}
	return 0;
}

static void run_threads(job *j, worker *w, int nt)
{
	pthread_t *t = calloc((size_t)nt, sizeof *t);
	int started = 0;
	atomic_store(&j->next, 0);
	for (int i = 1; t && i < nt; i++, started++)
		if (pthread_create(&t[i], NULL, work, &w[i]))
			break;
	work(&w[0]);
	for (int i = 1; i <= started; i++)
		pthread_join(t[i], NULL);
	free(t);
}

/* Header in effect at each unit's start: the '#' run ending at the last '#' line of
 * the nearest earlier unit of the same file that has one. */
static void link_headers(job *j)
{
	for (size_t i = 1; i < j->nu; i++) {
		unit *u = &j->u[i];
		if (!u->base || u->json || u->off == 0)
			continue;
		for (size_t k = i; k-- > 0 && j->u[k].file == u->file;) {
			if (j->u[k].last_hash != NO_HDR) {
				u->hdr = run_start(u->base, j->u[k].last_hash);
				break;
			}
		}
	}
}

/* Lines of samples were counted per unit: make them lines of the file. */
static void fix_lines(job *j, pq_zeek_agg *out)
{
	uint64_t *base = calloc(j->nu ? j->nu : 1, sizeof *base);
	if (!base)
		return;
	for (size_t i = 1; i < j->nu; i++)
		base[i] = j->u[i].file == j->u[i - 1].file ? base[i - 1] + j->u[i - 1].lines : 0;
	for (int i = 0; i < out->nsamples; i++) {
		pq_zeek_sample *s = &out->samples[i];
		if (s->unit < j->nu)
			s->line += base[s->unit];
		s->unit = 0;
	}
	free(base);
}

int pq_zeek_run(const pq_zeek_files *files, const pq_zeek_run_cfg *cfg, pq_zeek_agg *out, pq_diag *d)
{
	job j;
	memset(&j, 0, sizeof j);
	j.files = files;
	j.cfg = cfg;
	pthread_mutex_init(&j.lock, NULL);
	size_t cap = 0;
	uint64_t bytes = 0;
	int rc = 0, nt = cfg->threads > 0 ? cfg->threads : 1;
	worker *w = calloc((size_t)nt, sizeof *w);
	if (!w) {
		rc = PQ_ENOMEM;
		goto out;
	}
	for (int i = 0; i < nt; i++) {
		w[i].j = &j;
		pq_zeek_agg_init(&w[i].agg, cfg->cls);
		w[i].agg.want_chains = cfg->want_chains;
	}
	for (size_t f = 0; f < files->n && !rc; f++)
		rc = plan_file(files, f, cfg->chunk ? cfg->chunk : (size_t)64 << 20, &j.u, &j.nu, &cap, &bytes, d);
	if (rc)
		goto out;
	j.phase = 1;
	run_threads(&j, w, nt);
	link_headers(&j);
	j.phase = 2;
	run_threads(&j, w, nt);
	if ((rc = atomic_load(&j.failed))) {
		*d = j.diag;
		goto out;
	}
	for (int i = 0; i < nt && !rc; i++)
		rc = pq_zeek_agg_merge(out, &w[i].agg);
	if (rc) {
		pq_diag_set(d, rc, "out of memory merging the counts");
		goto out;
	}
	fix_lines(&j, out);
	out->files += files->n;
	for (size_t f = 0; f < files->n && !rc; f++)
		if (pq_zeek_agg_input(out, files->v[f]))
			rc = pq_diag_set(d, PQ_ENOMEM, "out of memory");
	out->bytes += bytes;
out:
	for (size_t i = 0; i < j.nu; i++)
		if (j.u[i].base && j.u[i].off == 0)
			munmap(j.u[i].base, j.u[i].size);
	for (int i = 0; w && i < nt; i++)
		pq_zeek_agg_dispose(&w[i].agg);
	free(w);
	free(j.u);
	pthread_mutex_destroy(&j.lock);
	return rc;
}
