/*
 * native/env.c - the environment a native run happened in, for the JSON
 * output, and the host's short name for the topo column and file names.
 *
 * Each member is printed on its own line; what could not be read (a
 * governor in a VM, a CPU model on some architectures) is null, never a
 * guess.
 */
#include <ctype.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <locklab/backend.h>

#include <locklab/result.h>

#include "native.h"

#define GOVERNOR_PATH "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
}

/* The first line of a file, trimmed; NULL when unreadable or empty. */
static char *read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *ok;

	if (!f)
		return NULL;
	ok = fgets(buf, (int)len, f);
	fclose(f);
	if (!ok)
		return NULL;
	trim(buf);
	return buf[0] ? buf : NULL;
}

/* "model name : X" from /proc/cpuinfo, else hwloc's CPUModel. */
static const char *cpu_model(char *buf, size_t len)
{
	const struct native_machine *m = native_machine();
	FILE *f = fopen("/proc/cpuinfo", "r");
	const char *found = NULL;
	hwloc_obj_t pkg;

	while (f && !found && fgets(buf, (int)len, f)) {
		char *colon = strchr(buf, ':');

		if (strncmp(buf, "model name", 10) || !colon)
			continue;
		trim(colon + 1);
		found = colon[1] == ' ' ? colon + 2 : colon + 1;
	}
	if (f)
		fclose(f);
	if (found && *found)
		return found;
	pkg = m ? hwloc_get_obj_by_type(m->topo, HWLOC_OBJ_PACKAGE, 0) : NULL;
	return pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
}

const char *backend_input_file(void)
{
	return NULL; /* the machine is the one it runs on */
}

const char *backend_output_dir(const char **opt)
{
	*opt = NULL;
	return NULL; /* no files of its own */
}

const char *backend_topo_name(const struct wl_config *cfg)
{
	static char host[256];

	if (!host[0]) {
		if (gethostname(host, sizeof(host) - 1) || !host[0])
			strcpy(host, "host");
		host[strcspn(host, ".")] = 0;
		if (!host[0])
			strcpy(host, "host");
	}
	return host;
}

static void member_str(FILE *f, const char *name, const char *val, bool first)
{
	fprintf(f, "%s\n    \"%s\": ", first ? "" : ",", name);
	output_json_string(f, val);
}

static void member_uint(FILE *f, const char *name, unsigned val)
{
	fprintf(f, ",\n    \"%s\": %u", name, val);
}

static void print_pin_map(FILE *f)
{
	unsigned n;
	const unsigned *map = native_pin_map(&n);

	fprintf(f, ",\n    \"pin_map\": [");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? ", " : "", map[i]);
	fputc(']', f);
}

static void print_machine(FILE *f)
{
	const struct native_machine *m = native_machine();
	char buf[512];

	member_str(f, "cpu_model", cpu_model(buf, sizeof(buf)), false);
	if (!m)
		return;
	member_uint(f, "sockets", m->nsockets);
	member_uint(f, "cores", m->ncores);
	member_uint(f, "pus", m->npus);
	member_uint(f, "numa_nodes", m->nnodes);
	fprintf(f, ",\n    \"memory_binding\": %s", m->membind ? "true" : "false");
}

void backend_assumed(const struct wl_config *cfg, char *buf, size_t len)
{
	(void)cfg;
	if (len)
		buf[0] = 0; /* a real machine: nothing of it is modelled */
}

void backend_settings(const struct wl_config *cfg, char *buf, size_t len)
{
	/* the rows name the machine by its host name, which can read like
	 * something else (a host called "vm" is not a --vm run); the timing's
	 * sampling has a line of its own under the table */
	snprintf(buf, len, ", on host %s (the rows' name for this machine)", backend_topo_name(cfg));
}

void backend_env_json(FILE *f, const struct wl_config *cfg)
{
	struct utsname u;
	char kernel[2 * sizeof(u.release) + 2], gov[128];

	if (uname(&u) == 0)
		snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
	else
		strcpy(kernel, "unknown");
	member_str(f, "host", backend_topo_name(cfg), true);
	member_str(f, "kernel", kernel, false);
	print_machine(f);
	member_str(f, "pinning",
		   cfg->pin_text ? cfg->pin_text : native_pin_policy_name(cfg->pin),
		   false);
	print_pin_map(f);
	member_str(f, "governor", read_line(GOVERNOR_PATH, gov, sizeof(gov)), false);
	fprintf(f, ",\n    \"seed\": %llu", (unsigned long long)cfg->seed);
	fprintf(f, ",\n    \"delay_calibration_iters_per_us\": %.3f",
		native_delay_iters_per_us());
	native_clock_calibrate(); /* once: what the runs timed with */
	member_str(f, "clock", native_clock_is_tsc() ? "tsc, calibrated against CLOCK_MONOTONIC"
						     : "CLOCK_MONOTONIC", false);
	fputs("\n  ", f);
}
