/* mt_main.c - memtrace, a Valgrind tool: samples data accesses and streams
 * them in binary to the memtrace collector (docs/valgrind-backend.md).
 *
 *   valgrind --tool=memtrace --mt-fd=N [--period=P] [--random-period=yes|no]
 *            [--seed=S] [--alloc-stack=D] [--aggregate=N [--agg-shift=S]] CMD ...
 *
 * What an access is follows lackey's --trace-mem=yes exactly (its event
 * list, including the merge of a load and a store of the same size and
 * address by one instruction into a modify), so that at period 1 the
 * samples equal lackey's lines.  Unlike lackey, the instrumentation does
 * not call a helper per instruction: a global instruction counter is
 * updated inline before each exit of a superblock, and an access's helper
 * gets its instruction's offset from the last update as a constant.  At a
 * period above 1 the countdown to the next sample is inline too, and the
 * helper is called only for the sampled access.  The sampler is lackey.c's
 * (splitmix64 gaps in [P - P/2, P + P/2]), so a seed picks the same
 * accesses as `memtracectl import --format lackey` of the same run.
 *
 * --aggregate=N counts the sampled accesses per bucket (address >> S) and
 * interval of N instructions in the tool (an open-addressing table, the
 * last bucket cached) and streams one AGG message per interval with its
 * distinct buckets instead of every access: valgrind-ws's design, the same
 * per-window sets and counts that the exact trace gives.
 *
 * With vgpreload_memtrace-amd64-linux.so next to the tool, malloc and
 * friends are replaced (as massif and DHAT do) and every allocation and
 * free is streamed with the allocating call stack.
 *
 * Built against the installed Valgrind's headers and static libraries
 * (mk/vgtool.mk); this file uses Valgrind's tool API only, no libc.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"

#include "mt_stream.h"

/* ---- options ---------------------------------------------------------- */

static Long clo_fd = -1;
static Long clo_period = 1;
static Bool clo_random = True;
static Long clo_seed = 1;
static Long clo_alloc_stack = 16;
static Long clo_aggregate;	/* instructions per interval; 0: stream every sample */
static Long clo_agg_shift = 12;

static Bool mt_process_cmd_line_option(const HChar *arg)
{
	if VG_INT_CLO(arg, "--mt-fd", clo_fd) {}
	else if VG_BINT_CLO(arg, "--period", clo_period, 1, 1000000000000LL) {}
	else if VG_BOOL_CLO(arg, "--random-period", clo_random) {}
	else if VG_INT_CLO(arg, "--seed", clo_seed) {}
	else if VG_BINT_CLO(arg, "--alloc-stack", clo_alloc_stack, 1, MT_VG_MAX_FRAMES) {}
	else if VG_BINT_CLO(arg, "--aggregate", clo_aggregate, 0, 1000000000000000LL) {}
	else if VG_BINT_CLO(arg, "--agg-shift", clo_agg_shift, 0, 30) {}
	else
		return VG_(replacement_malloc_process_cmd_line_option)(arg);
	return True;
}

static void mt_print_usage(void)
{
	VG_(printf)(
"    --mt-fd=N                 write the binary stream to fd N [required]\n"
"    --period=P                sample one data access in P [1]\n"
"    --random-period=yes|no    random gaps with mean P, or every P-th [yes]\n"
"    --seed=S                  seed of the random gaps [1]\n"
"    --alloc-stack=D           frames kept per allocation [16]\n"
"    --aggregate=N             counts per bucket and N instructions, not samples [0: off]\n"
"    --agg-shift=S             --aggregate's bucket: address >> S [12]\n");
}

static void mt_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/* ---- the stream ------------------------------------------------------- */

#define BUF_BYTES	(256 * 1024)

static UChar out_buf[BUF_BYTES] __attribute__((aligned(8)));
static UInt out_used;
static UInt acc_msg = ~0u;	/* offset of the open MT_VG_ACCESSES header, ~0: none */
static Bool out_dead;		/* a write failed, or a forked child: no more output */

/* Shared with the generated code. */
static ULong mt_insns;		/* guest instructions executed (at the last update) */
static ULong mt_left;		/* accesses until the next sample */
static ULong mt_tid;		/* kernel tid of the running thread */

static ULong n_accesses, n_samples, n_allocs, n_frees;
static ULong rng;

/* The open MT_VG_ACCESSES message gets its length. */
static void close_accesses(void)
{
	if (acc_msg != ~0u) {
		struct mt_vg_header *h = (struct mt_vg_header *)(out_buf + acc_msg);

		h->bytes = out_used - acc_msg - sizeof(*h);
		acc_msg = ~0u;
	}
}

