// SPDX-License-Identifier: GPL-2.0
/*
 * The accessed-bit source (MEMTRACE_CFG_ACCESSED): a kernel thread per
 * session scans the page tables of the targets and their descendants every
 * pass (cfg.sample_period milliseconds), test-and-clears the accessed
 * (young) bit of every present PTE and THP PMD of every mapping kind
 * (private anonymous, shared anonymous/shmem/SysV shm, file-backed) and
 * writes one record per 4 KiB page found accessed: the pass's re-access
 * set.  No perf counter, no PMU.
 *
 * What the kernel exports to modules (Debian 6.1 and 6.12 Module.symvers):
 * none of walk_page_range(), __pte_offset_map_lock(), vm_normal_page(),
 * ptep_test_and_clear_young(), flush_tlb_mm_range(), flush_tlb_page() or
 * the mmu notifiers' clear_young.  Exported and used here: find_vma(),
 * get_task_mm()/mmput(), the mmap lock (inline rwsem), __flush_tlb_all()
 * and on_each_cpu_cond_mask().  So the walk is done here with the inline
 * page-table accessors, under the mmap lock taken for read (trylock: a busy
 * mm is skipped for the pass and counted; the lock is never waited for, so
 * the target never waits for us): the PGD..PMD levels cannot be freed while
 * it is held; a PTE table may be freed under it on 6.12 (khugepaged's
 * retract_page_tables(), through RCU), so a PTE table is read as
 * __pte_offset_map_lock() does: under rcu_read_lock(), its PMD read once,
 * the PTE lock taken and the PMD checked unchanged.  A THP PMD is handled
 * under pmd_lock().  The young bit is cleared with test_and_clear_bit() on
 * the entry (what x86's ptep_test_and_clear_young() does; this module is
 * x86-only).
 *
 * TLB: a translation cached in a TLB does not set the accessed bit again,
 * so a cleared bit must be followed by a flush, or a page used from the
 * TLB looks idle.  Without flush_tlb_mm_range() the flush is
 * __flush_tlb_all() on every online CPU (one IPI per CPU), done once per
 * mm scanned and before every yield, only when a bit was cleared since
 * the last flush.  MEMTRACE_CFG_ACCESSED_NO_FLUSH leaves it out (to measure
 * what it buys).
 *
 * Reclaim's view: reclaim reads the same bit (folio_referenced()).  As
 * DAMON and idle page tracking do, a folio whose bit we clear is marked
 * young (folio_set_young(), CONFIG_PAGE_IDLE_FLAG) so that reclaim still
 * takes it as referenced; without PAGE_IDLE_FLAG (Debian 6.1)
 * folio_mark_accessed() tells the LRU instead.  Accesses only through a
 * secondary MMU (KVM, device SVM) are not seen: the mmu notifiers'
 * clear_young is not exported.
 *
 * Cost bound: scan_budget PTEs per slice; at a slice's end, or when the
 * mmap lock is contended, or when a ring lacks room for a PTE table's
 * records, the scan drops its locks, flushes, yields (and waits up to a
 * second for the collector to drain) and takes the mmap lock again by
 * trylock, going on where it stopped.  Hugetlb, VM_PFNMAP and VM_IO
 * mappings are not scanned.
 *
 * Targets: every pass walks the process list under RCU and takes each
 * process whose thread group is a target, or (MEMTRACE_CFG_DESCENDANTS)
 * has one as an ancestor through real_parent, and that the opener may
 * ptrace-read.  A child reparented away from the targets (its parent
 * exited) is no longer a descendant.  A process exiting mid-pass: its mm
 * is held by mmget (get_task_mm()) for the scan, so its page tables stay
 * until the scan drops it.  The session ends (exit_work) when a pass finds
 * no target.  rmmod cannot happen mid-pass: the open session holds a
 * module reference and release() stops the thread first.
 *
 * The first pass is a baseline: it clears the bits (set by accesses before
 * the session) and records no page, only its pass records.
 *
 * Records: time = when that mm's scan started (CLOCK_MONOTONIC ns; every
 * page of the mm in the pass carries it), addr = the page, pid = tid = the
 * tgid, ip = 0, weight = 0, data_src = MEMTRACE_ACC_* kind (| THP).  At the
 * end of each mm's scan, a pass record: data_src MEMTRACE_ACC_PASS (|
 * MEMTRACE_ACC_PASS_PARTIAL when the mm was busy at the start or on a
 * yield), addr = scan time in ns, ip = present PTEs scanned (a THP counts
 * its 4 KiB pages), weight = pages found accessed.
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/moduleparam.h>
#include <linux/pgtable.h>
#include <linux/page_idle.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/bsearch.h>
#include <linux/timekeeping.h>
#include <asm/tlbflush.h>
#include <uapi/linux/magic.h>

#include "memtrace.h"

static unsigned int scan_budget = 16384;
module_param(scan_budget, uint, 0644);
MODULE_PARM_DESC(scan_budget,
		 "accessed-bit source: PTEs scanned per slice before the scan yields (64..1048576)");

/* Feature flag for the collector: this module has the accessed-bit source. */
static bool accessed = true;
module_param(accessed, bool, 0444);
MODULE_PARM_DESC(accessed, "the accessed-bit source is built in (read-only)");

