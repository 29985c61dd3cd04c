// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-static: a developer's entry point to the static verdict, until
 * `fgraphtop check --static` is wired (the lab runs it in guests, the offline
 * test on the lab's kernel files), and the recorder of tests/data/static/.
 *
 *   fgt-static [--kernel FILE [--system-map FILE]] [--json] [--no-bpf]
 *              [--record FILE --name NAME] [--kcore F] [--kallsyms F] [--btf F]
 *
 * --kcore, --kallsyms and --btf replace the running kernel's files (tests of
 * the bad cases: a masked kcore is --kcore /dev/null).
 *
 * Exit status as fgraphtop check's: 0 fixed or not affected, 2 not fixed,
 * 3 unknown.
 */
#include <capstone/capstone.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exit_codes.h"
#include "json_writer.h"
#include "static_check.h"

struct rec {
	const char *path;
	const char *name;
	int err;
};

/* Symbols a recording needs: fgraphtop's, the allocators, and what the code refers to. */
struct symset {
	const struct fgt_ksym *s[512];
	size_t n;
};

static void add(struct symset *ss, const struct fgt_ksym *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < ss->n; i++)
		if (ss->s[i] == s)
			return;
	if (ss->n < sizeof(ss->s) / sizeof(ss->s[0]))
		ss->s[ss->n++] = s;
}

static void add_ref(struct symset *ss, const struct fgt_ksyms *ks, uint64_t a)
{
	const struct fgt_ksym *s = fgt_ksyms_by_addr(ks, a);

	add(ss, s);
	/* a padding symbol's function, for call thunks */
	if (s && !strncmp(s->name, "__pfx_", 6))
		add(ss, fgt_ksyms_by_name(ks, s->name + 6));
}

