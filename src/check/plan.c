#include "check/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const pq_chk_shape_info pq_chk_shapes[PQ_CHK_SHAPES] = {
	[PQ_CHK_WHOLE] = {"whole", "the ClientHello in one write (one segment when it fits the MSS)"},
	[PQ_CHK_SPLIT] = {"split", "two segments, cut at the middle of the record"},
	[PQ_CHK_KEY_SHARE] = {"key-share", "two segments, cut in the middle of the group's key share"},
	[PQ_CHK_SNI] = {"sni", "two segments, cut in the middle of the SNI host name"},
	[PQ_CHK_BYTES] = {"bytes", "one byte per segment"},
	[PQ_CHK_DELAYED] = {"delayed", "two segments cut at the middle, the second after --delay"},
	[PQ_CHK_HRR] = {"hrr", "the first ClientHello shares only --hrr-share: the server must "
				 "answer with a HelloRetryRequest for the group"},
};

static int one_cut(pq_chk_plan *p, size_t at)
{
	p->cuts = malloc(sizeof *p->cuts);
	if (!p->cuts)
		return PQ_ENOMEM;
	p->cuts[0] = at;
	p->ncuts = 1;
	return 0;
}

int pq_chk_plan_make(pq_chk_shape shape, const pq_chk_hello *h, uint16_t group,
		       int64_t delay_ns, pq_chk_plan *out, pq_diag *d)
{
	pq_chk_plan p = {0};
	const pq_chk_share *ks;
	int rc = 0;
	switch (shape) {
	case PQ_CHK_WHOLE:
	case PQ_CHK_HRR:
		break;
	case PQ_CHK_DELAYED: /* the cut of split, and a pause before the second half */
		p.delay_ns = delay_ns;
		rc = one_cut(&p, h->record_len / 2);
		break;
	case PQ_CHK_SPLIT:
		rc = one_cut(&p, h->record_len / 2);
		break;
	case PQ_CHK_KEY_SHARE:
		if (!(ks = pq_chk_hello_share(h, group)) || ks->len < 2)
			return pq_diag_set(d, PQ_EINVAL,
					   "the ClientHello carries no key share for group 0x%04X to cut in",
					   group);
		rc = one_cut(&p, ks->off + ks->len / 2);
		break;
	case PQ_CHK_SNI:
		if (h->sni_len < 2)
			return pq_diag_set(d, PQ_EINVAL,
					   "the ClientHello has no SNI host name of 2 bytes or more to cut in");
		rc = one_cut(&p, h->sni_off + h->sni_len / 2);
		break;
	case PQ_CHK_BYTES:
		if (h->record_len < 2)
			break;
		p.cuts = malloc((h->record_len - 1) * sizeof *p.cuts);
		if (!p.cuts)
			return PQ_ENOMEM;
		for (size_t i = 1; i < h->record_len; i++)
			p.cuts[i - 1] = i;
		p.ncuts = h->record_len - 1;
		break;
	default:
		return pq_diag_set(d, PQ_EINVAL, "shape %d is not a probe shape", (int)shape);
	}
	if (rc < 0)
		return pq_diag_set(d, rc, "out of memory for a probe's segments");
	*out = p;
	return 0;
}

void pq_chk_plan_dispose(pq_chk_plan *p)
{
	free(p->cuts);
	p->cuts = NULL;
	p->ncuts = 0;
}

static void names_list(char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; i < PQ_CHK_SHAPES && at < n; i++)
		at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", pq_chk_shapes[i].name);
}

int pq_chk_shapes_parse(const char *s, const char *what, unsigned *mask, pq_diag *d)
{
	unsigned m = 0;
	char known[160];
	names_list(known, sizeof known);
	if (strcmp(s, "all") == 0) {
		*mask = (1u << PQ_CHK_SHAPES) - 1;
		return 0;
	}
	for (const char *p = s;;) {
		size_t len = strcspn(p, ",");
		int i;
		for (i = 0; i < PQ_CHK_SHAPES; i++)
			if (strlen(pq_chk_shapes[i].name) == len &&
			    strncmp(pq_chk_shapes[i].name, p, len) == 0)
				break;
		if (i == PQ_CHK_SHAPES)
			return pq_diag_set(d, PQ_EINVAL,
					   "%s: '%.*s' in '%s' is not a probe shape (all, or a comma list of %s)",
					   what, (int)len, p, s, known);
		m |= 1u << i;
		p += len;
		if (!*p)
			break;
		p++;
	}
	*mask = m;
	return 0;
}