/* Records a PTE table can produce, and room the scan wants before one. */
#define MT_SCAN_ROOM		(PTRS_PER_PTE + 2)
/* Longest wait for the collector to make room, per yield. */
#define MT_SCAN_ROOM_WAIT_MS	1000

struct mt_scan_mm {
	struct mm_struct *mm;
	pid_t tgid;
	u64 time;		/* scan start of this mm in the pass */
	u64 ptes;		/* present PTEs looked at */
	u64 young;		/* pages found accessed */
	bool partial;		/* busy at a trylock: not all scanned */
	bool cleared;		/* a bit cleared since the last flush */
	unsigned int slice;	/* PTEs in the current slice */
	bool no_flush;
	bool baseline;		/* first pass: clear, record no page */
	bool no_room;		/* the collector left no room: go on, drop */
};

static int mt_pid_cmp(const void *key, const void *elt)
{
	uintptr_t x = (uintptr_t)key, y = (uintptr_t)*(struct pid * const *)elt;

	return x < y ? -1 : x > y;
}

static bool mt_scan_is_target_tgid(struct memtrace_session *s,
				   struct task_struct *t)
{
	return bsearch(task_tgid(t), s->targets, s->nr_targets,
		       sizeof(*s->targets), mt_pid_cmp) != NULL;
}

/* Under RCU: is p a target or (DESCENDANTS) a descendant of one? */
static bool mt_scan_wanted(struct memtrace_session *s, struct task_struct *p)
{
	struct task_struct *t = p;
	int depth = 0;

	if (mt_scan_is_target_tgid(s, p))
		return true;
	if (!(s->cfg.flags & MEMTRACE_CFG_DESCENDANTS))
		return false;
	/* bounded: a chain never loops, but a pid namespace may be deep */
	while (depth++ < 4096) {
		struct task_struct *parent = rcu_dereference(t->real_parent);

		if (!parent || parent == t || parent->pid == 0)
			return false;
		if (mt_scan_is_target_tgid(s, parent))
			return true;
		t = parent;
	}
	return false;
}

/* The processes of this pass: references held in s->scan_tasks. */
static unsigned int mt_scan_collect(struct memtrace_session *s)
{
	struct task_struct *p;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process(p) {
		if (p->flags & PF_KTHREAD)
			continue;
		if (!mt_scan_wanted(s, p))
			continue;
		if (n == MEMTRACE_MAX_TASK_EVENTS) {
			s->scan_overflow++;
			break;
		}
		get_task_struct(p);
		s->scan_tasks[n++] = p;
	}
	rcu_read_unlock();
	return n;
}

static void mt_flush_local(void *unused)
{
	__flush_tlb_all();
}

static void mt_scan_flush(struct mt_scan_mm *m)
{
	if (!m->cleared || m->no_flush)
		return;
	on_each_cpu(mt_flush_local, NULL, 1);
	m->cleared = false;
}

/* Does every ring have room for a PTE table's records? */
static bool mt_scan_room(struct memtrace_session *s)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct memtrace_ring_header *h = s->rings[cpu].hdr;
		/* pairs with the release of tail in memtrace_ring_consume() */
		u64 unread = READ_ONCE(h->head) - smp_load_acquire(&h->tail);

		if (unread + MT_SCAN_ROOM > s->cfg.ring_records)
			return false;
	}
	return true;
}

