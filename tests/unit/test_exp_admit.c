/* exp/admit: the machine's cells in flight across sweeps: the decision, cells and claims
 * of another process (a forked child), a killed process's slots, and the failures (a
 * directory that cannot be made, a table of another layout, a full table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exp/admit.h"
#include "testdir.h"

static const pq_exp_admit_load none = {.min_limit = SIZE_MAX};

static pq_exp_admit_load load_of(size_t n, size_t min_limit, double used)
{
	return (pq_exp_admit_load){.n = n, .min_limit = min_limit, .used = used};
}

static void fits(void **state)
{
	(void)state;
	pq_exp_admit_cell solo = {.limit = 1, .share = 0.2}, ten = {.limit = 10, .share = 0.05};
	/* a cell alone always starts; beside anything, one that runs alone does not */
	assert_true(pq_exp_admit_fits(&none, &none, &solo, 1.0));
	assert_false(pq_exp_admit_fits(&none, &(pq_exp_admit_load){1, 24, 0.01}, &solo, 1.0));
	/* a class of 10 beside 9 in flight, split between this sweep and another */
	pq_exp_admit_load mine = load_of(5, 24, 0.2), others = load_of(4, 20, 0.2);
	assert_true(pq_exp_admit_fits(&mine, &others, &ten, 1.0));
	others.n = 5; /* ten in flight: no room in a class of ten */
	assert_false(pq_exp_admit_fits(&mine, &others, &ten, 1.0));
	/* the others' smallest class holds the new cell to it */
	others = load_of(1, 2, 0.1);
	assert_false(pq_exp_admit_fits(&mine, &others, &ten, 1.0));
	/* the CPU shares add up across sweeps */
	others = load_of(1, 24, 0.8);
	assert_false(pq_exp_admit_fits(&mine, &others, &ten, 1.0));
	assert_true(pq_exp_admit_fits(&mine, &others, &ten, 2.0));
}

static pq_exp_admit *open_table(void)
{
	pq_exp_admit *a = NULL;
	char path[300];
	pq_diag d;
	assert_int_equal(pq_exp_admit_open(&a, dir, path, sizeof path, &d), 0);
	assert_non_null(strstr(path, PQ_EXP_ADMIT_FILE));
	return a;
}

/* A child that opens the table, starts `cells` cells of class `limit` and CPU share `share`, tells the parent
 * and waits on `go` for orders: 'c' tries one more cell (and reports 0/1 on `back`), 's'
 * learns that its first cell is quiet (0.002 CPUs; '1' when told), 'd' ends its cells, 'x' leaves without closing (as a killed sweep), 'q' closes and leaves. */
static int64_t child_est_ns; /* the child's cells' time alone */

static pid_t child(int cells, size_t limit, double share, int go[2], int back[2])
{
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(back), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid)
		return pid;
	int64_t est = child_est_ns;
	close(go[1]); /* the parent's end: its exit ends the child's read */
	close(back[0]);
	pq_exp_admit *a = NULL;
	char path[300], ch;
	pq_diag d;
	if (pq_exp_admit_open(&a, dir, path, sizeof path, &d) < 0)
		_exit(3);
	for (int i = 0; i < cells; i++) {
		pq_exp_admit_load mine = load_of((size_t)i, i ? limit : SIZE_MAX, share * i);
		pq_exp_admit_cell c = {.limit = limit, .share = share, .tag = i, .est_ns = est};
		if (pq_exp_admit_take(a, &mine, &c, 1.0, 100 + i) != 1)
			_exit(4);
	}
	(void)!write(back[1], "r", 1);
	int n = cells;
	int64_t t = 0;
	while (read(go[0], &ch, 1) == 1) {
		if (ch == 'c') {
			/* at 1.5 s, then at the patience plus 2 s (32 s) each time */
			t = t ? PQ_EXP_ADMIT_PATIENCE_NS + 2000000000LL : 1500000000LL;
			pq_exp_admit_load mine = load_of((size_t)n, limit, share * n);
			pq_exp_admit_cell c = {.limit = limit, .share = share, .tag = n, .est_ns = est};
			int rc = pq_exp_admit_take(a, &mine, &c, 1.0, t);
			n += rc == 1;
			char r = (char)('0' + rc);
			(void)!write(back[1], &r, 1);
		} else if (ch == 'd') {
			for (int i = 0; i < n; i++)
				if (pq_exp_admit_done(a, i) < 0)
					_exit(5);
			(void)!write(back[1], "d", 1);
		} else if (ch == 's') {
			char r = (char)('0' + (pq_exp_admit_share(a, 0, 0.002) == 0));
			(void)!write(back[1], &r, 1);
		} else if (ch == 'x') {
			_exit(0);
		} else {
			break;
		}
	}
	pq_exp_admit_close(a);
	_exit(0);
}

