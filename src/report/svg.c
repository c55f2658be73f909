#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The chart's box in SVG units; the page scales it to its width. */
#define W 600.0
#define H 340.0
#define ML 64.0 /* room for y tick labels and the y label */
#define MR 14.0
#define MT 14.0
#define MB 50.0 /* room for x tick labels and the x label */

/* Okabe-Ito, without the yellow that vanishes on white. */
static const char *const colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
				      "#E69F00", "#56B4E9", "#000000"};
static const char *const dashes[] = {"", "7 3", "2 3", "9 3 2 3", "4 2 1 2"};
#define NCOL (sizeof colours / sizeof colours[0])
#define NDASH (sizeof dashes / sizeof dashes[0])
#define NMARK 5
#define REF_COLOUR "#a0a0a0" /* PQ_SVG_STYLE_REF: a thin grey line, no marker, no band */

static const char *colour_of(int style)
{
	return style < 0 ? REF_COLOUR : colours[(size_t)style % NCOL];
}

static const char *dash_of(int style)
{
	return style < 0 ? "" : dashes[(size_t)style % NDASH];
}

typedef struct frame {
	double x0, x1, y0, y1;
	int xlog, ylog;
} frame;

static double tr(double v, int log)
{
	return log ? log10(v) : v;
}

static int usable(double v, int log)
{
	return isfinite(v) && (!log || v > 0);
}

static double px(const frame *f, double x)
{
	return ML + (tr(x, f->xlog) - f->x0) / (f->x1 - f->x0) * (W - ML - MR);
}

static double py(const frame *f, double y)
{
	return H - MB - (tr(y, f->ylog) - f->y0) / (f->y1 - f->y0) * (H - MT - MB);
}

size_t pq_svg_ticks(double lo, double hi, int log, size_t want, double *t, size_t max)
{
	size_t n = 0;
	if (!(hi > lo) || !max)
		return 0;
	if (log) {
		double d0 = floor(log10(lo)), d1 = ceil(log10(hi));
		int fine = d1 - d0 <= 2;
		for (double d = d0; d <= d1 && n < max; d++)
			for (int m = 1; m <= 5 && n < max; m += (m == 1 ? 1 : 3)) {
				double v = (double)m * pow(10, d);
				if ((m == 1 || fine) && v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
					t[n++] = v;
			}
		return n;
	}
	double raw = (hi - lo) / (double)(want ? want : 5), mag = pow(10, floor(log10(raw)));
	double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
	for (double v = ceil(lo / step) * step; v <= hi + step * 1e-9 && n < max; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

/* The extent of the usable values on one axis: the series (and their bands), and on x
 * the marks; lo > hi when there is none. */
static void data_extent(const pq_svg_chart *c, int yaxis, double *lo, double *hi)
{
	const pq_svg_axis *a = yaxis ? &c->y : &c->x;
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < c->ns; i++)
		for (size_t k = 0; k < c->s[i].n; k++) {
			const double *v = yaxis ? c->s[i].y : c->s[i].x;
			double vals[3] = {v[k], yaxis && c->s[i].ylo ? c->s[i].ylo[k] : v[k],
					  yaxis && c->s[i].yhi ? c->s[i].yhi[k] : v[k]};
			for (int j = 0; j < 3; j++)
				if (usable(vals[j], a->log)) {
					*lo = fmin(*lo, vals[j]);
					*hi = fmax(*hi, vals[j]);
				}
		}
	for (size_t i = 0; !yaxis && i < c->nmarks; i++)
		if (usable(c->marks[i].x, a->log)) {
			*lo = fmin(*lo, c->marks[i].x);
			*hi = fmax(*hi, c->marks[i].x);
		}
}

static void data_range(const pq_svg_chart *c, int yaxis, double *lo, double *hi)
{
	const pq_svg_axis *a = yaxis ? &c->y : &c->x;
	data_extent(c, yaxis, lo, hi);
	if (a->lo != a->hi) {
		*lo = a->lo;
		*hi = a->hi;
	}
	if (!isfinite(*lo)) {
		*lo = a->log ? 1 : 0;
		*hi = a->log ? 10 : 1;
	}
	if (!(*hi > *lo)) {
		double pad = a->log ? *lo * 0.5 : (fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 1);
		*lo -= pad;
		*hi += pad;
	}
	if (!a->log && yaxis && *lo > 0 && *lo < 0.35 * *hi)
		*lo = 0; /* a time axis that starts at zero reads honestly */
	if (a->log) {
		*lo /= 1.15;
		*hi *= 1.15;
	} else {
		double pad = (*hi - *lo) * 0.04;
		*lo -= *lo == 0 ? 0 : pad;
		*hi += pad;
	}
}

static void fmt_tick(char *buf, size_t n, double v)
{
	if (fabs(v) >= 1e6 || (fabs(v) < 1e-3 && v != 0))
		snprintf(buf, n, "%.0e", v);
	else
		snprintf(buf, n, "%.6g", v);
}

static void axes(pq_out *o, const pq_svg_chart *c, const frame *f, double xlo, double xhi,
		 double ylo, double yhi)
{
	double t[40];
	char lab[32];
	size_t n = pq_svg_ticks(ylo, yhi, c->y.log, 6, t, 40);
	pq_out_printf(o, "<g class=\"grid\">");
	for (size_t i = 0; i < n; i++) {
		double y = py(f, t[i]);
		fmt_tick(lab, sizeof lab, t[i]);
		pq_out_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
				 "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
			      ML, y, W - MR, y, ML - 5, y + 4, lab);
	}
	n = pq_svg_ticks(xlo, xhi, c->x.log, 7, t, 40);
	for (size_t i = 0; i < n; i++) {
		double x = px(f, t[i]);
		fmt_tick(lab, sizeof lab, t[i]);
		pq_out_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
				 "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
			      x, MT, x, H - MB, x, H - MB + 16, lab);
	}
	pq_out_printf(o, "</g><rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
		      ML, MT, W - ML - MR, H - MT - MB);
	pq_out_printf(o, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">", (ML + W - MR) / 2, H - 10);
	pq_out_text(o, c->x.label);
	pq_out_printf(o, "%s</text><text class=\"yl\" transform=\"translate(14 %.1f) rotate(-90)\">",
		      c->x.log ? " (log scale)" : "", (MT + H - MB) / 2);
	pq_out_text(o, c->y.label);
	pq_out_printf(o, "%s</text>", c->y.log ? " (log scale)" : "");
}

