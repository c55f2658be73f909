/* Small SVG charts drawn in C, inline in the report: line, step and point series, bands
 * (confidence intervals), vertical marks (cliffs), linear or log axes with ticks and
 * units, and an HTML legend below the chart (so it never covers data and stays
 * readable on a phone). Styles combine an Okabe-Ito colour with a dash pattern and a
 * marker shape, so series stay apart in greyscale and for colour-blind readers.
 *
 * Contract: pq_svg_chart appends one <figure> to *o (errors are sticky in *o). Points
 * that are not finite, or not positive on a log axis, are skipped. */
#ifndef PQ_REPORT_SVG_H
#define PQ_REPORT_SVG_H

#include <stddef.h>

#include "report/out.h"

enum pq_svg_kind { PQ_SVG_LINE, PQ_SVG_STEP, PQ_SVG_POINTS };

typedef struct pq_svg_axis {
	const char *label; /* with its unit: "chain size (kB)" */
	double lo, hi;	   /* lo == hi: from the data */
	int log;	   /* log10 scale */
} pq_svg_axis;

#define PQ_SVG_STYLE_REF (-1)

typedef struct pq_svg_series {
	const char *name;
	const double *x, *y;
	size_t n;
	const double *ylo, *yhi; /* a band around y (e.g. a 95 % interval), or NULL */
	enum pq_svg_kind kind;
	int style; /* 0..: colour, dash and marker; PQ_SVG_STYLE_REF: a thin grey reference line */
} pq_svg_series;

#define PQ_SVG_MAX_MARKS 16

typedef struct pq_svg_mark {
	double x;
	const char *label; /* short: "model 11.5 kB" */
} pq_svg_mark;

typedef struct pq_svg_chart {
	const char *id;	     /* HTML id of the figure (tests look for it) */
	const char *caption; /* one sentence under the chart */
	pq_svg_axis x, y;
	const pq_svg_series *s;
	size_t ns;
	const pq_svg_mark *marks;
	size_t nmarks; /* at most PQ_SVG_MAX_MARKS are drawn */
	int diagonal; /* draw y = x (agreement charts) */
} pq_svg_chart;

void pq_svg_chart_write(pq_out *o, const pq_svg_chart *c);

/* Small multiples: c's series, at most `per` to a panel (per <= PQ_SVG_PANEL_MAX), as few
 * panels as that takes with the series spread evenly over them, each panel a chart of its
 * own on the whole figure's axes (the extent of every series), in a grid of panels. Series
 * keep their order and runs of `group` (a median and its p95) stay in one panel. The
 * first panel keeps c's id and caption (saying the panels share their axes); panel k
 * (from 0) is "<id>-p<k>". Styles restart in each panel, whose legend is its own; every
 * panel after the first also draws the figure's first series as a thin grey reference
 * line (named so in its legend), to read each panel against. With
 * `per` or fewer series, or per and group out of range, it is pq_svg_chart_write. */
#define PQ_SVG_PANEL_MAX 8
#define PQ_SVG_CAPTION_MAX 2400
void pq_svg_panels_write(pq_out *o, const pq_svg_chart *c, size_t per, size_t group);

/* Where a mark's label goes (pq_svg_mark_layout): the text's anchor x, at its start, or at
 * its end when `end` (drawn left of the mark, where the right of the plot has no room),
 * and its row (0 at the top of the plot, each PQ_SVG_LABEL_ROW units lower). */
typedef struct pq_svg_label {
	double x;
	int end;
	int row;
} pq_svg_label;

#define PQ_SVG_LABEL_ROW 12.0
#define PQ_SVG_LABEL_CHAR 6.2 /* width of a character of a mark's label (11 px sans), at most */
#define PQ_SVG_LABEL_DESCENT 2.0 /* a label's baseline above its row's bottom */
#define PQ_SVG_LABEL_GAP 6.0 /* between the labels' band and the plot */

/* Labels of n marks at plot x positions mx[] (chars[] characters long) between the plot's
 * edges lo and hi, laid out so that no two overlap: each goes right of its mark, or left
 * of it where it would run past hi; taken by their left edges, each goes into the first
 * row where it clears the labels already there, so labels far apart share row 0 and close
 * ones are stacked. Fills out[0..n-1]; returns the number of rows used. */
size_t pq_svg_mark_layout(const double *mx, const size_t *chars, size_t n, double lo, double hi,
			  pq_svg_label *out);

/* The plot's rectangle in the SVG's units (x0, y0, x1, y1) as pq_svg_chart_write draws c:
 * every series, point and mark line is drawn (and clipped) inside it; the marks' labels
 * are rows of PQ_SVG_LABEL_ROW above it, from y = 0 (tests check the geometry). */
void pq_svg_plot_box(const pq_svg_chart *c, double box[4]);

/* Nice tick values for [lo, hi] (about `want` of them) into t[0..max-1]; returns the
 * count. Log axes get decades (and 2 and 5 within them when there are few). */
size_t pq_svg_ticks(double lo, double hi, int log, size_t want, double *t, size_t max);

#endif