static void mt_scan_emit(struct memtrace_session *s, struct mt_scan_mm *m,
			 unsigned long addr, unsigned int pages, u64 kind)
{
	struct memtrace_sample smp = {
		.time = m->time,
		.pid = m->tgid,
		.tid = m->tgid,
		.data_src = kind,
	};
	unsigned int i;

	m->young += pages;
	if (m->baseline)
		return;
	smp.cpu = get_cpu();
	for (i = 0; i < pages; i++) {
		smp.addr = addr + (unsigned long)i * PAGE_SIZE;
		memtrace_ring_push(s, &smp);
	}
	put_cpu();
}

/* Reclaim still sees the page as referenced (see the top of the file). */
static void mt_keep_young(struct folio *folio)
{
#ifdef CONFIG_PAGE_IDLE_FLAG
	folio_set_young(folio);
#else
	folio_mark_accessed(folio);
#endif
}

static u64 mt_vma_kind(struct vm_area_struct *vma)
{
	struct file *f = vma->vm_file;

	if (!f)
		return MEMTRACE_ACC_ANON;
	if (file_inode(f)->i_sb->s_magic == TMPFS_MAGIC)
		return MEMTRACE_ACC_SHMEM;
	return MEMTRACE_ACC_FILE;
}

/* The THP PMD that maps addr. */
static void mt_scan_pmd_huge(struct memtrace_session *s, struct mt_scan_mm *m,
			     struct vm_area_struct *vma, pmd_t *pmd,
			     unsigned long addr, u64 kind)
{
	spinlock_t *ptl = pmd_lock(vma->vm_mm, pmd);
	pmd_t val = READ_ONCE(*pmd);
	unsigned long base = addr & PMD_MASK;
	unsigned long lo = max(base, vma->vm_start);
	unsigned long hi = min(base + PMD_SIZE, vma->vm_end);

	if (!pmd_trans_huge(val) || !pmd_present(val)) {
		spin_unlock(ptl);
		return;
	}
	m->ptes += (hi - lo) >> PAGE_SHIFT;
	m->slice += PTRS_PER_PTE;
	if (pmd_young(val) &&
	    test_and_clear_bit(_PAGE_BIT_ACCESSED, (unsigned long *)pmd)) {
		m->cleared = true;
		if (!pmd_devmap(val))
			mt_keep_young(page_folio(pmd_page(val)));
		mt_scan_emit(s, m, lo, (hi - lo) >> PAGE_SHIFT,
			     kind | MEMTRACE_ACC_THP);
	}
	spin_unlock(ptl);
}

/* The PTEs of [addr, end) under one PMD; false: the PMD changed, retry. */
static bool mt_scan_ptes(struct memtrace_session *s, struct mt_scan_mm *m,
			 struct vm_area_struct *vma, pmd_t *pmd, pmd_t pmdval,
			 unsigned long addr, unsigned long end, u64 kind)
{
	spinlock_t *ptl;	/* this PTE page's lock (pte_lockptr) */
	pte_t *start, *pte;
	bool ok = true;

	rcu_read_lock();
	start = (pte_t *)pmd_page_vaddr(pmdval) + pte_index(addr);
	ptl = pte_lockptr(vma->vm_mm, &pmdval);
	spin_lock(ptl);
	if (!pmd_same(pmdval, READ_ONCE(*pmd))) {
		ok = false;
		goto out;
	}
	for (pte = start; addr < end; pte++, addr += PAGE_SIZE) {
		pte_t ent = ptep_get(pte);
		unsigned long pfn;

		if (!pte_present(ent))
			continue;
		m->ptes++;
		m->slice++;
		if (!pte_young(ent) ||
		    !test_and_clear_bit(_PAGE_BIT_ACCESSED,
					(unsigned long *)&pte->pte))
			continue;
		m->cleared = true;
		pfn = pte_pfn(ent);
		if (!pte_special(ent) && pfn_valid(pfn))
			mt_keep_young(page_folio(pfn_to_page(pfn)));
		mt_scan_emit(s, m, addr, 1, kind);
	}
out:
	spin_unlock(ptl);
	rcu_read_unlock();
	return ok;
}