static void refs(struct symset *ss, const struct fgt_ksyms *ks, const struct fgt_static_part *p)
{
	const uint8_t *code = p->bytes;
	size_t left = p->len;
	uint64_t addr = p->addr;
	cs_insn *ci;
	csh h;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	ci = cs_malloc(h);
	while (ci && cs_disasm_iter(h, &code, &left, &addr, ci)) {
		const cs_x86 *x = &ci->detail->x86;

		for (int i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];

			if (op->type == X86_OP_IMM && (ci->id == X86_INS_CALL || ci->id == X86_INS_JMP ||
						       cs_insn_group(h, ci, X86_GRP_JUMP)))
				add_ref(ss, ks, (uint64_t)op->imm);
			else if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP)
				add_ref(ss, ks, ci->address + ci->size + (uint64_t)op->mem.disp);
			else if (op->type == X86_OP_MEM && op->mem.base == X86_REG_INVALID &&
				 op->mem.index == X86_REG_INVALID)
				add_ref(ss, ks, (uint64_t)op->mem.disp);
			else if (op->type == X86_OP_IMM && (uint64_t)op->imm >= 0xffff800000000000ull)
				add_ref(ss, ks, (uint64_t)op->imm);
		}
	}
	cs_free(ci, 1);
	cs_close(&h);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct fgt_ksym *x = *(const struct fgt_ksym *const *)a;
	const struct fgt_ksym *y = *(const struct fgt_ksym *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *src_name(enum fgt_stack_src s)
{
	return s == FGT_STACK_CACHE ? "cache" : s == FGT_STACK_KMALLOC ? "kmalloc" : "kmalloc_array";
}

/* tests/data/static/README has the format. */
static void record(const struct fgt_static_code *c, const struct fgt_static_kernel *k, void *arg)
{
	struct rec *rc = arg;
	struct symset ss = { .n = 0 };
	FILE *f = fopen(rc->path, "w");

	if (!f) {
		perror(rc->path);
		rc->err = 1;
		return;
	}
	for (int i = 0; i < FGT_SYM__NR; i++)
		add(&ss, fgt_ksyms_by_name(k->ks, fgt_sym_name(i)));
	for (size_t i = 0; i < fgt_nr_alloc_fns; i++) {
		char pfx[128];

		add(&ss, fgt_ksyms_by_name(k->ks, fgt_alloc_fns[i].name));
		/* their padding, for call thunks (tests redirect calls into it) */
		snprintf(pfx, sizeof(pfx), "__pfx_%s", fgt_alloc_fns[i].name);
		add(&ss, fgt_ksyms_by_name(k->ks, pfx));
	}
	for (size_t i = 0; i < fgt_nr_walk_calls; i++)
		add(&ss, fgt_ksyms_by_name(k->ks, fgt_walk_calls[i].name));
	for (unsigned int i = 0; i < c->nr_parts; i++) {
		add_ref(&ss, k->ks, c->part[i].addr);
		refs(&ss, k->ks, &c->part[i]);
	}
	qsort(ss.s, ss.n, sizeof(ss.s[0]), cmp_sym);
	fprintf(f, "# %s: recorded by fgt-static --record\n", rc->name);
	fprintf(f, "func %s\nstack %s %u\n", c->func, src_name(k->stack_src), k->shadow_bytes);
	for (size_t i = 0; i < ss.n; i++)
		fprintf(f, "sym %016" PRIx64 " %c %s\n", ss.s[i]->addr, ss.s[i]->type, ss.s[i]->name);
	for (unsigned int i = 0; i < c->nr_parts; i++) {
		fprintf(f, "part %016" PRIx64 " %zu\n", c->part[i].addr, c->part[i].len);
		for (size_t j = 0; j < c->part[i].len; j++)
			fprintf(f, "%02x%s", c->part[i].bytes[j],
				(j % 32 == 31 || j + 1 == c->part[i].len) ? "\n" : "");
	}
	if (fclose(f))
		rc->err = 1;
}

static void print_text(const struct fgt_static_result *r)
{
	char buf[256];

	printf("static: %s%s%s: %s\n", fgt_static_verdict_name(r->verdict),
	       r->why ? " (" : "", r->why ? fgt_static_why_name(r->why) : "", r->evidence);
	printf("  text from %s, symbols from %s\n", r->source[0] ? r->source : "-",
	       r->symbols[0] ? r->symbols : "-");
	if (r->func[0])
		printf("  %s: %zu bytes, %u instructions, %.1f ms\n", r->func, r->func_len, r->insns, r->ms);
	for (unsigned int i = 0; i < r->nr_sites; i++)
		printf("  %s %s rcu_read_lock() [%s]\n", fgt_static_site_str(&r->sites[i], buf, sizeof(buf)),
		       fgt_static_rcu_name(r->sites[i].rcu), fgt_static_kind_name(r->sites[i].kind));
	for (unsigned int i = 0; i < r->nr_rcu_lock; i++)
		printf("  rcu_read_lock() at %s\n", r->rcu_lock[i]);
	for (unsigned int i = 0; i < r->nr_rcu_unlock; i++)
		printf("  rcu_read_unlock() at %s\n", r->rcu_unlock[i]);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "system-map", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-bpf", no_argument, NULL, 'B' },
		{ "record", required_argument, NULL, 'r' },
		{ "name", required_argument, NULL, 'n' },
		{ "kcore", required_argument, NULL, 'C' },
		{ "kallsyms", required_argument, NULL, 'S' },
		{ "btf", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct fgt_static_opts o = {};
	struct fgt_static_result r;
	struct rec rc = { .name = "?" };
	bool json = false;
	int c;

	while ((c = getopt_long(argc, argv, "k:m:jBr:n:h", lo, NULL)) != -1) {
		switch (c) {
		case 'k': o.kernel = optarg; break;
		case 'm': o.system_map = optarg; break;
		case 'j': json = true; break;
		case 'B': o.no_bpf = true; break;
		case 'r': rc.path = optarg; break;
		case 'n': rc.name = optarg; break;
		case 'C': o.kcore = optarg; break;
		case 'S': o.kallsyms = optarg; break;
		case 'T': o.btf = optarg; break;
		default:
			fprintf(stderr, "usage: fgt-static [--kernel FILE [--system-map FILE]] [--json] "
				"[--no-bpf] [--record FILE --name NAME]\n");
			return c == 'h' ? 0 : FGT_CHECK_UNKNOWN;
		}
	}
	if (rc.path) {
		o.code_cb = record;
		o.code_arg = &rc;
	}
	fgt_static_check(&o, &r);
	if (json) {
		json_writer_t *jw = jsonw_new(stdout);

		jsonw_start_object(jw);
		jsonw_string_field(jw, "type", "static");
		fgt_static_json_fields(&r, jw);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
	} else {
		print_text(&r);
	}
	if (rc.err)
		return FGT_CHECK_UNKNOWN;
	switch (r.verdict) {
	case FGT_SV_FIXED:
	case FGT_SV_NOT_AFFECTED:
		return FGT_CHECK_OK;
	case FGT_SV_NOT_FIXED:
		return FGT_CHECK_CRITICAL;
	default:
		return FGT_CHECK_UNKNOWN;
	}
}