static void out_flush(void)
{
	UInt done = 0;

	close_accesses();
	while (!out_dead && done < out_used) {
		Int n = VG_(write)((Int)clo_fd, out_buf + done, (Int)(out_used - done));

		if (n <= 0) {
			VG_(umsg)("memtrace: writing to fd %lld failed: stream ends here\n", clo_fd);
			out_dead = True;
			break;
		}
		done += (UInt)n;
	}
	out_used = 0;
}

/* Room for a message of payload bytes; returns its payload. */
static void *out_msg(UInt type, UInt bytes)
{
	struct mt_vg_header *h;

	close_accesses();
	if (out_used + sizeof(*h) + bytes > BUF_BYTES)
		out_flush();
	h = (struct mt_vg_header *)(out_buf + out_used);
	h->type = type;
	h->bytes = bytes;
	out_used += sizeof(*h) + bytes;
	return h + 1;
}

/* ---- sampler (lackey.c's, bit for bit) -------------------------------- */

static ULong splitmix64(ULong *x)
{
	ULong z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static ULong next_gap(void)
{
	ULong p = (ULong)clo_period;

	if (!clo_random || p < 2)
		return p;
	ULong lo = p - p / 2, span = 2 * (p / 2) + 1;
	unsigned __int128 m = (unsigned __int128)splitmix64(&rng) * span;

	return lo + (ULong)(m >> 64);
}

/* ---- --aggregate: counts per bucket and interval ----------------------- */

#define AGG_ROWS_PER_MSG 8192	/* 128 KiB of rows: within the output buffer */

static ULong agg_end;		/* the open interval's last instruction (0: none open) */
static ULong agg_samples;	/* sampled accesses in it */
static ULong *agg_keys;		/* bucket + 1, 0: empty slot */
static ULong *agg_counts;
static UInt *agg_order;		/* the used slots, in insertion order */
static UInt agg_cap, agg_used;	/* slots (a power of two), used ones */
static ULong agg_last_key;	/* the last bucket + 1 and its slot: most accesses repeat it */
static UInt agg_last_slot;
static ULong agg_first_addr;	/* the first sampled access, until the first message */
static Bool agg_said_first;

static UInt agg_slot_of(ULong key)
{
	UInt mask = agg_cap - 1, i = (UInt)((key * 0x9e3779b97f4a7c15ULL) >> 40) & mask;

	while (agg_keys[i] && agg_keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

static void agg_alloc(UInt cap)
{
	agg_cap = cap;
	agg_keys = VG_(calloc)("mt.agg.keys", cap, sizeof(ULong));
	agg_counts = VG_(calloc)("mt.agg.counts", cap, sizeof(ULong));
	agg_order = VG_(malloc)("mt.agg.order", (cap / 2 + 1) * sizeof(UInt));
}

/* Twice the slots, the used ones moved over. */
static void agg_grow(void)
{
	ULong *keys = agg_keys, *counts = agg_counts;
	UInt *order = agg_order, used = agg_used;

	agg_alloc(agg_cap * 2);
	for (UInt j = 0; j < used; j++) {
		UInt i = agg_slot_of(keys[order[j]]);

		agg_keys[i] = keys[order[j]];
		agg_counts[i] = counts[order[j]];
		agg_order[j] = i;
	}
	VG_(free)(keys);
	VG_(free)(counts);
	VG_(free)(order);
	agg_last_key = 0;
}

/* The open interval's rows into the stream; the table emptied. */
static void agg_flush(void)
{
	ULong k = agg_end / (ULong)clo_aggregate;
	UInt done = 0;

	if (!agg_end)
		return;
	do {
		UInt n = agg_used - done < AGG_ROWS_PER_MSG ? agg_used - done : AGG_ROWS_PER_MSG;
		struct mt_vg_agg *h = out_dead ? NULL
					       : out_msg(MT_VG_AGG, sizeof(*h) + n * sizeof(struct mt_vg_agg_row));
		struct mt_vg_agg_row *row = h ? (struct mt_vg_agg_row *)(h + 1) : NULL;

		if (h)
			*h = (struct mt_vg_agg){ k, (ULong)clo_aggregate, done ? 0 : agg_samples,
						 agg_said_first ? 0 : agg_first_addr,
						 (UInt)clo_agg_shift, n };
		agg_said_first = True;
		for (UInt j = 0; j < n; j++) {
			UInt i = agg_order[done + j];

			if (row)
				row[j] = (struct mt_vg_agg_row){ agg_keys[i] - 1, agg_counts[i] };
			agg_keys[i] = 0;
			agg_counts[i] = 0;
		}
		done += n;
	} while (done < agg_used);
	agg_used = 0;
	agg_samples = 0;
	agg_last_key = 0;
	agg_end = 0;
	out_flush();	/* the collector names addresses while the guest runs */
}

static void agg_add(ULong time, Addr addr)
{
	ULong key = ((ULong)addr >> clo_agg_shift) + 1;
	UInt i;

	if (!agg_first_addr)
		agg_first_addr = addr;
	if (time > agg_end) {		/* a later interval (time >= 1) */
		ULong n = (ULong)clo_aggregate;

		agg_flush();
		agg_end = (time + n - 1) / n * n;
	}
	agg_samples++;
	if (key == agg_last_key) {
		agg_counts[agg_last_slot]++;
		return;
	}
	i = agg_slot_of(key);
	if (!agg_keys[i]) {
		if (2 * (agg_used + 1) > agg_cap) {
			agg_grow();
			i = agg_slot_of(key);
		}
		agg_keys[i] = key;
		agg_order[agg_used++] = i;
	}
	agg_counts[i]++;
	agg_last_key = key;
	agg_last_slot = i;
}

/* ---- helpers called from the generated code --------------------------- */

/* packed: instruction offset since the last mt_insns update << 32 | size << 8 | op */
static VG_REGPARM(3) void mt_record(Addr addr, HWord packed, Addr ip)
{
	struct mt_vg_access *a;

	n_samples++;
	if (clo_aggregate) {
		agg_add(mt_insns + (packed >> 32), addr);
		return;
	}
	if (out_dead)
		return;
	if (acc_msg == ~0u || out_used + sizeof(*a) > BUF_BYTES) {
		out_flush();
		acc_msg = out_used;
		struct mt_vg_header *h = (struct mt_vg_header *)(out_buf + out_used);

		h->type = MT_VG_ACCESSES;
		out_used += sizeof(*h);
	}
	a = (struct mt_vg_access *)(out_buf + out_used);
	out_used += sizeof(*a);
	a->time = mt_insns + (packed >> 32);
	a->addr = addr;
	a->ip = ip;
	a->tid = (UInt)mt_tid;
	a->size = (UShort)((packed >> 8) & 0xffff);
	a->op = (UChar)(packed & 0xff);
	a->pad = 0;
}

/* Period 1: every access. */
static VG_REGPARM(3) void mt_record_all(Addr addr, HWord packed, Addr ip)
{
	n_accesses++;
	mt_record(addr, packed, ip);
}

/* The inline countdown reached 0: this access is sampled. */
static VG_REGPARM(3) void mt_take(Addr addr, HWord packed, Addr ip)
{
	mt_left = next_gap();
	mt_record(addr, packed, ip);
}

/* Guarded accesses (and every access when counting is off): count here. */
static VG_REGPARM(3) void mt_count(Addr addr, HWord packed, Addr ip)
{
	n_accesses++;
	if (--mt_left)
		return;
	mt_take(addr, packed, ip);
}

/* ---- instrumentation -------------------------------------------------- */

typedef enum { EV_IR, EV_DR, EV_DW, EV_DM } EventKind;

typedef struct {
	EventKind kind;
	IRExpr *addr;
	Int size;
	IRExpr *guard;		/* NULL: always */
	UInt insn;		/* instruction number in the superblock (1-based) */
	Addr ip;
} Event;

/* lackey's list: events wait here so that a store can merge with the load before it. */
#define N_EVENTS 4
static Event events[N_EVENTS];
static Int events_used;

/* Per superblock being instrumented. */
static UInt sb_insns;		/* IMarks seen */
static UInt sb_counted;		/* of them, already added to mt_insns by generated code */
static Addr sb_ip;

static IRExpr *load64(IRSB *sb, void *where)
{
	IRTemp t = newIRTemp(sb->tyenv, Ity_I64);

	addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Load(Iend_LE, Ity_I64,
						      mkIRExpr_HWord((HWord)where))));
	return IRExpr_RdTmp(t);
}

/* *where op= n, inline; returns the new value (an atom). */
static IRExpr *update64(IRSB *sb, ULong *where, IROp op, ULong n)
{
	IRExpr *old = load64(sb, where);
	IRTemp t = newIRTemp(sb->tyenv, Ity_I64);

	addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(op, old, IRExpr_Const(IRConst_U64(n)))));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)where), IRExpr_RdTmp(t)));
	return IRExpr_RdTmp(t);
}

