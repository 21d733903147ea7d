/*
 * sim/topo_xml.c - reads a machine file once: the bytes, then libxml2's
 * tree (no network, no DTD, no entity declarations), whose elements
 * sim/topo_elems.c turns into struct topo_desc.  A file that is not well
 * formed is one error line with the line number libxml2 gives.
 */
#include "topo_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define MAX_FILE_BYTES (16L << 20)

static int read_whole(struct topo_ctx *x, char **text, size_t *len)
{
	FILE *f = fopen(x->path, "rb");
	struct stat st;

	if (!f)
		return topo_fail(x, "%s", strerror(errno));
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return topo_fail(x, "not a regular file");
	}
	if (st.st_size > MAX_FILE_BYTES) {
		fclose(f);
		return topo_fail(x, "larger than %ld MiB: not a machine file", MAX_FILE_BYTES >> 20);
	}
	*text = topo_calloc((size_t)st.st_size + 1, 1);
	*len = fread(*text, 1, (size_t)st.st_size, f);
	fclose(f);
	if (memchr(*text, 0, *len))
		return topo_fail(x, "a NUL byte in the file: not a platform file");
	return 0;
}

static xmlError first_error;

/* libxml2 ends some messages with " line N", the line where the element
 * began, which reads as a second, contradicting location beside ours:
 * said as "(opened at line N)". */
static void opened_at(char *msg, size_t len)
{
	char *p = strrchr(msg, ' ');
	int n;

	if (!p || p - msg < 5 || strncmp(p - 5, " line", 5) || sscanf(p + 1, "%d", &n) != 1 ||
	    strspn(p + 1, "0123456789") != strlen(p + 1))
		return;
	snprintf(p - 5, len - (size_t)(p - 5 - msg), " (opened at line %d)", n);
}

/* The first error, and the parser stops there: libxml2 goes on after many
 * errors, copying its buffer for each (quadratic in a long broken comment). */
static void keep_first_error(void *ctx, xmlErrorPtr e)
{
	if (!first_error.code && e && e->level >= XML_ERR_ERROR) {
		xmlCopyError(e, &first_error);
		if (ctx)
			xmlStopParser(ctx);
	}
}

static int xml_error(struct topo_ctx *x)
{
	xmlError *e = &first_error;
	char msg[400], *huge;

	if (!e->code)
		return topo_fail(x, "no <platform> element: not a SimGrid platform file");
	if (e->code == XML_ERR_TAG_NAME_MISMATCH && e->str1 && e->str2)
		snprintf(msg, sizeof(msg), "</%s> closes <%s> (opened at line %d)", e->str2, e->str1, e->int1);
	else
		snprintf(msg, sizeof(msg), "%s", e->message ? e->message : "not well formed");
	msg[strcspn(msg, "\n")] = 0;
	if ((huge = strstr(msg, " use XML_PARSE_HUGE"))) /* advice to libxml2's caller, not a user */
		*huge = 0;
	opened_at(msg, sizeof(msg));
	if (x->err && x->errlen)
		snprintf(x->err, x->errlen, "%s:%d: malformed XML: %s", x->path, e->line, msg);
	return -1;
}

static int parse(struct topo_ctx *x, const char *text, size_t len, xmlDoc **doc)
{
	xmlParserCtxtPtr ctxt;
	int rc = 0;

	if (strspn(text, " \t\r\n") == len)
		return topo_fail(x, "no <platform> element: not a SimGrid platform file");
	xmlResetError(&first_error);
	memset(&first_error, 0, sizeof(first_error));
	ctxt = xmlNewParserCtxt();
	if (!ctxt)
		return topo_fail(x, "out of memory reading the file");
	xmlSetStructuredErrorFunc(ctxt, keep_first_error);
	*doc = xmlCtxtReadMemory(ctxt, text, (int)len, x->path, NULL, XML_PARSE_NONET |
				 XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	xmlSetStructuredErrorFunc(NULL, NULL);
	xmlFreeParserCtxt(ctxt);
	if (!*doc || first_error.code)
		rc = xml_error(x);
	else if ((*doc)->intSubset && (*doc)->intSubset->children)
		rc = topo_fail(x, "declarations in <!DOCTYPE>: not supported in a machine file");
	else if (!xmlDocGetRootElement(*doc))
		rc = topo_fail(x, "no <platform> element: not a SimGrid platform file");
	xmlResetError(&first_error);
	return rc;
}

int topo_xml_read(struct topo_ctx *x, struct topo_desc *d)
{
	char *text = NULL;
	size_t len = 0;
	xmlDoc *doc = NULL;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = read_whole(x, &text, &len);
	if (!rc)
		rc = parse(x, text, len, &doc);
	if (!rc)
		rc = topo_read_platform(x, d, xmlDocGetRootElement(doc));
	if (doc)
		xmlFreeDoc(doc);
	free(text);
	return rc;
}

const char *topo_desc_prop(const struct topo_desc *d, const char *id)
{
	for (unsigned i = 0; i < d->nprops; i++)
		if (strcmp(d->props[i].id, id) == 0)
			return d->props[i].value;
	return NULL;
}

void topo_desc_free(struct topo_desc *d)
{
	for (unsigned i = 0; i < d->nprops; i++)
		free(d->props[i].value);
	free(d->hosts);
	free(d->links);
	free(d->routes);
	topo_index_free(&d->socket_ix);
	topo_index_free(&d->link_ix);
	memset(d, 0, sizeof(*d));
}