/*
 * Scans [addr, end) of vma; returns where it stopped (end when done, less
 * when the slice is over and the caller must yield).
 */
static unsigned long mt_scan_range(struct memtrace_session *s,
				   struct mt_scan_mm *m,
				   struct vm_area_struct *vma,
				   unsigned long addr, unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	u64 kind = mt_vma_kind(vma);
	unsigned long next;
	bool retried = false;

	for (; addr < end; addr = next) {
		pgd_t *pgd;
		p4d_t *p4d;
		pud_t *pud;
		pmd_t *pmd, pmdval;

		if (m->slice >= clamp(READ_ONCE(scan_budget), 64U, 1U << 20) ||
		    mmap_lock_is_contended(mm) ||
		    (!m->no_room && !mt_scan_room(s)))
			return addr;
		next = pmd_addr_end(addr, end);
		pgd = pgd_offset(mm, addr);
		if (pgd_none(*pgd) || pgd_bad(*pgd)) {
			next = pgd_addr_end(addr, end);
			continue;
		}
		p4d = p4d_offset(pgd, addr);
		if (p4d_none(*p4d) || p4d_bad(*p4d)) {
			next = p4d_addr_end(addr, end);
			continue;
		}
		pud = pud_offset(p4d, addr);
		if (pud_none(*pud) || pud_bad(*pud) || pud_leaf(*pud)) {
			next = pud_addr_end(addr, end);
			continue;
		}
		pmd = pmd_offset(pud, addr);
		pmdval = READ_ONCE(*pmd);
		if (pmd_none(pmdval))
			continue;
		if (pmd_trans_huge(pmdval) || pmd_devmap(pmdval)) {
			mt_scan_pmd_huge(s, m, vma, pmd, addr, kind);
			continue;
		}
		if (!pmd_present(pmdval) || pmd_bad(pmdval))
			continue;
		if (!mt_scan_ptes(s, m, vma, pmd, pmdval, addr, next, kind) &&
		    !retried) {
			next = addr;	/* the PMD changed under us: once again */
			retried = true;
			continue;
		}
		retried = false;
	}
	return end;
}

/*
 * Drops the mmap lock, flushes, yields and takes the lock again (trylock).
 * False: the mm stays busy or the thread must stop.
 */
static bool mt_scan_yield(struct memtrace_session *s, struct mt_scan_mm *m)
{
	unsigned int waited = 0;

	mmap_read_unlock(m->mm);
	mt_scan_flush(m);
	m->slice = 0;
	cond_resched();
	while (!mt_scan_room(s) && waited < MT_SCAN_ROOM_WAIT_MS &&
	       !kthread_should_stop()) {
		wake_up_interruptible_all(&s->wq);
		usleep_range(2000, 4000);
		waited += 2;
	}
	/* still full after the wait: scan on, the rings drop and count */
	m->no_room = !mt_scan_room(s);
	if (kthread_should_stop())
		return false;
	if (!mmap_read_trylock(m->mm)) {
		m->partial = true;
		return false;
	}
	return true;
}

static void mt_scan_mm(struct memtrace_session *s, struct mt_scan_mm *m)
{
	struct vm_area_struct *vma;
	unsigned long addr = 0;
	struct memtrace_sample rec = { .pid = m->tgid, .tid = m->tgid };

	m->time = ktime_get_mono_fast_ns();
	if (!mmap_read_trylock(m->mm)) {
		m->partial = true;
		goto done;
	}
	while ((vma = find_vma(m->mm, addr))) {
		unsigned long start = max(addr, vma->vm_start);
		unsigned long stop;

		addr = vma->vm_end;
		if (is_vm_hugetlb_page(vma) ||
		    (vma->vm_flags & (VM_PFNMAP | VM_IO)))
			continue;
		stop = mt_scan_range(s, m, vma, start, vma->vm_end);
		if (stop < vma->vm_end) {
			addr = stop;
			/* the vma may be gone after the yield: find it again */
			if (!mt_scan_yield(s, m))
				goto done;
		}
	}
	mmap_read_unlock(m->mm);
done:
	mt_scan_flush(m);
	rec.time = ktime_get_mono_fast_ns();
	rec.addr = rec.time - m->time;
	rec.ip = m->ptes;
	rec.weight = (u32)min_t(u64, m->young, U32_MAX);
	rec.data_src = MEMTRACE_ACC_PASS |
		       (m->partial ? MEMTRACE_ACC_PASS_PARTIAL : 0) |
		       (m->baseline ? MEMTRACE_ACC_PASS_BASELINE : 0);
	rec.cpu = get_cpu();
	memtrace_ring_push(s, &rec);
	put_cpu();
}