static void count_insns(IRSB *sb)
{
	if (sb_insns > sb_counted)
		update64(sb, &mt_insns, Iop_Add64, sb_insns - sb_counted);
	sb_counted = sb_insns;
}

static void emit_access(IRSB *sb, const Event *ev)
{
	static const UChar ops[] = {
		[EV_DR] = MT_VG_OP_LOAD, [EV_DW] = MT_VG_OP_STORE,
		[EV_DM] = MT_VG_OP_LOAD | MT_VG_OP_STORE,
	};
	HWord packed = ((HWord)(ev->insn - sb_counted) << 32) | ((HWord)ev->size << 8) | ops[ev->kind];
	IRExpr **args = mkIRExprVec_3(ev->addr, mkIRExpr_HWord(packed), mkIRExpr_HWord(ev->ip));
	IRDirty *di;

	tl_assert(ev->insn >= sb_counted);	/* = : after an exit inside the instruction */
	if (clo_period == 1 && !ev->guard) {
		di = unsafeIRDirty_0_N(3, "mt_record_all", VG_(fnptr_to_fnentry)(mt_record_all),
				       args);
	} else if (!ev->guard) {
		IRExpr *left;

		update64(sb, &n_accesses, Iop_Add64, 1);
		left = update64(sb, &mt_left, Iop_Sub64, 1);
		IRTemp hit = newIRTemp(sb->tyenv, Ity_I1);

		addStmtToIRSB(sb, IRStmt_WrTmp(hit, IRExpr_Binop(Iop_CmpEQ64, left,
								 IRExpr_Const(IRConst_U64(0)))));
		di = unsafeIRDirty_0_N(3, "mt_take", VG_(fnptr_to_fnentry)(mt_take), args);
		di->guard = IRExpr_RdTmp(hit);
	} else {
		di = unsafeIRDirty_0_N(3, "mt_count", VG_(fnptr_to_fnentry)(mt_count), args);
		di->guard = ev->guard;
	}
	addStmtToIRSB(sb, IRStmt_Dirty(di));
}

