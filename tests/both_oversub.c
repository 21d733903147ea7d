/*
 * tests/both_oversub.c - the marks of a run the user sees end to end:
 * natively, two threads pinned to one cpu are an oversubscribed run (the
 * simulator never oversubscribes); in the simulator, argv[1] (the bin/
 * directory) runs tas at 32 threads on 4socket-ring, whose starved threads
 * each show a wait of about the whole run.  tests/both_table.c checks the
 * table itself on made-up rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <locklab/backend.h>
#include <locklab/lock.h>
#include <locklab/workload.h>

#include "testlib.h"

static const char *bindir;

extern const struct lock_algo lock_tas;

/* Natively, two threads on one cpu oversubscribe it; one thread does not.
 * The simulator never oversubscribes. */
static void oversubscribed_runs_are_marked(void **state)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	tl_config_plain(&c, "4socket", 7);
	c.duration_ms = 1;
	if (!tl_is_sim()) {
		c.pin = PIN_LIST;
		c.pin_list[0] = c.pin_list[1] = 0;
		c.pin_list_len = 2;
	}
	tl_run_ok(&c, &lock_tas, 2, 0, &run, &cnt);
	assert_int_equal(cnt.oversubscribed, !tl_is_sim());
	tl_done(&run);
	tl_config_plain(&c, "4socket", 7);
	c.duration_ms = 1;
	tl_run_ok(&c, &lock_tas, 1, 0, &run, &cnt);
	assert_false(cnt.oversubscribed);
	tl_done(&run);
}

/* The user's view: tas at 32 threads on 4socket-ring starves threads
 * under sc (a socket captures the lock), and each starved one shows its
 * wait of about the whole run. */
static void starved_tas_end_to_end(void **state)
{
	char cmd[1024], line[4096], path[] = "/tmp/both_table_t.XXXXXX";
	unsigned starved = 0, zero_rows = 0;
	double wait_max = 0;
	FILE *p;
	int fd;

	if (!tl_is_sim() || !bindir)
		skip();
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "%s/locklab-sim run --topo 4socket-ring --memory-model sc --lock tas --threads 32 --runs 1 "
		 "--format csv --threads-csv %s | cut -d, -f17,41",
		 bindir, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	assert_string_equal(line, "wait_max_ns,starved\n");
	assert_non_null(fgets(line, sizeof(line), p));
	assert_int_equal(sscanf(line, "%lf,%u", &wait_max, &starved), 2);
	assert_int_equal(pclose(p), 0);
	assert_true(starved > 0);
	assert_true(wait_max > 1.9e6 && wait_max <= 2.0e6);
	p = fopen(path, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long acq, wmax;

		if (sscanf(line, "sim,4socket-ring,tas,32,%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],"
				 "%*[^,],%*[^,],%*[^,],%llu,%*[^,],%*[^,],%*[^,],%*[^,],%llu,",
			   &acq, &wmax) == 2 && acq == 0) {
			zero_rows++;
			assert_true(wmax > 1900000 && wmax <= 2000000);
		}
	}
	fclose(p);
	unlink(path);
	assert_int_equal(zero_rows, starved);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oversubscribed_runs_are_marked),
		cmocka_unit_test(starved_tas_end_to_end),
	};
	bindir = argc > 1 ? argv[1] : NULL;
	if (tl_backend_start(argv[0], "4socket"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