/* child(), once it has started its cells, which the table shows as want_n of others'. */
static pid_t spawn(pq_exp_admit *a, int cells, size_t limit, double share, int go[2], int back[2], size_t want_n)
{
	char r = 0;
	pq_exp_admit_load o;
	pid_t pid = child(cells, limit, share, go, back);
	assert_int_equal(read(back[0], &r, 1), 1);
	assert_int_equal(r, 'r');
	assert_int_equal(pq_exp_admit_others(a, &o), 0);
	assert_int_equal(o.n, want_n);
	return pid;
}

static char ask(int go[2], int back[2], char what)
{
	char r = 0;
	assert_int_equal(write(go[1], &what, 1), 1);
	assert_int_equal(read(back[0], &r, 1), 1);
	return r;
}

static void end_child(pid_t pid, int go[2], int back[2], char how)
{
	int st = 0;
	assert_int_equal(write(go[1], &how, 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
}

static void two_sweeps(void **state)
{
	(void)state;
	int go[2], back[2];
	pq_exp_admit *a = open_table();
	pq_exp_admit_load o;
	/* the other sweep's three cells of class 10 */
	pid_t pid = spawn(a, 3, 10, 0.05, go, back, 3);
	assert_int_equal(pq_exp_admit_others(a, &o), 0);
	assert_int_equal(o.min_limit, 10);
	/* a cell that runs in pairs is kept out by them; it claims nothing at first, so the
	 * other sweep goes on starting cells ... */
	const int64_t s = 1000000000LL, patience = PQ_EXP_ADMIT_PATIENCE_NS;
	pq_exp_admit_cell pair = {.limit = 2, .share = 0.1, .tag = 0};
	assert_int_equal(pq_exp_admit_take(a, &none, &pair, 1.0, 1 * s), 0);
	assert_int_equal(ask(go, back, 'c'), '1');
	/* ... until it has waited the patience: then it claims room, counted by the other
	 * sweep as a cell of class 2 in flight, which keeps the other's next cell out */
	assert_int_equal(pq_exp_admit_take(a, &none, &pair, 1.0, 1 * s + patience - 1), 0);
	assert_int_equal(ask(go, back, 'c'), '1');
	assert_int_equal(pq_exp_admit_take(a, &none, &pair, 1.0, 1 * s + patience), 0);
	assert_int_equal(ask(go, back, 'c'), '0');
	/* its cells end; the claim, the earlier, is not held back by the other's later wait */
	assert_int_equal(ask(go, back, 'd'), 'd');
	assert_int_equal(pq_exp_admit_others(a, &o), 0);
	assert_int_equal(o.n, 0);
	assert_int_equal(pq_exp_admit_take(a, &none, &pair, 1.0, 3 * s + patience), 1);
	/* a cell kept out by this sweep's own cells claims nothing */
	pq_exp_admit_load mine = load_of(2, 2, 0.2);
	assert_int_equal(pq_exp_admit_take(a, &mine, &(pq_exp_admit_cell){.limit = 10, .tag = 1}, 1.0, 4 * s + patience), 0);
	end_child(pid, go, back, 'q');
	assert_int_equal(pq_exp_admit_done(a, 0), 0);
	pq_exp_admit_close(a);
}

/* No claim while the cells in the way are expected to run for long: a cell waiting on
 * another sweep's 10-minute cells claims room only when they are due to end within the
 * patience, so the other sweep goes on starting cells meanwhile. */
static void long_cells(void **state)
{
	(void)state;
	int go[2], back[2];
	const int64_t s = 1000000000LL, patience = PQ_EXP_ADMIT_PATIENCE_NS;
	pq_exp_admit *a = open_table();
	child_est_ns = 600 * s;
	pid_t pid = spawn(a, 3, 10, 0.05, go, back, 3);
	child_est_ns = 0;
	pq_exp_admit_cell pair = {.limit = 2, .share = 0.1, .tag = 0};
	assert_int_equal(pq_exp_admit_take(a, &none, &pair, 1.0, 1 * s), 0);
	assert_int_equal(pq_exp_admit_take(a, &none, &pair, 1.0, 1 * s + patience), 0);
	assert_int_equal(ask(go, back, 'c'), '1'); /* no claim: the other sweep's cell starts */
	/* half a second past the patience before the last one's end (it started at 1.5 s): no
	 * claim, the other's next cell (at 32 s, to end at 632 s) starts ... */
	assert_int_equal(pq_exp_admit_take(a, &none, &pair, 1.0, 601 * s - patience), 0);
	assert_int_equal(ask(go, back, 'c'), '1');
	/* ... and within the patience of that one's end the claim is made and holds it */
	assert_int_equal(pq_exp_admit_take(a, &none, &pair, 1.0, 633 * s - patience), 0);
	assert_int_equal(ask(go, back, 'c'), '0');
	end_child(pid, go, back, 'q');
	pq_exp_admit_close(a);
}

/* Quiet cells (exp/admit.h): another sweep's few quiet cells do not keep a cell that runs
 * alone out, many do; a quiet cell starts beside another sweep's cell that runs alone. */
static void quiet_cells(void **state)
{
	(void)state;
	int go[2], back[2];
	pq_exp_admit *a = open_table();
	pq_exp_admit_load o;
	pq_exp_admit_cell solo = {.limit = 1, .share = 0.3, .tag = 0};
	/* 4 cells of 0.005 CPUs: 0.02 in all, quiet */
	pid_t pid = spawn(a, 4, 64, 0.005, go, back, 0);
	assert_int_equal(pq_exp_admit_others(a, &o), 0);
	assert_true(o.quiet > 0.019 && o.quiet < 0.021);
	assert_int_equal(pq_exp_admit_take(a, &none, &solo, 1.0, 1), 1);
	/* the other sweep's next quiet cell starts beside this one's cell that runs alone */
	assert_int_equal(ask(go, back, 'c'), '1');
	end_child(pid, go, back, 'q');
	assert_int_equal(pq_exp_admit_done(a, 0), 0);
	/* a cell that started on a guess of half a CPU, then learnt to be quiet */
	pid = spawn(a, 1, 64, 0.5, go, back, 1);
	assert_int_equal(ask(go, back, 's'), '1');
	assert_int_equal(pq_exp_admit_others(a, &o), 0);
	assert_int_equal(o.n, 0);
	assert_true(o.used > 0.0019 && o.used < 0.0021);
	end_child(pid, go, back, 'q');
	/* 30 of them, 0.15 CPUs: too many to be quiet, they count as any cell */
	pid = spawn(a, 30, 64, 0.005, go, back, 30);
	assert_int_equal(pq_exp_admit_take(a, &none, &solo, 1.0, 2), 0);
	end_child(pid, go, back, 'q');
	pq_exp_admit_close(a);
}

static void killed_sweep(void **state)
{
	(void)state;
	int go[2], back[2];
	pq_exp_admit *a = open_table();
	pq_exp_admit_load o;
	pid_t pid = spawn(a, 4, 24, 0.05, go, back, 4);
	/* gone without closing: its slots are dropped by the next reader */
	end_child(pid, go, back, 'x');
	assert_int_equal(pq_exp_admit_others(a, &o), 0);
	assert_int_equal(o.n, 0);
	pq_exp_admit_close(a);
	pq_exp_admit_close(NULL);
}

static void failures(void **state)
{
	(void)state;
	pq_exp_admit *a = NULL;
	char path[300];
	pq_diag d;
	/* a directory that cannot be made: the error names it */
	const char *file = testdir_write("plain", "x");
	char bad[320];
	snprintf(bad, sizeof bad, "%s/sub", file);
	assert_true(pq_exp_admit_open(&a, bad, path, sizeof path, &d) < 0);
	assert_null(a);
	assert_non_null(strstr(pq_diag_msg(&d), bad));
	/* a table of another layout is started afresh */
	char sub[200];
	snprintf(sub, sizeof sub, "%s/other", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(path, sizeof path, "%s/%s", sub, PQ_EXP_ADMIT_FILE);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("not a table of cells", f);
	fclose(f);
	assert_int_equal(pq_exp_admit_open(&a, sub, path, sizeof path, &d), 0);
	pq_exp_admit_load o;
	assert_int_equal(pq_exp_admit_others(a, &o), 0);
	assert_int_equal(o.n, 0);
	/* a full table: the caller is told, and decides alone */
	int rc = 0;
	for (int i = 0; i <= PQ_EXP_ADMIT_SLOTS && rc >= 0; i++)
		rc = pq_exp_admit_take(a, &none, &(pq_exp_admit_cell){.limit = 64, .tag = i}, 1.0, i);
	assert_int_equal(rc, PQ_ETOOBIG);
	pq_exp_admit_close(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fits),
		cmocka_unit_test(two_sweeps),
		cmocka_unit_test(long_cells),
		cmocka_unit_test(quiet_cells),
		cmocka_unit_test(killed_sweep),
		cmocka_unit_test(failures),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
