/* Small multiples (pq_svg_panels_write): more series than a panel holds become panels of
 * at most `per`, spread evenly, pairs kept together, every panel on the same axes (the
 * same tick labels although each panel's own data spans a different range), ids and
 * captions that say which panel is which, panel 1's first line in grey in the others for
 * reference; and the cases that stay one chart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "report/svg.h"

static size_t count(const char *h, const char *what)
{
	size_t n = 0;
	for (const char *p = h; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The SVG of the figure whose id is `id` (up to its </figure>), copied into buf. */
static void figure_of(const char *h, const char *id, char *buf, size_t n)
{
	char key[80];
	snprintf(key, sizeof key, "<figure class=\"chart\" id=\"%s\">", id);
	const char *a = strstr(h, key);
	if (!a)
		fail_msg("no figure %s", id);
	const char *b = strstr(a, "</figure>");
	assert_non_null(b);
	size_t len = (size_t)(b - a) < n - 1 ? (size_t)(b - a) : n - 1;
	memcpy(buf, a, len);
	buf[len] = '\0';
}

/* The axes of a figure: its <svg> up to the clip path (ticks, tick labels, axis labels),
 * without the figure's own id. */
static void axes_of(const char *fig, char *buf, size_t n)
{
	const char *a = strstr(fig, "<g transform"), *b = strstr(fig, "<clipPath");
	assert_non_null(a);
	assert_non_null(b);
	size_t len = (size_t)(b - a) < n - 1 ? (size_t)(b - a) : n - 1;
	memcpy(buf, a, len);
	buf[len] = '\0';
}

static double X[] = {1, 2, 3, 4};
static double Y[9][4];
static char NAME[9][32];

static pq_svg_chart make(pq_svg_series *s, size_t ns)
{
	for (size_t i = 0; i < ns; i++) {
		for (size_t k = 0; k < 4; k++) /* series i spans 0 .. 10^(i/3+1): panels differ */
			Y[i][k] = (double)k / 3.0 * 10.0 * (i >= 6 ? 100 : i >= 3 ? 10 : 1);
		snprintf(NAME[i], sizeof NAME[i], "series-%zu", i);
		s[i] = (pq_svg_series){NAME[i], X, Y[i], 4, NULL, NULL, PQ_SVG_LINE, (int)i};
	}
	return (pq_svg_chart){.id = "fig-t", .caption = "What is drawn.", .x = {"x (ms)", 0, 0, 0},
			      .y = {"y (ms)", 0, 0, 0}, .s = s, .ns = ns};
}

static char *draw(const pq_svg_chart *c, size_t per, size_t group, pq_out *o)
{
	pq_out_init(o, 1 << 20);
	pq_svg_panels_write(o, c, per, group);
	assert_int_equal(o->err, 0);
	return (char *)pq_buf_str(&o->b);
}

/* Nine series, four to a panel: three panels of three, one grid, same axes. */
static void nine_as_three(void **state)
{
	(void)state;
	pq_svg_series s[9];
	pq_svg_chart c = make(s, 9);
	pq_out o;
	const char *h = draw(&c, 4, 1, &o);
	assert_int_equal(count(h, "<div class=\"panels\">"), 1);
	assert_int_equal(count(h, "<figure class=\"chart\""), 3);
	static char f[3][1 << 16], ax[3][1 << 15];
	const char *ids[] = {"fig-t", "fig-t-p1", "fig-t-p2"};
	for (int i = 0; i < 3; i++) {
		figure_of(h, ids[i], f[i], sizeof f[i]);
		axes_of(f[i], ax[i], sizeof ax[i]);
		/* three in each legend, and from panel 2 on panel 1's first line for reference */
		assert_int_equal(count(f[i], "series-"), i ? 4 : 3);
		assert_int_equal(count(f[i], "series-0 (panel 1, for reference)"), i ? 1 : 0);
		assert_int_equal(count(f[i], "stroke=\"#a0a0a0\""), i ? 2 : 0); /* its line and legend */
	}
	assert_string_equal(ax[0], ax[1]);
	assert_string_equal(ax[0], ax[2]);
	assert_non_null(strstr(ax[0], ">1000<")); /* the largest panel's range, in the first */
	assert_non_null(strstr(f[0], "What is drawn. Panel 1 of 3; the panels share their axes."));
	assert_non_null(strstr(f[2], "Panel 3 of 3"));
	/* order kept: the first panel holds 0, 1, 2, the last 6, 7, 8 */
	assert_non_null(strstr(f[0], "series-2"));
	assert_null(strstr(f[0], "series-3"));
	assert_non_null(strstr(f[2], "series-8"));
	pq_out_dispose(&o);
}

/* Pairs (a median and its p95) stay together: six series as pairs, four to a panel, are
 * two panels of four and two, never a pair split. */
static void pairs_kept(void **state)
{
	(void)state;
	pq_svg_series s[9];
	pq_svg_chart c = make(s, 6);
	pq_out o;
	const char *h = draw(&c, 4, 2, &o);
	static char f[2][1 << 16];
	figure_of(h, "fig-t", f[0], sizeof f[0]);
	figure_of(h, "fig-t-p1", f[1], sizeof f[1]);
	assert_non_null(strstr(f[0], "series-3"));
	assert_null(strstr(f[0], "series-4"));
	assert_non_null(strstr(f[1], "series-4"));
	assert_non_null(strstr(f[1], "series-5"));
	pq_out_dispose(&o);
	/* five single series: three and two, not four and one */
	c = make(s, 5);
	h = draw(&c, 4, 1, &o);
	figure_of(h, "fig-t", f[0], sizeof f[0]);
	assert_non_null(strstr(f[0], "series-2"));
	assert_null(strstr(f[0], "series-3"));
	pq_out_dispose(&o);
}

/* Up to `per` series, or a per or group out of range: one chart, no grid. */
static void one_chart(void **state)
{
	(void)state;
	pq_svg_series s[9];
	pq_out o;
	const size_t cases[][3] = {{4, 4, 1}, {2, 4, 1}, {9, PQ_SVG_PANEL_MAX + 1, 1}, {9, 4, 0}, {9, 4, 5}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pq_svg_chart c = make(s, cases[i][0]);
		const char *h = draw(&c, cases[i][1], cases[i][2], &o);
		assert_int_equal(count(h, "<figure class=\"chart\""), 1);
		assert_int_equal(count(h, "panels"), 0);
		assert_null(strstr(h, "Panel 1"));
		pq_out_dispose(&o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(nine_as_three),
	    cmocka_unit_test(pairs_kept),
	    cmocka_unit_test(one_chart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