static void flush_events(IRSB *sb)
{
	for (Int i = 0; i < events_used; i++)
		if (events[i].kind != EV_IR)
			emit_access(sb, &events[i]);
	events_used = 0;
}

static void add_event(IRSB *sb, EventKind kind, IRExpr *addr, Int size, IRExpr *guard)
{
	if (events_used == N_EVENTS)
		flush_events(sb);
	events[events_used++] = (Event){ kind, addr, size, guard, sb_insns, sb_ip };
}

/* A store merges with the load just before it (same size and address, unguarded). */
static void add_store(IRSB *sb, IRExpr *addr, Int size)
{
	Event *last = events_used ? &events[events_used - 1] : NULL;

	if (last && last->kind == EV_DR && last->size == size && !last->guard &&
	    eqIRAtom(last->addr, addr)) {
		last->kind = EV_DM;
		return;
	}
	add_event(sb, EV_DW, addr, size, NULL);
}

/* One statement's accesses, in lackey's order. */
static void add_stmt_events(IRSB *sb, IRTypeEnv *tyenv, IRStmt *st)
{
	switch (st->tag) {
	case Ist_WrTmp:
		if (st->Ist.WrTmp.data->tag == Iex_Load)
			add_event(sb, EV_DR, st->Ist.WrTmp.data->Iex.Load.addr,
				  sizeofIRType(st->Ist.WrTmp.data->Iex.Load.ty), NULL);
		break;
	case Ist_Store:
		add_store(sb, st->Ist.Store.addr,
			  sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)));
		break;
	case Ist_StoreG: {
		IRStoreG *sg = st->Ist.StoreG.details;

		add_event(sb, EV_DW, sg->addr, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), sg->guard);
		break;
	}
	case Ist_LoadG: {
		IRLoadG *lg = st->Ist.LoadG.details;
		IRType ty = Ity_INVALID, wide = Ity_INVALID;

		typeOfIRLoadGOp(lg->cvt, &wide, &ty);
		add_event(sb, EV_DR, lg->addr, sizeofIRType(ty), lg->guard);
		break;
	}
	case Ist_Dirty: {
		IRDirty *d = st->Ist.Dirty.details;

		if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
			add_event(sb, EV_DR, d->mAddr, d->mSize, NULL);
		if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
			add_store(sb, d->mAddr, d->mSize);
		break;
	}
	case Ist_CAS: {
		IRCAS *cas = st->Ist.CAS.details;
		Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));

		if (cas->dataHi)
			size *= 2;
		add_event(sb, EV_DR, cas->addr, size, NULL);
		add_store(sb, cas->addr, size);
		break;
	}
	case Ist_LLSC:
		if (!st->Ist.LLSC.storedata) {
			add_event(sb, EV_DR, st->Ist.LLSC.addr,
				  sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)), NULL);
			flush_events(sb);	/* as lackey: helps the SC succeed */
		} else {
			add_store(sb, st->Ist.LLSC.addr,
				  sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)));
		}
		break;
	default:
		break;
	}
}

