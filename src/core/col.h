/* A column described as data: its name, SQL type and constraint, unit, the range a reader
 * accepts, the schema version that added it, what fills it, and the getter that reads its
 * value from the record it describes. The results database's tables (exp/cols.h) and a
 * connection record's columns (load/fields.h) are rows of this type; the schema, the
 * writers, the readers and the exports walk the rows instead of naming columns by hand. */
#ifndef PQ_CORE_COL_H
#define PQ_CORE_COL_H

/* What a reader accepts of a stored number (anything else refuses the file, naming the row
 * and the column): any, a duration (0 to a day), a lateness (within a day either way), a
 * percentage (0..100), a count, size or rate (not negative). */
enum pq_col_range { PQ_CR_ANY, PQ_CR_DUR, PQ_CR_LATE, PQ_CR_PCT, PQ_CR_COUNT };

/* Filled by the database (its row id, a DEFAULT until the run ends): no INSERT names it. */
#define PQ_COL_DB 1u

/* A value a getter gives: NULL (not reached, not measured), a whole number, a real, or a
 * text borrowed from the record. */
typedef struct pq_colval {
	enum { PQ_CV_NULL, PQ_CV_INT, PQ_CV_REAL, PQ_CV_TEXT } kind;
	long long i;
	double f;
	const char *s;
} pq_colval;

typedef struct pq_col {
	const char *name;  /* the column, stored and written under this one name */
	const char *sql;   /* its type and constraint ("INTEGER NOT NULL", "TEXT DEFAULT 'x'") */
	const char *unit;  /* "us", "bytes", "segs", "pkts", "bps", "pct", "" (none) */
	enum pq_col_range range;
	unsigned since;    /* the results schema version that added it (3: there in version 3) */
	unsigned flags;    /* PQ_COL_* */
	const char *fill;  /* what fills it (one line) */
	/* Its value from the record the rows describe; NULL: the writer binds it itself
	 * (ids, values a writer has and the record has not). */
	void (*get)(const void *rec, pq_colval *v);
} pq_col;

static inline pq_colval pq_cv_null(void)
{
	return (pq_colval){.kind = PQ_CV_NULL};
}

static inline pq_colval pq_cv_int(long long i)
{
	return (pq_colval){.kind = PQ_CV_INT, .i = i};
}

static inline pq_colval pq_cv_real(double f)
{
	return (pq_colval){.kind = PQ_CV_REAL, .f = f};
}

/* A text; "" (nothing known) is NULL. */
static inline pq_colval pq_cv_text(const char *s)
{
	return s && s[0] ? (pq_colval){.kind = PQ_CV_TEXT, .s = s} : pq_cv_null();
}

/* A text kept as it is, "" too. */
static inline pq_colval pq_cv_str(const char *s)
{
	return (pq_colval){.kind = PQ_CV_TEXT, .s = s};
}

/* Nanoseconds as microseconds; negative (not reached) is NULL. */
static inline pq_colval pq_cv_us(long long ns)
{
	return ns < 0 ? pq_cv_null() : pq_cv_real((double)ns / 1e3);
}

/* A count, size or verdict; negative (unknown) is NULL. */
static inline pq_colval pq_cv_opt(long long i)
{
	return i < 0 ? pq_cv_null() : pq_cv_int(i);
}

/* A real; negative (unknown) is NULL. */
static inline pq_colval pq_cv_optr(double f)
{
	return f < 0 ? pq_cv_null() : pq_cv_real(f);
}

/* A column table written as an X-macro over rows X(name, sql, unit, range, since, fill,
 * value), value an expression over the record: PQ_COL_GETTER makes a row's getter,
 * get_PREFIXname, which sees the record (a T) as var, then runs also (declarations made
 * from var, or nothing) and gives value; PQ_COL_ROW makes the row itself, with that getter. */
#define PQ_COL_GETTER(prefix, T, var, also, name, sql, unit, range, since, fill, value)                   \
	static void get_##prefix##name(const void *rec, pq_colval *v)                                     \
	{                                                                                                 \
		const T *var = rec;                                                                       \
		also;                                                                                     \
		(void)var;                                                                                \
		*v = value;                                                                               \
	}
#define PQ_COL_ROW(prefix, name, sql, unit, range, since, fill, value)                                    \
	{#name, sql, unit, PQ_CR_##range, since, 0, fill, get_##prefix##name},

#endif
