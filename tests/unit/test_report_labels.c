/* No mark label overlaps another label, a line, a point or a mark's line: checked on the
 * SVG's own geometry (report/svg.h). Each chart is drawn, its labels' boxes read from the
 * <text class="ml"> elements (x, baseline, and PQ_SVG_LABEL_CHAR units a character), its
 * series' and marks' segments and its points from the drawn paths, circles and rects; the
 * hostile cases: many cliffs close together, long labels (an arm's long name), marks at
 * both edges, data at the top of the plot beneath the marks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "report/svg.h"

#define SVG_W 600.0

typedef struct box {
	double x0, y0, x1, y1;
} box;

typedef struct geom {
	box label[PQ_SVG_MAX_MARKS];
	size_t nlabels;
	double seg[4096][4]; /* x0 y0 x1 y1, in the SVG's units */
	size_t nsegs;
	double pt[1024][2];
	size_t npts;
} geom;

static double attr(const char *s, const char *name)
{
	const char *a = strstr(s, name);
	assert_non_null(a);
	return strtod(a + strlen(name), NULL);
}

static void add_seg(geom *g, double x0, double y0, double x1, double y1)
{
	assert_true(g->nsegs < 4096);
	double *s = g->seg[g->nsegs++];
	s[0] = x0, s[1] = y0, s[2] = x1, s[3] = y1;
}

/* The absolute M/L/V commands of a path's d (markers' relative parts: their first point). */
static void path_of(geom *g, const char *d, double dy)
{
	double x = 0, y = 0;
	int started = 0;
	while (*d && *d != '"') {
		char cmd = *d++;
		char *end;
		if (cmd == 'M' || cmd == 'L') {
			double nx = strtod(d, &end), ny = strtod(end, &end) + dy;
			if (cmd == 'L' && started)
				add_seg(g, x, y, nx, ny);
			else if (g->npts < 1024) /* a marker's or a line's start */
				g->pt[g->npts][0] = nx, g->pt[g->npts++][1] = ny;
			x = nx, y = ny, started = 1, d = end;
		} else if (cmd == 'V') {
			double ny = strtod(d, &end) + dy;
			add_seg(g, x, y, x, ny);
			y = ny, d = end;
		} else if (cmd == 'l' || cmd == 'h' || cmd == 'm' || cmd == 'z') {
			while (*d && *d != '"' && !strchr("MLV", *d))
				d++;
		}
	}
}

static void read_svg(const char *page, geom *g)
{
	memset(g, 0, sizeof *g);
	/* the chart's SVG only (the legend after it draws its own small samples) */
	const char *stop = strstr(page, "</svg>");
	assert_non_null(stop);
	char *h = strndup(page, (size_t)(stop - page));
	assert_non_null(h);
	const char *t = h;
	while ((t = strstr(t, "<text class=\"ml")) != NULL) {
		int end = strncmp(t, "<text class=\"ml end\"", 20) == 0;
		double x = attr(t, " x=\""), y = attr(t, " y=\"");
		const char *s = strchr(t, '>') + 1, *e = strstr(s, "</text>");
		double w = (double)(e - s) * PQ_SVG_LABEL_CHAR;
		box *b = &g->label[g->nlabels++];
		*b = (box){end ? x - w : x, y + PQ_SVG_LABEL_DESCENT - PQ_SVG_LABEL_ROW, end ? x : x + w,
			   y + PQ_SVG_LABEL_DESCENT};
		t = e;
	}
	const char *grp = strstr(h, "<g transform=\"translate(0 ");
	assert_non_null(grp);
	double dy = strtod(grp + strlen("<g transform=\"translate(0 "), NULL);
	const char *p = strstr(grp, "<clipPath");
	for (const char *d = p; (d = strstr(d, " d=\"")) != NULL; d += 4)
		path_of(g, d + 4, dy);
	for (const char *c = p; (c = strstr(c, "<circle cx=\"")) != NULL; c++)
		g->pt[g->npts][0] = attr(c, "cx=\""), g->pt[g->npts++][1] = attr(c, "cy=\"") + dy;
	for (const char *r = p; (r = strstr(r, "<rect x=\"")) != NULL && g->npts < 1024; r++)
		g->pt[g->npts][0] = attr(r, "x=\"") + 3, g->pt[g->npts++][1] = attr(r, "y=\"") + 3 + dy;
	free(h);
}