static IRSB *mt_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			   const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			   IRType gWordTy, IRType hWordTy)
{
	IRSB *out;
	Int i = 0;

	if (gWordTy != hWordTy)
		VG_(tool_panic)("host/guest word size mismatch");
	out = deepCopyIRSBExceptStmts(in);
	while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark)
		addStmtToIRSB(out, in->stmts[i++]);
	events_used = 0;
	sb_insns = sb_counted = 0;
	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (!st || st->tag == Ist_NoOp)
			continue;
		if (st->tag == Ist_IMark) {
			sb_insns++;
			sb_ip = (Addr)st->Ist.IMark.addr;
			add_event(out, EV_IR, NULL, 0, NULL);
		} else if (st->tag == Ist_Exit) {
			flush_events(out);
			count_insns(out);
		} else {
			add_stmt_events(out, in->tyenv, st);
		}
		addStmtToIRSB(out, st);
	}
	flush_events(out);
	count_insns(out);
	return out;
}

/* ---- threads and processes -------------------------------------------- */

static ThreadId last_tid = VG_INVALID_THREADID;

/* A thread gets the CPU: its kernel tid is asked for when it differs from the last one. */
static void mt_start_client_code(ThreadId tid, ULong blocks_done)
{
	if (tid != last_tid) {
		mt_tid = (ULong)VG_(gettid)();
		last_tid = tid;
	}
}

/* Its ThreadId may be reused by a new thread. */
static void mt_thread_exit(ThreadId tid)
{
	last_tid = VG_INVALID_THREADID;
}

static void mt_pre_fork(ThreadId tid)
{
	out_flush();
}

/* The parent says so in the stream: the collector warns. */
static void mt_parent(ThreadId tid)
{
	struct mt_vg_fork *f;

	if (out_dead)
		return;
	f = out_msg(MT_VG_FORK, sizeof(*f));
	f->time = mt_insns;
	f->tid = (UInt)mt_tid;
	f->pad = 0;
}

/* A forked child runs on under the tool: its accesses are not streamed (the
 * collector records the process it started). */
static void mt_child(ThreadId tid)
{
	out_used = 0;
	acc_msg = ~0u;
	out_dead = True;
}

/* ---- malloc replacement ----------------------------------------------- */

static void *record_alloc(ThreadId tid, void *p, SizeT size, UShort kind)
{
	Addr ips[MT_VG_MAX_FRAMES];
	UInt n;
	struct mt_vg_alloc *a;

	if (!p)
		return NULL;
	n_allocs++;
	if (out_dead)
		return p;
	n = VG_(get_StackTrace)(tid, ips, (UInt)clo_alloc_stack, NULL, NULL, 0);
	a = out_msg(MT_VG_ALLOC, sizeof(*a) + n * sizeof(ULong));
	a->time = mt_insns;
	a->addr = (Addr)p;
	a->size = size;
	a->tid = (UInt)mt_tid;
	a->kind = kind;
	a->nframes = (UShort)n;
	VG_(memcpy)(a + 1, ips, n * sizeof(ULong));
	return p;
}

static void record_free(ThreadId tid, void *p)
{
	struct mt_vg_free *f;

	if (!p)
		return;
	n_frees++;
	if (out_dead)
		return;
	f = out_msg(MT_VG_FREE, sizeof(*f));
	f->time = mt_insns;
	f->addr = (Addr)p;
	f->tid = (UInt)mt_tid;
	f->pad = 0;
}

static void *mt_malloc(ThreadId tid, SizeT n)
{
	return record_alloc(tid, VG_(cli_malloc)(VG_(clo_alignment), n), n, MT_VG_MALLOC);
}

static void *mt_new(ThreadId tid, SizeT n)
{
	return record_alloc(tid, VG_(cli_malloc)(VG_(clo_alignment), n), n, MT_VG_NEW);
}