static void marker(pq_out *o, int style, double x, double y)
{
	const char *col = colour_of(style);
	if (style < 0)
		return;
	switch (style % NMARK) {
	case 0:
		pq_out_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\" fill=\"%s\"/>", x, y, col);
		break;
	case 1:
		pq_out_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"%s\"/>",
			      x - 3, y - 3, col);
		break;
	case 2:
		pq_out_printf(o, "<path d=\"M%.1f %.1fl3.6 6.2h-7.2z\" fill=\"%s\"/>", x, y - 4, col);
		break;
	case 3:
		pq_out_printf(o, "<path d=\"M%.1f %.1fl4 4-4 4-4-4z\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"/>",
			      x, y - 4, col);
		break;
	default:
		pq_out_printf(o, "<path d=\"M%.1f %.1fl7 7m0-7l-7 7\" stroke=\"%s\" stroke-width=\"1.8\"/>",
			      x - 3.5, y - 3.5, col);
	}
}

static void band(pq_out *o, const frame *f, const pq_svg_series *s, int xlog, int ylog)
{
	int started = 0;
	pq_out_printf(o, "<path class=\"band\" fill=\"%s\" d=\"", colour_of(s->style));
	for (size_t k = 0; k < s->n; k++)
		if (usable(s->x[k], xlog) && usable(s->yhi[k], ylog) && usable(s->ylo[k], ylog)) {
			pq_out_printf(o, "%s%.1f %.1f", started ? "L" : "M", px(f, s->x[k]), py(f, s->yhi[k]));
			started = 1;
		}
	for (size_t k = s->n; k-- > 0;)
		if (usable(s->x[k], xlog) && usable(s->yhi[k], ylog) && usable(s->ylo[k], ylog))
			pq_out_printf(o, "L%.1f %.1f", px(f, s->x[k]), py(f, s->ylo[k]));
	pq_out_printf(o, "%s\"/>", started ? "Z" : "");
}