static int boxes_meet(const box *a, const box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Whether segment s passes through box b (sampled every half unit). */
static int seg_meets(const double *s, const box *b)
{
	double len = hypot(s[2] - s[0], s[3] - s[1]);
	size_t n = (size_t)(len * 2) + 1;
	for (size_t i = 0; i <= n; i++) {
		double x = s[0] + (s[2] - s[0]) * (double)i / (double)n, y = s[1] + (s[3] - s[1]) * (double)i / (double)n;
		if (x >= b->x0 && x <= b->x1 && y >= b->y0 && y <= b->y1)
			return 1;
	}
	return 0;
}

static void check(const pq_svg_chart *c, size_t want_labels)
{
	pq_out o;
	pq_out_init(&o, 1 << 20);
	pq_svg_chart_write(&o, c);
	assert_int_equal(o.err, 0);
	geom *g = calloc(1, sizeof *g);
	assert_non_null(g);
	read_svg(pq_buf_str(&o.b), g);
	assert_int_equal(g->nlabels, want_labels);
	assert_true(g->nsegs > 0 && g->npts > 0);
	for (size_t i = 0; i < g->nlabels; i++) {
		const box *b = &g->label[i];
		if (b->x0 < 0 || b->x1 > SVG_W || b->y0 < 0)
			fail_msg("%s: label %zu [%.1f, %.1f] leaves the chart", c->id, i, b->x0, b->x1);
		for (size_t k = i + 1; k < g->nlabels; k++)
			if (boxes_meet(b, &g->label[k]))
				fail_msg("%s: labels %zu and %zu overlap", c->id, i, k);
		for (size_t k = 0; k < g->nsegs; k++)
			if (seg_meets(g->seg[k], b))
				fail_msg("%s: label %zu meets a line (%.1f,%.1f)-(%.1f,%.1f)", c->id, i, g->seg[k][0],
					 g->seg[k][1], g->seg[k][2], g->seg[k][3]);
		for (size_t k = 0; k < g->npts; k++) {
			box m = {g->pt[k][0] - 4, g->pt[k][1] - 4, g->pt[k][0] + 4, g->pt[k][1] + 4};
			if (boxes_meet(b, &m))
				fail_msg("%s: label %zu meets a point (%.1f, %.1f)", c->id, i, g->pt[k][0], g->pt[k][1]);
		}
	}
	double plot[4];
	pq_svg_plot_box(c, plot);
	for (size_t k = 0; k < g->npts; k++) /* the data where the plot is */
		assert_true(g->pt[k][1] >= plot[1] - 1e-6 && g->pt[k][1] <= plot[3] + 8);
	free(g);
	pq_out_dispose(&o);
}

/* A step line reaching the top of the plot under the marks, at sizes 8..16 kB. */
static double X[] = {8, 9, 10, 11, 12, 13, 14, 15, 16}, Y[] = {150, 150, 150, 200, 200, 250, 250, 300, 300},
	      M[] = {150, 150, 200, 200, 250, 250, 300, 300, 300};

static pq_svg_chart chart(const char *id, const pq_svg_mark *m, size_t nm, pq_svg_series *s)
{
	s[0] = (pq_svg_series){"measured", X, Y, 9, NULL, NULL, PQ_SVG_LINE, 0};
	s[1] = (pq_svg_series){"model", X, M, 9, NULL, NULL, PQ_SVG_STEP, 1};
	return (pq_svg_chart){.id = id, .caption = "c", .x = {"chain size (kB)", 0, 0, 0}, .y = {"ms", 0, 0, 0},
			      .s = s, .ns = 2, .marks = m, .nmarks = nm};
}

/* The 50 ms figure's marks: two cliffs and two steps, labels as the report writes them. */
static void report_like(void **state)
{
	(void)state;
	pq_svg_series s[2];
	pq_svg_mark m[] = {{12.58, "model: ecdsa-p256 cliff 12.58 kB"}, {14.34, "step +1.0 RTT"},
			   {11.14, "model: ml-dsa-44 cliff 11.14 kB"}, {12.29, "step +1.0 RTT"}};
	pq_svg_chart c = chart("fig-a", m, 4, s);
	check(&c, 4);
}

/* Sixteen cliffs a tenth of a kB apart, long labels; and at both edges. */
static void hostile(void **state)
{
	(void)state;
	pq_svg_series s[2];
	pq_svg_mark m[PQ_SVG_MAX_MARKS];
	char lab[PQ_SVG_MAX_MARKS][80];
	for (size_t i = 0; i < PQ_SVG_MAX_MARKS; i++) {
		snprintf(lab[i], sizeof lab[i], "model: a-very-long-arm-name-%02zu padded to 12 KiB cliff %.2f kB", i,
			 12 + 0.1 * (double)i);
		m[i] = (pq_svg_mark){12 + 0.1 * (double)i, lab[i]};
	}
	pq_svg_chart c = chart("fig-many", m, PQ_SVG_MAX_MARKS, s);
	check(&c, PQ_SVG_MAX_MARKS);
	pq_svg_mark edges[] = {{8, "model: left edge cliff 8.00 kB"}, {16, "model: right edge cliff 16.00 kB"},
			       {15.9, "step +2.0 RTT"}, {8.05, "step +1.0 RTT"}};
	c = chart("fig-edges", edges, 4, s);
	check(&c, 4);
	/* a label longer than the plot is wide (an arm's name of 96 bytes): cut to fit */
	char longer[200];
	memset(longer, 'x', 150);
	longer[150] = '\0';
	pq_svg_mark one[] = {{12, longer}};
	c = chart("fig-long", one, 1, s);
	check(&c, 1);
	/* no marks: no band, nothing to check but that the data is drawn */
	c = chart("fig-none", NULL, 0, s);
	check(&c, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(report_like),
	    cmocka_unit_test(hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