static void *mt_new_aligned(ThreadId tid, SizeT n, SizeT align)
{
	return record_alloc(tid, VG_(cli_malloc)(align, n), n, MT_VG_NEW);
}

static void *mt_vec_new(ThreadId tid, SizeT n)
{
	return record_alloc(tid, VG_(cli_malloc)(VG_(clo_alignment), n), n, MT_VG_NEW_ARRAY);
}

static void *mt_vec_new_aligned(ThreadId tid, SizeT n, SizeT align)
{
	return record_alloc(tid, VG_(cli_malloc)(align, n), n, MT_VG_NEW_ARRAY);
}

static void *mt_memalign(ThreadId tid, SizeT align, SizeT n)
{
	return record_alloc(tid, VG_(cli_malloc)(align, n), n, MT_VG_MEMALIGN);
}

static void *mt_calloc(ThreadId tid, SizeT nmemb, SizeT size1)
{
	SizeT n = nmemb * size1;
	void *p;

	if (size1 && n / size1 != nmemb)
		return NULL;
	p = VG_(cli_malloc)(VG_(clo_alignment), n);
	if (p)
		VG_(memset)(p, 0, n);
	return record_alloc(tid, p, n, MT_VG_CALLOC);
}

static void mt_free(ThreadId tid, void *p)
{
	record_free(tid, p);
	VG_(cli_free)(p);
}

static void mt_delete_aligned(ThreadId tid, void *p, SizeT align)
{
	mt_free(tid, p);
}

static void *mt_realloc(ThreadId tid, void *p, SizeT n)
{
	void *q;

	if (!p)
		return mt_malloc(tid, n);
	if (n == 0) {
		mt_free(tid, p);
		return NULL;
	}
	q = VG_(cli_realloc)(p, n);
	if (!q)
		return NULL;	/* p stays allocated */
	record_free(tid, p);
	return record_alloc(tid, q, n, MT_VG_REALLOC);
}

static SizeT mt_usable_size(ThreadId tid, void *p)
{
	return VG_(cli_malloc_usable_size)(p);
}

/* ---- start and end ---------------------------------------------------- */

static void mt_post_clo_init(void)
{
	struct mt_vg_hello *h;

	if (clo_fd < 0)
		VG_(fmsg_bad_option)("--mt-fd", "the memtrace tool needs --mt-fd=N "
				     "(run it through memtracectl record --backend valgrind)\n");
	rng = (ULong)clo_seed;
	mt_left = next_gap();
	if (clo_aggregate)
		agg_alloc(1u << 12);
	h = out_msg(MT_VG_HELLO, sizeof(*h));
	*h = (struct mt_vg_hello){ MT_VG_MAGIC, MT_VG_VERSION, (UInt)VG_(getpid)(),
				   clo_random && clo_period > 1, (ULong)clo_period, (ULong)clo_seed };
}

static void mt_fini(Int exitcode)
{
	struct mt_vg_end *e;

	if (clo_aggregate)
		agg_flush();
	e = out_msg(MT_VG_END, sizeof(struct mt_vg_end));

	*e = (struct mt_vg_end){ mt_insns, n_accesses, n_samples, n_allocs, n_frees, exitcode };
	out_flush();
}

static void mt_pre_clo_init(void)
{
	VG_(details_name)("memtrace");
	VG_(details_version)("0.1");
	VG_(details_description)("sampled data accesses for memtracectl");
	VG_(details_copyright_author)("memtrace authors");
	VG_(details_bug_reports_to)("the memtrace project");
	VG_(details_avg_translation_sizeB)(400);

	VG_(basic_tool_funcs)(mt_post_clo_init, mt_instrument, mt_fini);
	VG_(needs_command_line_options)(mt_process_cmd_line_option, mt_print_usage,
					mt_print_debug_usage);
	VG_(needs_malloc_replacement)(mt_malloc, mt_new, mt_new_aligned, mt_vec_new,
				      mt_vec_new_aligned, mt_memalign, mt_calloc, mt_free,
				      mt_free, mt_delete_aligned, mt_free, mt_delete_aligned,
				      mt_realloc, mt_usable_size, 0);
	VG_(track_start_client_code)(mt_start_client_code);
	VG_(track_pre_thread_ll_exit)(mt_thread_exit);
	VG_(atfork)(mt_pre_fork, mt_parent, mt_child);
}

VG_DETERMINE_INTERFACE_VERSION(mt_pre_clo_init)