static void series(pq_out *o, const frame *f, const pq_svg_series *s, int xlog, int ylog)
{
	const char *col = colour_of(s->style);
	if (s->ylo && s->yhi && s->style >= 0)
		band(o, f, s, xlog, ylog);
	if (s->kind != PQ_SVG_POINTS) {
		int started = 0;
		double prev_y = 0;
		pq_out_printf(o, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" stroke-dasharray=\"%s\" d=\"",
			      col, s->style < 0 ? "1.5" : "2", dash_of(s->style));
		for (size_t k = 0; k < s->n; k++) {
			if (!usable(s->x[k], xlog) || !usable(s->y[k], ylog))
				continue;
			double x = px(f, s->x[k]), y = py(f, s->y[k]);
			if (started && s->kind == PQ_SVG_STEP)
				pq_out_printf(o, "L%.1f %.1f", x, prev_y);
			pq_out_printf(o, "%s%.1f %.1f", started ? "L" : "M", x, y);
			started = 1;
			prev_y = y;
		}
		pq_out_printf(o, "\"/>");
	}
	if (s->kind != PQ_SVG_STEP || s->n <= 40)
		for (size_t k = 0; k < s->n; k++)
			if (usable(s->x[k], xlog) && usable(s->y[k], ylog))
				marker(o, s->style, px(f, s->x[k]), py(f, s->y[k]));
}

static void legend(pq_out *o, const pq_svg_chart *c)
{
	pq_out_printf(o, "<ul class=\"legend\">");
	for (size_t i = 0; i < c->ns; i++) {
		int st = c->s[i].style;
		pq_out_printf(o, "<li><svg viewBox=\"0 0 30 12\" width=\"30\" height=\"12\" aria-hidden=\"true\">");
		if (c->s[i].kind != PQ_SVG_POINTS)
			pq_out_printf(o, "<path d=\"M1 6H29\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"%s\"/>",
				      colour_of(st), dash_of(st));
		marker(o, st, 15, 6);
		pq_out_printf(o, "</svg>");
		pq_out_text(o, c->s[i].name);
		pq_out_printf(o, "</li>");
	}
	if (c->nmarks)
		pq_out_printf(o, "<li><svg viewBox=\"0 0 30 12\" width=\"30\" height=\"12\" aria-hidden=\"true\">"
				 "<path d=\"M15 0V12\" class=\"mark\"/></svg>marked sizes (labelled)</li>");
	pq_out_printf(o, "</ul>");
}

#define LABEL_PAD 3.0 /* between a mark's line and its label */
#define LABEL_GAP 6.0 /* between two labels in a row */

