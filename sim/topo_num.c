/*
 * sim/topo_num.c - the numbers of a machine file: decimal only, with
 * SimGrid's units where a value carries one, and the ranges of
 * topologies/README.md ("Ranges").
 *
 * A unit scales the number as SimGrid scales it (the prefix multiplies by
 * 1000 or 1024 once per step), so a value reads the same here as in any
 * SimGrid tool.
 */
#include "topo_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* [+-]digits[.digits][e[+-]digits], or [+-].digits[...]; the length, 0 if none. */
static size_t decimal_span(const char *s)
{
	const char *p = s;
	size_t digits = 0;

	if (*p == '+' || *p == '-')
		p++;
	while (isdigit((unsigned char)*p))
		p++, digits++;
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p))
			p++, digits++;
	}
	if (!digits)
		return 0;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		if (*q == '+' || *q == '-')
			q++;
		if (isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q))
				q++;
			p = q;
		}
	}
	return (size_t)(p - s);
}

/* The number at the start of s; its length in *len (0: none, or too large). */
static double leading_decimal(const char *s, size_t *len)
{
	char buf[64];
	double d;

	*len = decimal_span(s);
	if (!*len || *len >= sizeof(buf)) {
		*len = 0;
		return 0;
	}
	memcpy(buf, s, *len);
	buf[*len] = 0;
	d = strtod(buf, NULL);
	if (!isfinite(d))
		*len = 0;
	return d;
}

int topo_decimal(struct topo_ctx *x, const char *what, const char *s, double *out)
{
	size_t len;
	double d = leading_decimal(s, &len);

	if (!len && decimal_span(s) && !s[decimal_span(s)])
		return topo_fail(x, "%s: '%s' is out of range", what, s);
	if (!len || s[len])
		return topo_fail(x, "%s: '%s' is not a number", what, s);
	*out = d;
	return 0;
}

struct unit_family {
	const char *unit;
	double value;
	double mult; /* 0: no prefixes */
	const char *const *prefixes;
};

static const char *const dec_abbr[] = { "k", "M", "G", "T", "P", "E", "Z", "Y", NULL };
static const char *const dec_long[] = { "kilo", "mega", "giga", "tera", "peta", "exa", "zeta", "yotta", NULL };
static const char *const bin_abbr[] = { "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi", NULL };

static const struct unit_family time_units[] = {
	{ "s", 1.0, 0, NULL },	 { "ms", 1e-3, 0, NULL }, { "us", 1e-6, 0, NULL },
	{ "ns", 1e-9, 0, NULL }, { "ps", 1e-12, 0, NULL }, { NULL, 0, 0, NULL },
};
static const struct unit_family bw_units[] = {
	{ "bps", 0.125, 1024.0, bin_abbr }, { "bps", 0.125, 1000.0, dec_abbr },
	{ "Bps", 1.0, 1024.0, bin_abbr },   { "Bps", 1.0, 1000.0, dec_abbr },
	{ NULL, 0, 0, NULL },
};
static const struct unit_family speed_units[] = {
	{ "f", 1.0, 1000.0, dec_abbr }, { "flops", 1.0, 1000.0, dec_long }, { NULL, 0, 0, NULL },
};

/* The factor of unit u in a family list; 0 if it has none. */
static double unit_factor(const struct unit_family *f, const char *u)
{
	for (; f->unit; f++) {
		size_t ul = strlen(f->unit), l = strlen(u);
		double v = f->value;

		if (l < ul || strcmp(u + l - ul, f->unit) != 0)
			continue;
		if (l == ul)
			return v;
		for (unsigned i = 0; f->prefixes && f->prefixes[i]; i++) {
			v *= f->mult;
			if (strlen(f->prefixes[i]) == l - ul && strncmp(u, f->prefixes[i], l - ul) == 0)
				return v;
		}
	}
	return 0;
}

int topo_with_unit(struct topo_ctx *x, const char *what, const char *s, enum topo_unit kind,
		   double *out)
{
	static const struct unit_family *const families[] = { time_units, bw_units, speed_units };
	static const char *const examples[] = { "40ns", "20.8GBps", "1Gf" };
	size_t len;
	double d = leading_decimal(s, &len), f;

	if (!len)
		return topo_fail(x, "%s: '%s' is not a number with a unit (e.g. %s)", what, s, examples[kind]);
	if (!s[len]) {
		if (d != 0)
			return topo_fail(x, "%s: '%s' has no unit (e.g. %s)", what, s, examples[kind]);
		*out = 0;
		return 0;
	}
	f = unit_factor(families[kind], s + len);
	if (f == 0)
		return topo_fail(x, "%s: unknown unit in '%s' (e.g. %s)", what, s, examples[kind]);
	*out = d * f;
	return 0;
}

/* A time in picoseconds (not yet rounded): from 0 to 1 s, and not a
 * nonzero value that would round to 0 ps. */
int topo_check_time(struct topo_ctx *x, const char *what, const char *text, double ps)
{
	if (ps < 0)
		return topo_fail(x, "%s: negative latency %s", what, text);
	if (ps > TOPO_MAX_TIME_PS)
		return topo_fail(x, "%s: %s is longer than 1 s, the most a time may be", what, text);
	if (ps > 0 && llround(ps) == 0)
		return topo_fail(x, "%s: %s rounds to 0 ps (time is kept in whole picoseconds)", what, text);
	return 0;
}

int topo_check_bw(struct topo_ctx *x, const char *what, const char *text, double bw)
{
	if (bw < TOPO_MIN_BW || bw > TOPO_MAX_BW)
		return topo_fail(x, "%s: bandwidth %s is outside 1MBps..1PBps", what, text);
	return 0;
}