/*
 * One pass over every target process; returns how many were found.
 * baseline: the first pass, which only clears the bits (they hold accesses
 * from before the session).  A process forked later needs none: fork makes
 * the child's PTEs old (copy_present_pte()).
 */
static unsigned int mt_scan_pass(struct memtrace_session *s, bool baseline)
{
	unsigned int n = mt_scan_collect(s), i;
	const struct cred *saved;

	for (i = 0; i < n; i++) {
		struct task_struct *t = s->scan_tasks[i];
		struct mt_scan_mm m = {
			.tgid = t->tgid,
			.no_flush = s->cfg.flags & MEMTRACE_CFG_ACCESSED_NO_FLUSH,
			.baseline = baseline,
		};
		bool ok;

		/* the opener's right to read it, as for a counter */
		saved = override_creds(s->scan_cred);
		ok = memtrace_may_read(t);
		revert_creds(saved);
		m.mm = ok ? get_task_mm(t) : NULL;
		put_task_struct(t);
		if (!m.mm)
			continue;
		if (!kthread_should_stop())
			mt_scan_mm(s, &m);
		mmput(m.mm);
		cond_resched();
	}
	return n;
}

static int mt_scan_thread(void *arg)
{
	struct memtrace_session *s = arg;
	u64 period = s->cfg.sample_period * NSEC_PER_MSEC;
	bool baseline = true;

	while (!kthread_should_stop()) {
		u64 t0 = ktime_get_ns(), spent;

		WRITE_ONCE(s->scan_procs, mt_scan_pass(s, baseline));
		baseline = false;
		spent = ktime_get_ns() - t0;
		if (spent < period)
			schedule_timeout_interruptible(nsecs_to_jiffies(period -
									 spent));
	}
	return 0;
}

int memtrace_scan_start(struct memtrace_session *s)
{
	struct task_struct *t;
	unsigned int i, n;

	s->scan_tasks = kcalloc(MEMTRACE_MAX_TASK_EVENTS,
				sizeof(*s->scan_tasks), GFP_KERNEL_ACCOUNT);
	if (!s->scan_tasks)
		return -ENOMEM;
	s->scan_cred = get_current_cred();
	s->scan_overflow = 0;
	s->attached = (struct memtrace_targets){ .size = sizeof(s->attached) };
	/* what the first pass will take: counted for MEMTRACE_IOC_TARGETS */
	n = mt_scan_collect(s);
	for (i = 0; i < n; i++) {
		struct task_struct *p = s->scan_tasks[i];

		if (memtrace_may_read(p)) {
			s->attached.processes++;
			s->attached.threads += get_nr_threads(p);
		} else {
			s->attached.denied++;
		}
		put_task_struct(p);
	}
	if (!s->attached.processes) {
		memtrace_scan_stop(s);
		return s->attached.denied ? -EACCES : -ESRCH;
	}
	s->scan_procs = n;
	t = kthread_run(mt_scan_thread, s, "memtrace_scan");
	if (IS_ERR(t)) {
		memtrace_scan_stop(s);
		return PTR_ERR(t);
	}
	get_task_struct(t);
	s->scan_thread = t;
	return 0;
}

/* Under s->lock; the thread never takes it. */
void memtrace_scan_stop(struct memtrace_session *s)
{
	if (s->scan_thread) {
		kthread_stop(s->scan_thread);
		put_task_struct(s->scan_thread);
		s->scan_thread = NULL;
	}
	if (s->scan_cred)
		put_cred(s->scan_cred);
	s->scan_cred = NULL;
	kfree(s->scan_tasks);
	s->scan_tasks = NULL;
}

bool memtrace_scan_alive(struct memtrace_session *s)
{
	return READ_ONCE(s->scan_procs) > 0;
}