size_t pq_svg_mark_layout(const double *mx, const size_t *chars, size_t n, double lo, double hi,
			  pq_svg_label *out)
{
	double left[PQ_SVG_MAX_MARKS], right[PQ_SVG_MAX_MARKS], row_end[PQ_SVG_MAX_MARKS];
	size_t order[PQ_SVG_MAX_MARKS], rows = 0;
	n = n < PQ_SVG_MAX_MARKS ? n : PQ_SVG_MAX_MARKS;
	for (size_t i = 0; i < n; i++) {
		double w = (double)chars[i] * PQ_SVG_LABEL_CHAR;
		int right_fits = mx[i] + LABEL_PAD + w <= hi, end = !right_fits && mx[i] - LABEL_PAD - w >= lo;
		/* fits on neither side: as far right as it fits, inside the plot's width */
		left[i] = end ? mx[i] - LABEL_PAD - w : right_fits ? mx[i] + LABEL_PAD : fmax(lo, hi - w);
		right[i] = left[i] + w;
		out[i] = (pq_svg_label){end ? mx[i] - LABEL_PAD : left[i], end, 0};
		size_t k = i; /* insertion by left edge */
		for (; k > 0 && left[order[k - 1]] > left[i]; k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
	for (size_t j = 0; j < n; j++) {
		size_t i = order[j], r = 0;
		while (r < rows && row_end[r] + LABEL_GAP > left[i])
			r++;
		if (r == rows)
			rows++;
		row_end[r] = right[i];
		out[i].row = (int)r;
	}
	return rows;
}

/* The most characters of a mark's label: a longer one (an arm's long name) is cut to the
 * plot's width, ending in "...". */
#define LABEL_MAX ((size_t)((W - ML - MR) / PQ_SVG_LABEL_CHAR) - 1)

static void label_text(pq_out *o, const char *s)
{
	size_t n = strlen(s);
	if (n <= LABEL_MAX) {
		pq_out_text(o, s);
		return;
	}
	char cut[LABEL_MAX + 1];
	n = LABEL_MAX - 3;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) /* not inside a UTF-8 character */
		n--;
	memcpy(cut, s, n);
	memcpy(cut + n, "...", 4);
	pq_out_text(o, cut);
}

/* Two arms with one chain share the model's cliff: its mark and label are drawn once. */
static int shown_before(const pq_svg_mark *const *shown, size_t n, const pq_svg_mark *m)
{
	for (size_t i = 0; i < n; i++)
		if (shown[i]->x == m->x && strcmp(shown[i]->label, m->label) == 0)
			return 1;
	return 0;
}

/* The marks drawn (each distinct one once) at their plot x, and their labels' layout;
 * returns the band's height above the plot that the labels' rows take. */
static double mark_labels(const pq_svg_chart *c, const frame *f, const pq_svg_mark **shown, double *mx,
			  pq_svg_label *lab, size_t *nm)
{
	size_t chars[PQ_SVG_MAX_MARKS] = {0};
	*nm = 0;
	for (size_t i = 0; i < c->nmarks && *nm < PQ_SVG_MAX_MARKS; i++)
		if (usable(c->marks[i].x, c->x.log) && !shown_before(shown, *nm, &c->marks[i])) {
			shown[*nm] = &c->marks[i];
			mx[*nm] = px(f, c->marks[i].x);
			chars[*nm] = strlen(c->marks[i].label);
			chars[*nm] = chars[*nm] < LABEL_MAX ? chars[*nm] : LABEL_MAX;
			(*nm)++;
		}
	size_t rows = pq_svg_mark_layout(mx, chars, *nm, ML, W - MR, lab);
	return rows ? PQ_SVG_LABEL_ROW * (double)rows + PQ_SVG_LABEL_GAP : 0;
}

static frame frame_of(const pq_svg_chart *c, double *xlo, double *xhi, double *ylo, double *yhi)
{
	data_range(c, 0, xlo, xhi);
	data_range(c, 1, ylo, yhi);
	return (frame){tr(*xlo, c->x.log), tr(*xhi, c->x.log), tr(*ylo, c->y.log), tr(*yhi, c->y.log), c->x.log, c->y.log};
}

void pq_svg_chart_write(pq_out *o, const pq_svg_chart *c)
{
	double xlo, xhi, ylo, yhi, mx[PQ_SVG_MAX_MARKS] = {0};
	frame f = frame_of(c, &xlo, &xhi, &ylo, &yhi);
	const pq_svg_mark *shown[PQ_SVG_MAX_MARKS];
	pq_svg_label lab[PQ_SVG_MAX_MARKS];
	size_t nm;
	/* The marks' labels go into a band above the plot, so none can cover a line, a point
	 * or a mark's line (all drawn inside the plot); the layout keeps them apart. */
	double band = mark_labels(c, &f, shown, mx, lab, &nm);
	pq_out_printf(o, "<figure class=\"chart\" id=\"");
	pq_out_text(o, c->id);
	pq_out_printf(o, "\"><svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"", W, H + band);
	pq_out_text(o, c->caption);
	pq_out_printf(o, "\">");
	for (size_t i = 0; i < nm; i++) {
		pq_out_printf(o, "<text class=\"ml%s\" x=\"%.1f\" y=\"%.1f\">", lab[i].end ? " end" : "", lab[i].x,
			      PQ_SVG_LABEL_ROW * (double)(lab[i].row + 1) - PQ_SVG_LABEL_DESCENT);
		label_text(o, shown[i]->label);
		pq_out_printf(o, "</text>");
	}
	pq_out_printf(o, "<g transform=\"translate(0 %.1f)\">", band);
	axes(o, c, &f, xlo, xhi, ylo, yhi);
	pq_out_printf(o, "<clipPath id=\"clip-");
	pq_out_text(o, c->id);
	pq_out_printf(o, "\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath><g clip-path=\"url(#clip-",
		      ML, MT, W - ML - MR, H - MT - MB);
	pq_out_text(o, c->id);
	pq_out_printf(o, ")\">");
	if (c->diagonal) {
		double lo = fmax(xlo, ylo), hi = fmin(xhi, yhi);
		if (hi > lo)
			pq_out_printf(o, "<path class=\"diag\" d=\"M%.1f %.1fL%.1f %.1f\"/>", px(&f, lo),
				      py(&f, lo), px(&f, hi), py(&f, hi));
	}
	for (size_t i = 0; i < c->ns; i++)
		series(o, &f, &c->s[i], c->x.log, c->y.log);
	for (size_t i = 0; i < nm; i++)
		pq_out_printf(o, "<path class=\"mark\" d=\"M%.1f %.1fV%.1f\"/>", mx[i], MT, H - MB);
	pq_out_printf(o, "</g></g></svg>");
	legend(o, c);
	pq_out_printf(o, "<figcaption>");
	pq_out_text(o, c->caption);
	pq_out_printf(o, "</figcaption></figure>\n");
}

void pq_svg_plot_box(const pq_svg_chart *c, double box[4])
{
	double xlo, xhi, ylo, yhi, mx[PQ_SVG_MAX_MARKS];
	frame f = frame_of(c, &xlo, &xhi, &ylo, &yhi);
	const pq_svg_mark *shown[PQ_SVG_MAX_MARKS];
	pq_svg_label lab[PQ_SVG_MAX_MARKS];
	size_t nm;
	double band = mark_labels(c, &f, shown, mx, lab, &nm);
	box[0] = ML;
	box[1] = MT + band;
	box[2] = W - MR;
	box[3] = H - MB + band;
}

void pq_svg_panels_write(pq_out *o, const pq_svg_chart *c, size_t per, size_t group)
{
	if (group < 1 || group > per || per > PQ_SVG_PANEL_MAX || c->ns <= per) {
		pq_svg_chart_write(o, c);
		return;
	}
	pq_svg_chart p = *c;
	pq_svg_series s[PQ_SVG_PANEL_MAX + 1];
	pq_svg_axis *ax[2] = {&p.x, &p.y};
	for (int y = 0; y < 2; y++) { /* every panel on the whole figure's extent */
		double lo, hi;
		data_extent(c, y, &lo, &hi);
		if (ax[y]->lo == ax[y]->hi && hi > lo)
			ax[y]->lo = lo, ax[y]->hi = hi;
	}
	/* as many panels as `per` needs, the series spread evenly over them (5 as 3 and 2) */
	size_t groups = (c->ns + group - 1) / group, gp = per / group, np = (groups + gp - 1) / gp;
	per = (groups + np - 1) / np * group;
	char id[160], cap[PQ_SVG_CAPTION_MAX], ref[300];
	snprintf(ref, sizeof ref, "%.250s (panel 1, for reference)", c->s[0].name ? c->s[0].name : "");
	pq_out_printf(o, "<div class=\"panels\">");
	for (size_t k = 0; k < np; k++) {
		size_t from = k * per, n = c->ns - from < per ? c->ns - from : per, r = k > 0;
		/* panel 1's first line, grey beneath the others: a baseline to read each panel against */
		if (r)
			s[0] = (pq_svg_series){ref, c->s[0].x, c->s[0].y, c->s[0].n, NULL, NULL, c->s[0].kind,
					       PQ_SVG_STYLE_REF};
		for (size_t i = 0; i < n; i++) {
			s[r + i] = c->s[from + i];
			s[r + i].style = (int)i; /* each panel's legend reads alone */
		}
		n += r;
		snprintf(id, sizeof id, k ? "%.100s-p%zu" : "%.100s", c->id, k);
		if (k)
			snprintf(cap, sizeof cap, "Panel %zu of %zu, on the axes of panel 1, whose caption says what "
				 "is drawn.", k + 1, np);
		else
			snprintf(cap, sizeof cap, "%s Panel 1 of %zu; the panels share their axes.", c->caption, np);
		p.id = id;
		p.caption = cap;
		p.s = s;
		p.ns = n;
		pq_svg_chart_write(o, &p);
	}
	pq_out_printf(o, "</div>");
}
