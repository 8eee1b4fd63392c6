// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the vmalloc free-space allocator.
 *
 * Since Linux 5.2 (commit 68ad4a330433, "mm/vmalloc.c: keep track of free
 * blocks for vmap allocation") free vmalloc space is kept in an augmented
 * rb-tree sorted by address, paired with an address-sorted list.  Every
 * node caches in subtree_max_size the largest free block of its subtree,
 * which lets find_vmap_lowest_match() find the lowest fitting block in
 * O(log n).
 *
 * This file is included at the end of mm/vmalloc.c, so that the static
 * helpers can be called directly.  Every test builds its own private tree
 * and list; none touches free_vmap_area_root.  Nodes come from and go back
 * to vmap_area_cachep.
 *
 * The randomized model test prints its seed; replay a run with
 * "vmalloc.kunit_seed=<seed>" on the kernel command line, and make it
 * longer with "vmalloc.kunit_ops=<n>".  "vmalloc.kunit_soak_secs=<s>" runs
 * it for consecutive seeds from that one until s seconds have passed
 * (make soak), stopping at the first seed that fails.
 *
 * The vmalloc_bench suite (make bench) times find_vmap_lowest_match() and
 * allocate+free pairs against a linear scan of the address-sorted list on
 * fragmented trees of growing size.  It prints figures and never fails on
 * a timing; it is skipped unless "vmalloc.kunit_bench=1" is given.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/mount.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sizes.h>

static unsigned long vt_seed;
module_param_named(kunit_seed, vt_seed, ulong, 0444);
MODULE_PARM_DESC(kunit_seed, "Seed of the vmalloc KUnit random tests (0: pick one)");

static unsigned int vt_ops = 4000;
module_param_named(kunit_ops, vt_ops, uint, 0444);
MODULE_PARM_DESC(kunit_ops, "Operations in the vmalloc KUnit model test");

static unsigned int vt_soak_secs;
module_param_named(kunit_soak_secs, vt_soak_secs, uint, 0444);
MODULE_PARM_DESC(kunit_soak_secs, "Run the model test for consecutive seeds for this long");

static bool vt_bench;
module_param_named(kunit_bench, vt_bench, bool, 0444);
MODULE_PARM_DESC(kunit_bench, "Run the vmalloc_bench suite");

/*
 * Test blocks are described in pages above a non-zero base aligned to
 * 1 GiB, so that an alignment in pages means the same relative to the base.
 */
#define VT_BASE		((unsigned long)SZ_1G)
#define VT_ADDR(pg)	(VT_BASE + ((unsigned long)(pg) << PAGE_SHIFT))
#define VT_PG(addr)	(((addr) - VT_BASE) >> PAGE_SHIFT)
#define VT_SZ(pg)	((unsigned long)(pg) << PAGE_SHIFT)

/* A free block [start, end), in pages relative to VT_BASE. */
struct vt_range {
	unsigned long start;
	unsigned long end;
};

/* A private free-space tree and list, as free_vmap_area_root/_list. */
struct vt_tree {
	struct rb_root root;
	struct list_head head;
};

/* One node of a tree, as it was when a snapshot was taken. */
struct vt_snap_entry {
	struct vmap_area *va;
	unsigned long va_start;
	unsigned long va_end;
	unsigned long subtree_max_size;
};

struct vt_snap {
	unsigned int n;
	struct vt_snap_entry e[];
};

static struct vt_tree *vt_tree(struct kunit *test)
{
	return test->priv;
}

static int vt_init(struct kunit *test)
{
	struct vt_tree *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	t->root = RB_ROOT;
	INIT_LIST_HEAD(&t->head);
	test->priv = t;
	return 0;
}

/* Give every node of a private tree back to vmap_area_cachep. */
static void vt_empty(struct vt_tree *t)
{
	struct vmap_area *va, *n;

	list_for_each_entry_safe(va, n, &t->head, list) {
		unlink_va_augment(va, &t->root);
		kmem_cache_free(vmap_area_cachep, va);
	}
}

static void vt_exit(struct kunit *test)
{
	if (test->priv)
		vt_empty(vt_tree(test));
}

static int vt_suite_init(struct kunit_suite *suite)
{
	while (!vt_seed)
		vt_seed = get_random_u32();
	kunit_info(suite, "random seed %lu (replay: vmalloc.kunit_seed=%lu)\n",
		   vt_seed, vt_seed);
	return 0;
}

static struct vmap_area *vt_new_va(struct kunit *test, unsigned long start,
				   unsigned long end)
{
	struct vmap_area *va = kmem_cache_zalloc(vmap_area_cachep, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, va);
	va->va_start = start;
	va->va_end = end;
	return va;
}

/* Free [start, end) (addresses) into @t, coalescing as free_vmap_area() does. */
static struct vmap_area *vt_free(struct kunit *test, struct vt_tree *t,
				 unsigned long start, unsigned long end)
{
	struct vmap_area *va = vt_new_va(test, start, end);

	va = merge_or_add_vmap_area_augment(va, &t->root, &t->head);
	KUNIT_ASSERT_NOT_NULL(test, va);
	return va;
}

static void vt_build(struct kunit *test, struct vt_tree *t,
		     const struct vt_range *r, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		vt_free(test, t, VT_ADDR(r[i].start), VT_ADDR(r[i].end));
}

static unsigned int vt_count(struct vt_tree *t)
{
	struct vmap_area *va;
	unsigned int n = 0;

	list_for_each_entry(va, &t->head, list)
		n++;
	return n;
}

static unsigned long vt_free_size(struct vt_tree *t)
{
	struct vmap_area *va;
	unsigned long sum = 0;

	list_for_each_entry(va, &t->head, list)
		sum += va_size(va);
	return sum;
}

/* The n-th block of the list, counting from 0, or NULL. */
static struct vmap_area *vt_nth(struct vt_tree *t, unsigned int n)
{
	struct vmap_area *va;

	list_for_each_entry(va, &t->head, list)
		if (!n--)
			return va;
	return NULL;
}

/*
 * Check every invariant of a free-space tree:
 *  - the in-order walk of the rb-tree and the list visit the same nodes,
 *  - blocks are non-empty (and page aligned, if @aligned), sorted, and no
 *    two of them overlap or touch (touching blocks must have been merged),
 *  - every node's subtree_max_size is the max of its own size and its
 *    children's subtree_max_size.
 * Describe the first violation in @why and return false.
 */
static bool vt_consistent(struct rb_root *root, struct list_head *head,
			  bool aligned, char *why, size_t len)
{
	struct rb_node *rb = rb_first(root);
	struct list_head *prev_link = head;
	struct vmap_area *va, *prev = NULL;
	unsigned long want;
	unsigned int i = 0;

	list_for_each_entry(va, head, list) {
		if (va->list.prev != prev_link) {
			snprintf(why, len, "block %u: list prev link broken", i);
			return false;
		}
		if (!rb || rb_entry(rb, struct vmap_area, rb_node) != va) {
			snprintf(why, len, "block %u [%#lx, %#lx): tree and list disagree",
				 i, va->va_start, va->va_end);
			return false;
		}
		if (va->va_start >= va->va_end ||
		    (aligned && !(PAGE_ALIGNED(va->va_start) &&
				  PAGE_ALIGNED(va->va_end)))) {
			snprintf(why, len, "block %u [%#lx, %#lx): empty or unaligned",
				 i, va->va_start, va->va_end);
			return false;
		}
		if (prev && prev->va_end >= va->va_start) {
			snprintf(why, len, "blocks [%#lx, %#lx) and [%#lx, %#lx) %s",
				 prev->va_start, prev->va_end, va->va_start,
				 va->va_end, prev->va_end == va->va_start ?
				 "touch but were not merged" : "overlap");
			return false;
		}
		want = max3(va_size(va), get_subtree_max_size(rb->rb_left),
			    get_subtree_max_size(rb->rb_right));
		if (va->subtree_max_size != want) {
			snprintf(why, len,
				 "block %u [%#lx, %#lx): subtree_max_size %#lx, expected %#lx",
				 i, va->va_start, va->va_end,
				 va->subtree_max_size, want);
			return false;
		}
		prev_link = &va->list;
		prev = va;
		rb = rb_next(rb);
		i++;
	}
	if (rb) {
		snprintf(why, len, "the tree has more nodes than the list (%u)", i);
		return false;
	}
	return true;
}

static bool vt_check(struct kunit *test, struct vt_tree *t)
{
	char why[160];

	if (vt_consistent(&t->root, &t->head, true, why, sizeof(why)))
		return true;
	KUNIT_FAIL(test, "%s", why);
	return false;
}

/* The free blocks of @t are exactly @want (pages relative to VT_BASE). */
static bool vt_expect_blocks(struct kunit *test, struct vt_tree *t,
			     const struct vt_range *want, unsigned int n)
{
	struct vmap_area *va;
	unsigned int i = 0;

	list_for_each_entry(va, &t->head, list) {
		if (i >= n || va->va_start != VT_ADDR(want[i].start) ||
		    va->va_end != VT_ADDR(want[i].end)) {
			KUNIT_FAIL(test, "block %u is pages [%#lx, %#lx), expected %s [%#lx, %#lx)",
				   i, VT_PG(va->va_start), VT_PG(va->va_end),
				   i >= n ? "nothing" : "", i >= n ? 0 : want[i].start,
				   i >= n ? 0 : want[i].end);
			return false;
		}
		i++;
	}
	if (i != n) {
		KUNIT_FAIL(test, "%u free blocks, expected %u", i, n);
		return false;
	}
	return true;
}

static struct vt_snap *vt_snapshot(struct kunit *test, struct vt_tree *t)
{
	unsigned int n = vt_count(t), i = 0;
	struct vt_snap *s;
	struct vmap_area *va;

	s = kunit_kzalloc(test, struct_size(s, e, n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->n = n;
	list_for_each_entry(va, &t->head, list) {
		s->e[i].va = va;
		s->e[i].va_start = va->va_start;
		s->e[i].va_end = va->va_end;
		s->e[i].subtree_max_size = va->subtree_max_size;
		i++;
	}
	return s;
}

/* @t holds the same nodes, with the same contents, as when @s was taken. */
static bool vt_unchanged(struct kunit *test, struct vt_tree *t,
			 const struct vt_snap *s)
{
	struct vmap_area *va;
	unsigned int i = 0;

	list_for_each_entry(va, &t->head, list) {
		if (i >= s->n || s->e[i].va != va ||
		    s->e[i].va_start != va->va_start ||
		    s->e[i].va_end != va->va_end ||
		    s->e[i].subtree_max_size != va->subtree_max_size) {
			KUNIT_FAIL(test, "tree changed at block %u [%#lx, %#lx)",
				   i, va->va_start, va->va_end);
			return false;
		}
		i++;
	}
	if (i != s->n) {
		KUNIT_FAIL(test, "tree has %u blocks, had %u", i, s->n);
		return false;
	}
	return true;
}

/*
 * The NE split takes this CPU's ne_fit_preload_node.  Run a split with a
 * slot of our choosing and give the live allocator its own object back
 * afterwards, so that no test consumes or leaks the real preload object.
 */
static struct vmap_area *vt_preload_swap(struct vmap_area *mine)
{
	preempt_disable();
	return __this_cpu_xchg(ne_fit_preload_node, mine);
}

static struct vmap_area *vt_preload_restore(struct vmap_area *saved)
{
	struct vmap_area *left = __this_cpu_xchg(ne_fit_preload_node, saved);

	preempt_enable();
	return left;
}

/* va_clip() on a private tree, with an empty preload slot. */
static int vt_clip(struct vt_tree *t, struct vmap_area *va,
		   unsigned long start, unsigned long size)
{
	struct vmap_area *saved = vt_preload_swap(NULL);
	int ret;

	ret = va_clip(&t->root, &t->head, va, start, size);
	vt_preload_restore(saved);
	return ret;
}

/* __alloc_vmap_area() on a private tree, with an empty preload slot. */
static unsigned long vt_alloc(struct vt_tree *t, unsigned long size,
			      unsigned long align, unsigned long vstart,
			      unsigned long vend)
{
	struct vmap_area *saved = vt_preload_swap(NULL);
	unsigned long addr;

	addr = __alloc_vmap_area(&t->root, &t->head, size, align, vstart, vend);
	vt_preload_restore(saved);
	return addr;
}

/*
 * Reference for the search: the address at which a request lands in @va,
 * computed without is_within_this_va(), or 0 when it does not fit.
 */
static unsigned long vt_ref_fit(struct vmap_area *va, unsigned long size,
				unsigned long align, unsigned long vstart)
{
	unsigned long addr = ALIGN(max(va->va_start, vstart), align);

	if (addr < vstart || addr < va->va_start)	/* ALIGN() wrapped */
		return 0;
	if (size > va->va_end - addr || va->va_end < addr)
		return 0;
	return addr;
}

/* Reference: the lowest block of the list that fits, by linear scan. */
static struct vmap_area *vt_ref_lowest(struct vt_tree *t, unsigned long size,
				       unsigned long align, unsigned long vstart,
				       unsigned long min_size)
{
	struct vmap_area *va;

	list_for_each_entry(va, &t->head, list)
		if (va_size(va) >= min_size && vt_ref_fit(va, size, align, vstart))
			return va;
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* 1. Fit-type classification                                              */

struct vt_fit_case {
	const char *desc;
	unsigned long va_start;
	unsigned long va_end;
	unsigned long addr;
	unsigned long size;
	enum fit_type want;
};

/* The last page boundary of the address space. */
#define VT_TOP		(ULONG_MAX & PAGE_MASK)

/* A: page of the test area, S: size in pages, T: pages below VT_TOP. */
#define A(pg)	VT_ADDR(pg)
#define S(pg)	VT_SZ(pg)
#define T(pg)	(VT_TOP - VT_SZ(pg))

static const struct vt_fit_case vt_fit_cases[] = {
	/* Block [10, 14) pages. */
	{ "full fit",
	  A(10), A(14), A(10), S(4), FL_FIT_TYPE },
	{ "left edge, one page",
	  A(10), A(14), A(10), S(1), LE_FIT_TYPE },
	{ "left edge, all but one page",
	  A(10), A(14), A(10), S(3), LE_FIT_TYPE },
	{ "right edge, one page",
	  A(10), A(14), A(13), S(1), RE_FIT_TYPE },
	{ "right edge, all but one page",
	  A(10), A(14), A(11), S(3), RE_FIT_TYPE },
	{ "no edge, one page",
	  A(10), A(14), A(11), S(1), NE_FIT_TYPE },
	{ "no edge, two pages",
	  A(10), A(14), A(11), S(2), NE_FIT_TYPE },
	{ "no edge, one byte",
	  A(10), A(14), A(11), 1, NE_FIT_TYPE },
	{ "one page past the right edge",
	  A(10), A(14), A(13), S(2), NOTHING_FIT },
	{ "one page bigger than the block",
	  A(10), A(14), A(10), S(5), NOTHING_FIT },
	{ "one byte past the right edge",
	  A(10), A(14), A(10), S(4) + 1, NOTHING_FIT },
	{ "start one page below va_start",
	  A(10), A(14), A(9), S(1), NOTHING_FIT },
	{ "start below va_start, ends inside",
	  A(10), A(14), A(9), S(2), NOTHING_FIT },
	{ "start one byte below va_start",
	  A(10), A(14), A(10) - 1, S(1), NOTHING_FIT },
	{ "covers the block and more",
	  A(10), A(14), A(9), S(6), NOTHING_FIT },
	{ "starts at va_end",
	  A(10), A(14), A(14), S(1), NOTHING_FIT },
	{ "one-page block, full fit",
	  A(10), A(11), A(10), S(1), FL_FIT_TYPE },
	/* Blocks at the very top of the address space. */
	{ "top: full fit up to the last page",
	  T(4), T(0), T(4), S(4), FL_FIT_TYPE },
	{ "top: right edge at the last page",
	  T(4), T(0), T(1), S(1), RE_FIT_TYPE },
	{ "top: no edge",
	  T(4), T(0), T(2), S(1), NE_FIT_TYPE },
	{ "top: one page past the end",
	  T(4), T(1), T(1), S(1), NOTHING_FIT },
	{ "top: request wraps past ULONG_MAX",
	  T(4), T(0), T(1), S(2), NOTHING_FIT },
	{ "top: huge request wraps to below the block",
	  T(4), T(0), T(2), ULONG_MAX - S(8), NOTHING_FIT },
};

#undef A
#undef S
#undef T

KUNIT_ARRAY_PARAM_DESC(vt_fit, vt_fit_cases, desc);

static void vmalloc_fit_type_test(struct kunit *test)
{
	const struct vt_fit_case *c = test->param_value;
	struct vmap_area va = { .va_start = c->va_start, .va_end = c->va_end };

	KUNIT_EXPECT_EQ_MSG(test, classify_va_fit_type(&va, c->addr, c->size), c->want,
			    "block [%#lx, %#lx), request %#lx + %#lx",
			    c->va_start, c->va_end, c->addr, c->size);
}

/* ---------------------------------------------------------------------- */
/* 2. Splitting                                                            */

static const struct vt_range vt_three[] = {
	{ 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 },
};

struct vt_clip_case {
	const char *desc;
	unsigned long start;	/* pages, in the middle block [0x30, 0x40) */
	unsigned long size;
	int ret;
	struct vt_range want[4];
	unsigned int nwant;
};

static const struct vt_clip_case vt_clip_cases[] = {
	{ "FL removes the block", 0x30, 0x10, 0,
	  { { 0x10, 0x20 }, { 0x50, 0x60 } }, 2 },
	{ "LE shrinks from the left", 0x30, 0x4, 0,
	  { { 0x10, 0x20 }, { 0x34, 0x40 }, { 0x50, 0x60 } }, 3 },
	{ "RE shrinks from the right", 0x3c, 0x4, 0,
	  { { 0x10, 0x20 }, { 0x30, 0x3c }, { 0x50, 0x60 } }, 3 },
	{ "NE leaves both remainders", 0x34, 0x4, 0,
	  { { 0x10, 0x20 }, { 0x30, 0x34 }, { 0x38, 0x40 }, { 0x50, 0x60 } }, 4 },
	{ "NE one page each side", 0x31, 0xe, 0,
	  { { 0x10, 0x20 }, { 0x30, 0x31 }, { 0x3f, 0x40 }, { 0x50, 0x60 } }, 4 },
	{ "NOTHING_FIT changes nothing", 0x3c, 0x8, -1,
	  { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3 },
};

KUNIT_ARRAY_PARAM_DESC(vt_clip, vt_clip_cases, desc);

static void vmalloc_clip_test(struct kunit *test)
{
	const struct vt_clip_case *c = test->param_value;
	struct vt_tree *t = vt_tree(test);
	unsigned long before;

	vt_build(test, t, vt_three, ARRAY_SIZE(vt_three));
	before = vt_free_size(t);

	KUNIT_EXPECT_EQ(test, vt_clip(t, vt_nth(t, 1), VT_ADDR(c->start), VT_SZ(c->size)),
			c->ret);
	vt_check(test, t);
	vt_expect_blocks(test, t, c->want, c->nwant);
	KUNIT_EXPECT_EQ(test, vt_free_size(t), before - (c->ret ? 0 : VT_SZ(c->size)));
}

/* An NE split takes this CPU's preloaded object and allocates nothing. */
static void vmalloc_clip_ne_uses_preload_test(struct kunit *test)
{
	struct vt_tree *t = vt_tree(test);
	struct vmap_area *mine, *saved, *left;
	int ret;

	vt_build(test, t, vt_three, ARRAY_SIZE(vt_three));
	mine = vt_new_va(test, 0, 0);

	saved = vt_preload_swap(mine);
	ret = va_clip(&t->root, &t->head, vt_nth(t, 1), VT_ADDR(0x34), VT_SZ(4));
	left = vt_preload_restore(saved);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_NULL(test, left);
	if (left)
		kmem_cache_free(vmap_area_cachep, left);
	/* The left remainder is the preloaded object itself. */
	KUNIT_EXPECT_PTR_EQ(test, vt_nth(t, 1), mine);
	vt_check(test, t);
}

/*
 * With no preloaded object, the NE split allocates with GFP_NOWAIT.  When
 * that fails, va_clip() must report it and leave the tree as it was.  The
 * failure is injected with the task's fail-nth counter (failslab).
 */
static void vmalloc_clip_ne_alloc_failure_test(struct kunit *test)
{
#if defined(CONFIG_FAILSLAB)
	struct vt_tree *t = vt_tree(test);
	struct vt_snap *snap;
	unsigned int fail_nth;
	int ret;

	vt_build(test, t, vt_three, ARRAY_SIZE(vt_three));
	snap = vt_snapshot(test, t);

	current->fail_nth = 1;
	ret = vt_clip(t, vt_nth(t, 1), VT_ADDR(0x34), VT_SZ(4));
	fail_nth = current->fail_nth;
	current->fail_nth = 0;

	KUNIT_EXPECT_EQ_MSG(test, fail_nth, 0, "the split did not allocate");
	KUNIT_EXPECT_EQ(test, ret, -1);
	vt_unchanged(test, t, snap);
	vt_check(test, t);

	/* The same split succeeds once the allocation does. */
	KUNIT_EXPECT_EQ(test, vt_clip(t, vt_nth(t, 1), VT_ADDR(0x34), VT_SZ(4)), 0);
	vt_check(test, t);
	KUNIT_EXPECT_EQ(test, vt_count(t), 4);
#else
	kunit_skip(test, "needs CONFIG_FAILSLAB");
#endif
}

struct vt_va_alloc_case {
	const char *desc;
	unsigned long size;	/* pages */
	unsigned long align;	/* pages */
	unsigned long vstart;	/* pages */
	unsigned long vend;	/* pages */
	long want;		/* pages, -1: returns vend */
	struct vt_range rest[2];
	unsigned int nrest;
};

/* On the single block [0x30, 0x40). */
static const struct vt_va_alloc_case vt_va_alloc_cases[] = {
	{ "lowest address", 2, 1, 0, 0x100, 0x30, { { 0x32, 0x40 } }, 1 },
	{ "vstart inside the block", 2, 1, 0x35, 0x100, 0x35,
	  { { 0x30, 0x35 }, { 0x37, 0x40 } }, 2 },
	{ "aligned start", 2, 8, 0x31, 0x100, 0x38,
	  { { 0x30, 0x38 }, { 0x3a, 0x40 } }, 2 },
	{ "ends exactly at vend", 0x10, 1, 0, 0x40, 0x30, { }, 0 },
	{ "one page past vend", 0x10, 1, 0, 0x3f, -1, { { 0x30, 0x40 } }, 1 },
	{ "alignment pushes past vend", 2, 8, 0x31, 0x39, -1, { { 0x30, 0x40 } }, 1 },
};

KUNIT_ARRAY_PARAM_DESC(vt_va_alloc, vt_va_alloc_cases, desc);

static void vmalloc_va_alloc_test(struct kunit *test)
{
	const struct vt_va_alloc_case *c = test->param_value;
	struct vt_tree *t = vt_tree(test);
	struct vmap_area *saved;
	unsigned long addr;

	vt_free(test, t, VT_ADDR(0x30), VT_ADDR(0x40));
	saved = vt_preload_swap(NULL);
	addr = va_alloc(vt_nth(t, 0), &t->root, &t->head, VT_SZ(c->size),
			VT_SZ(c->align), VT_ADDR(c->vstart), VT_ADDR(c->vend));
	vt_preload_restore(saved);

	KUNIT_EXPECT_EQ(test, addr, c->want < 0 ? VT_ADDR(c->vend) : VT_ADDR(c->want));
	vt_check(test, t);
	vt_expect_blocks(test, t, c->rest, c->nrest);
}

/* ---------------------------------------------------------------------- */
/* 3. subtree_max_size propagation                                         */

/*
 * The example in the comment above augment_tree_propagate_from(): a root
 * of 4 pages with children of 2 and 8 pages.  Shrinking the root to 2
 * changes nothing above it, shrinking the left child to 1 updates it alone,
 * shrinking the right child to 6 updates it and the root.
 */
static void vmalloc_propagate_comment_example_test(struct kunit *test)
{
	static const struct vt_range r[] = {
		{ 0x20, 0x24 }, { 0x10, 0x12 }, { 0x30, 0x38 },
	};
	struct vt_tree *t = vt_tree(test);
	struct vmap_area *root, *left, *right;

	vt_build(test, t, r, ARRAY_SIZE(r));
	root = rb_entry(t->root.rb_node, struct vmap_area, rb_node);
	KUNIT_ASSERT_EQ(test, root->va_start, VT_ADDR(0x20));
	left = rb_entry(root->rb_node.rb_left, struct vmap_area, rb_node);
	right = rb_entry(root->rb_node.rb_right, struct vmap_area, rb_node);
	KUNIT_EXPECT_EQ(test, root->subtree_max_size, VT_SZ(8));
	KUNIT_EXPECT_EQ(test, left->subtree_max_size, VT_SZ(2));
	KUNIT_EXPECT_EQ(test, right->subtree_max_size, VT_SZ(8));

	/* Node 4 -> 2: no update needed anywhere. */
	KUNIT_ASSERT_EQ(test, vt_clip(t, root, VT_ADDR(0x20), VT_SZ(2)), 0);
	KUNIT_EXPECT_EQ(test, root->subtree_max_size, VT_SZ(8));
	vt_check(test, t);

	/* Node 2 -> 1: only that node. */
	KUNIT_ASSERT_EQ(test, vt_clip(t, left, VT_ADDR(0x11), VT_SZ(1)), 0);
	KUNIT_EXPECT_EQ(test, left->subtree_max_size, VT_SZ(1));
	KUNIT_EXPECT_EQ(test, root->subtree_max_size, VT_SZ(8));
	vt_check(test, t);

	/* Node 8 -> 6: that node and the root become 6. */
	KUNIT_ASSERT_EQ(test, vt_clip(t, right, VT_ADDR(0x36), VT_SZ(2)), 0);
	KUNIT_EXPECT_EQ(test, right->subtree_max_size, VT_SZ(6));
	KUNIT_EXPECT_EQ(test, root->subtree_max_size, VT_SZ(6));
	vt_check(test, t);
}

enum vt_order { VT_ASCENDING, VT_DESCENDING, VT_SHUFFLED };

struct vt_order_case {
	const char *desc;
	enum vt_order order;
};

static const struct vt_order_case vt_order_cases[] = {
	{ "ascending", VT_ASCENDING },
	{ "descending", VT_DESCENDING },
	{ "shuffled", VT_SHUFFLED },
};

KUNIT_ARRAY_PARAM_DESC(vt_order, vt_order_cases, desc);

#define VT_MANY 512

/*
 * Many inserts force recolouring and rotations; then shrink, grow by
 * merging, and remove every block, checking the whole tree each time.
 * Block i is pages [4i, 4i + 1 + i % 3) so sizes differ and no two touch.
 */
static void vmalloc_propagate_many_test(struct kunit *test)
{
	const struct vt_order_case *c = test->param_value;
	struct vt_tree *t = vt_tree(test);
	struct rnd_state rnd;
	unsigned int *order;
	unsigned int i, j;

	order = kunit_kcalloc(test, VT_MANY, sizeof(*order), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, order);
	for (i = 0; i < VT_MANY; i++)
		order[i] = c->order == VT_DESCENDING ? VT_MANY - 1 - i : i;
	prandom_seed_state(&rnd, vt_seed);
	if (c->order == VT_SHUFFLED)
		for (i = VT_MANY - 1; i > 0; i--) {
			j = prandom_u32_state(&rnd) % (i + 1);
			swap(order[i], order[j]);
		}

	for (i = 0; i < VT_MANY; i++) {
		j = order[i];
		vt_free(test, t, VT_ADDR(8 * j), VT_ADDR(8 * j + 1 + j % 3));
		if (!vt_check(test, t))
			return;
	}
	KUNIT_ASSERT_EQ(test, vt_count(t), VT_MANY);

	/* Shrink every block by one page where it has more than one. */
	for (i = 0; i < VT_MANY; i++) {
		j = order[i];
		if (j % 3 == 0)
			continue;
		KUNIT_ASSERT_EQ(test, vt_clip(t, vt_nth(t, j), VT_ADDR(8 * j + j % 3),
					      VT_SZ(1)), 0);
		if (!vt_check(test, t))
			return;
	}

	/* Grow every block by merging a page at its end. */
	for (i = 0; i < VT_MANY; i++) {
		j = order[i];
		vt_free(test, t, VT_ADDR(8 * j + 1 + j % 3 - !!(j % 3)),
			VT_ADDR(8 * j + 2 + j % 3 - !!(j % 3)));
		if (!vt_check(test, t))
			return;
	}
	KUNIT_ASSERT_EQ(test, vt_count(t), VT_MANY);

	/* Remove every block (FL clip), in the same order. */
	for (i = 0; i < VT_MANY; i++) {
		struct vmap_area *va;

		j = order[i];
		va = __find_vmap_area(VT_ADDR(8 * j), &t->root);
		KUNIT_ASSERT_NOT_NULL(test, va);
		KUNIT_ASSERT_EQ(test, vt_clip(t, va, va->va_start, va_size(va)), 0);
		if (!vt_check(test, t))
			return;
	}
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&t->root));
	KUNIT_EXPECT_TRUE(test, list_empty(&t->head));
}

/* ---------------------------------------------------------------------- */
/* 4. merge_or_add coalescing                                              */

struct vt_merge_case {
	const char *desc;
	struct vt_range fixture[3];
	unsigned int nfixture;
	struct vt_range freed;
	int merged_with;	/* index of the fixture block kept, -1: new node */
	struct vt_range want[4];
	unsigned int nwant;
};

static const struct vt_merge_case vt_merge_cases[] = {
	{ "previous only", { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3,
	  { 0x20, 0x28 }, 0, { { 0x10, 0x28 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3 },
	{ "next only", { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3,
	  { 0x28, 0x30 }, 1, { { 0x10, 0x20 }, { 0x28, 0x40 }, { 0x50, 0x60 } }, 3 },
	{ "both neighbours", { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3,
	  { 0x20, 0x30 }, 0, { { 0x10, 0x40 }, { 0x50, 0x60 } }, 2 },
	{ "neither", { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3,
	  { 0x24, 0x28 }, -1,
	  { { 0x10, 0x20 }, { 0x24, 0x28 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 4 },
	{ "new list head", { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3,
	  { 0x00, 0x08 }, -1,
	  { { 0x00, 0x08 }, { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 4 },
	{ "merges into the list head", { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3,
	  { 0x08, 0x10 }, 0, { { 0x08, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3 },
	{ "merges into the list tail", { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3,
	  { 0x60, 0x68 }, 2, { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x68 } }, 3 },
	{ "new list tail", { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3,
	  { 0x70, 0x78 }, -1,
	  { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 }, { 0x70, 0x78 } }, 4 },
	{ "both, at the tail", { { 0x10, 0x20 }, { 0x30, 0x40 }, { 0x50, 0x60 } }, 3,
	  { 0x40, 0x50 }, 1, { { 0x10, 0x20 }, { 0x30, 0x60 } }, 2 },
	{ "into an empty tree", { }, 0, { 0x10, 0x20 }, -1, { { 0x10, 0x20 } }, 1 },
	{ "both, two blocks become one", { { 0x10, 0x20 }, { 0x21, 0x30 } }, 2,
	  { 0x20, 0x21 }, 0, { { 0x10, 0x30 } }, 1 },
};

KUNIT_ARRAY_PARAM_DESC(vt_merge, vt_merge_cases, desc);

static void vmalloc_merge_test(struct kunit *test)
{
	const struct vt_merge_case *c = test->param_value;
	struct vt_tree *t = vt_tree(test);
	struct vmap_area *kept = NULL, *va;
	unsigned long before;

	vt_build(test, t, c->fixture, c->nfixture);
	KUNIT_ASSERT_TRUE(test, vt_check(test, t));
	if (c->merged_with >= 0)
		kept = vt_nth(t, c->merged_with);
	before = vt_free_size(t);

	va = vt_free(test, t, VT_ADDR(c->freed.start), VT_ADDR(c->freed.end));

	if (kept)
		KUNIT_EXPECT_PTR_EQ(test, va, kept);
	vt_check(test, t);
	vt_expect_blocks(test, t, c->want, c->nwant);
	KUNIT_EXPECT_EQ(test, vt_free_size(t),
			before + VT_SZ(c->freed.end - c->freed.start));
}

/*
 * Merging with both neighbours deep inside a large tree: the next node
 * must be unlinked before the previous one grows, or the rotations of the
 * erase leave a stale subtree_max_size above it.  Fill the gaps of a tree
 * of blocks with random sizes in random order, so that every free merges
 * on both sides, and check the whole tree after each.  The seeds are
 * fixed so that the case is deterministic.
 */
static const unsigned int vt_merge_seeds[] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static void vt_merge_seed_desc(const unsigned int *seed, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seed %u", *seed);
}

KUNIT_ARRAY_PARAM(vt_merge_seed, vt_merge_seeds, vt_merge_seed_desc);

static void vmalloc_merge_both_in_large_tree_test(struct kunit *test)
{
	const unsigned int *seed = test->param_value;
	struct vt_tree *t = vt_tree(test);
	unsigned long pg = 0, size, total;
	struct vmap_area *prev;
	struct rnd_state rnd;
	unsigned int i, n;

	prandom_seed_state(&rnd, *seed);
	for (i = 0; i < VT_MANY / 2; i++) {
		size = 1 + prandom_u32_state(&rnd) % 16;
		vt_free(test, t, VT_ADDR(pg), VT_ADDR(pg + size));
		pg += size + 1 + prandom_u32_state(&rnd) % 4;
	}
	KUNIT_ASSERT_TRUE(test, vt_check(test, t));
	total = vt_nth(t, VT_MANY / 2 - 1)->va_end;

	for (n = VT_MANY / 2; n > 1; n--) {
		i = prandom_u32_state(&rnd) % (n - 1);
		prev = vt_nth(t, i);
		vt_free(test, t, prev->va_end, list_next_entry(prev, list)->va_start);
		KUNIT_ASSERT_EQ(test, vt_count(t), n - 1);
		if (!vt_check(test, t))
			return;
	}
	KUNIT_EXPECT_EQ(test, vt_nth(t, 0)->va_start, VT_ADDR(0));
	KUNIT_EXPECT_EQ(test, vt_nth(t, 0)->va_end, total);
}

/* ---------------------------------------------------------------------- */
/* 5. Lowest-match search                                                  */

/* A fragmented tree: block sizes and gaps from a seeded generator. */
static unsigned long vt_build_fragmented(struct kunit *test, struct vt_tree *t,
					 struct rnd_state *rnd, unsigned int n)
{
	unsigned long pg = 1, size;
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* Mostly small blocks, some large ones. */
		size = 1 + prandom_u32_state(rnd) % 8;
		if (prandom_u32_state(rnd) % 16 == 0)
			size <<= 1 + prandom_u32_state(rnd) % 8;
		vt_free(test, t, VT_ADDR(pg), VT_ADDR(pg + size));
		pg += size + 1 + prandom_u32_state(rnd) % 4;
	}
	return pg;
}

struct vt_match_case {
	const char *desc;
	unsigned long size;	/* pages */
	unsigned long align;	/* pages */
	unsigned long vstart;	/* pages */
	long want;		/* index of the block, -1: NULL */
};

/* On [0x10, 0x11) [0x20, 0x24) [0x30, 0x38) [0x40, 0x50) [0x60, 0x61). */
static const struct vt_range vt_five[] = {
	{ 0x10, 0x11 }, { 0x20, 0x24 }, { 0x30, 0x38 }, { 0x40, 0x50 }, { 0x60, 0x61 },
};

static const struct vt_match_case vt_match_cases[] = {
	{ "one page: the first block", 1, 1, 0, 0 },
	{ "two pages: skips the one-page block", 2, 1, 0, 1 },
	{ "exactly the largest block", 0x10, 1, 0, 3 },
	{ "larger than any block", 0x11, 1, 0, -1 },
	{ "vstart inside a block", 1, 1, 0x22, 1 },
	{ "vstart leaves too little of a block", 4, 1, 0x21, 2 },
	{ "vstart in a gap", 1, 1, 0x25, 2 },
	{ "vstart at the last block", 1, 1, 0x60, 4 },
	{ "vstart past the last block", 1, 1, 0x61, -1 },
	{ "alignment skips the rest of a block", 2, 0x10, 0x22, 2 },
	{ "alignment inside a block", 2, 4, 0x31, 2 },
	{ "alignment larger than the space", 1, 0x1000, 0x11, -1 },
};

KUNIT_ARRAY_PARAM_DESC(vt_match, vt_match_cases, desc);

static void vmalloc_lowest_match_table_test(struct kunit *test)
{
	const struct vt_match_case *c = test->param_value;
	struct vt_tree *t = vt_tree(test);
	struct vmap_area *va;

	vt_build(test, t, vt_five, ARRAY_SIZE(vt_five));
	va = find_vmap_lowest_match(&t->root, VT_SZ(c->size), VT_SZ(c->align),
				    VT_ADDR(c->vstart), false);
	KUNIT_EXPECT_PTR_EQ(test, va, c->want < 0 ? NULL : vt_nth(t, c->want));
	KUNIT_EXPECT_PTR_EQ(test, va, vt_ref_lowest(t, VT_SZ(c->size), VT_SZ(c->align),
						    VT_ADDR(c->vstart), 0));
}

/* A size or an aligned start that wraps past ULONG_MAX fits nowhere. */
static void vmalloc_lowest_match_wrap_test(struct kunit *test)
{
	struct vt_tree *t = vt_tree(test);
	unsigned long size;
	struct vt_snap *snap;

	vt_build(test, t, vt_five, ARRAY_SIZE(vt_five));
	snap = vt_snapshot(test, t);

	/* From the first block, the end wraps to one page. */
	size = (ULONG_MAX - VT_ADDR(0x10)) + 1 + PAGE_SIZE;
	KUNIT_EXPECT_NULL(test, find_vmap_lowest_match(&t->root, size, PAGE_SIZE, 0, false));
	KUNIT_EXPECT_NULL(test, find_vmap_lowest_match(&t->root, ULONG_MAX & PAGE_MASK,
						       PAGE_SIZE, 0, false));
	KUNIT_EXPECT_EQ(test, vt_alloc(t, size, PAGE_SIZE, 0, ULONG_MAX), ULONG_MAX);
	/* vstart in the top page, aligned up past ULONG_MAX: it wraps to 0. */
	KUNIT_EXPECT_NULL(test, find_vmap_lowest_match(&t->root, PAGE_SIZE, 2 * PAGE_SIZE,
						       ULONG_MAX & PAGE_MASK, false));
	KUNIT_EXPECT_EQ(test, vt_alloc(t, PAGE_SIZE, 2 * PAGE_SIZE, ULONG_MAX & PAGE_MASK,
				       ULONG_MAX), ULONG_MAX);
	vt_unchanged(test, t, snap);
}

/*
 * Against the linear scan of the list, for sizes and alignments from one
 * page to large powers of two and vstart anywhere in (and around) the tree.
 */
static void vmalloc_lowest_match_linear_test(struct kunit *test)
{
	struct vt_tree *t = vt_tree(test);
	unsigned long end, size, align, vstart, checked = 0;
	struct vmap_area *va, *ref;
	struct rnd_state rnd;
	unsigned int s, a, v;

	prandom_seed_state(&rnd, vt_seed);
	end = vt_build_fragmented(test, t, &rnd, 300);
	KUNIT_ASSERT_TRUE(test, vt_check(test, t));

	for (s = 0; s <= 12; s++) {
		for (a = 0; a <= 10; a++) {
			for (v = 0; v < 40; v++) {
				size = VT_SZ(1UL << s) - (s && v % 2 ? VT_SZ(1) : 0);
				align = VT_SZ(1UL << a);
				vstart = v < 2 ? v * VT_BASE :
					 VT_ADDR(prandom_u32_state(&rnd) % (end + 8));
				va = find_vmap_lowest_match(&t->root, size, align,
							    vstart, false);
				ref = vt_ref_lowest(t, size, align, vstart, 0);
				if (va != ref) {
					KUNIT_FAIL(test,
						   "size %#lx align %#lx vstart %#lx: found %#lx, lowest fit %#lx",
						   size, align, vstart,
						   va ? va->va_start : 0,
						   ref ? ref->va_start : 0);
					return;
				}
				checked++;
			}
		}
	}
	kunit_info(test, "%lu searches matched the linear scan\n", checked);
}

/*
 * With adjust_search_size, subtrees are pruned by size + align - 1, the
 * worst-case alignment overhead.  The block found must still fit, must not
 * lie above the lowest block big enough for the worst case, and the search
 * never fails while such a block exists.
 */
static void vmalloc_lowest_match_adjusted_test(struct kunit *test)
{
	struct vt_tree *t = vt_tree(test);
	unsigned long end, size, align, vstart, length;
	struct vmap_area *va, *worst;
	struct rnd_state rnd;
	unsigned int s, a, v;

	prandom_seed_state(&rnd, vt_seed + 1);
	end = vt_build_fragmented(test, t, &rnd, 300);

	for (s = 0; s <= 8; s++) {
		for (a = 1; a <= 10; a++) {
			for (v = 0; v < 40; v++) {
				size = VT_SZ(1UL << s);
				align = VT_SZ(1UL << a);
				length = size + align - 1;
				vstart = v ? VT_ADDR(prandom_u32_state(&rnd) % end) : 0;
				va = find_vmap_lowest_match(&t->root, size, align,
							    vstart, true);
				worst = vt_ref_lowest(t, size, align, vstart, length);
				if (va && !vt_ref_fit(va, size, align, vstart)) {
					KUNIT_FAIL(test,
						   "size %#lx align %#lx vstart %#lx: block %#lx does not fit",
						   size, align, vstart, va->va_start);
					return;
				}
				if (worst && (!va || va->va_start > worst->va_start)) {
					KUNIT_FAIL(test,
						   "size %#lx align %#lx vstart %#lx: found %#lx, block %#lx fits the worst case",
						   size, align, vstart,
						   va ? va->va_start : 0, worst->va_start);
					return;
				}
			}
		}
	}
}

/* ---------------------------------------------------------------------- */
/* 6. Allocation end to end                                                */

static void vmalloc_alloc_lowest_first_test(struct kunit *test)
{
	struct vt_tree *t = vt_tree(test);
	unsigned long addr, i;

	vt_build(test, t, vt_five, ARRAY_SIZE(vt_five));

	/* One-page allocations fill the space from the lowest address up. */
	for (i = 0; i < 4; i++) {
		addr = vt_alloc(t, VT_SZ(1), PAGE_SIZE, 0, ULONG_MAX);
		KUNIT_EXPECT_EQ(test, addr, i ? VT_ADDR(0x1f + i) : VT_ADDR(0x10));
		vt_check(test, t);
	}
	/* Three pages no longer fit at 0x23: the next is at 0x30. */
	KUNIT_EXPECT_EQ(test, vt_alloc(t, VT_SZ(3), PAGE_SIZE, 0, ULONG_MAX),
			VT_ADDR(0x30));
	KUNIT_EXPECT_EQ(test, vt_alloc(t, VT_SZ(1), PAGE_SIZE, 0, ULONG_MAX),
			VT_ADDR(0x23));
	vt_check(test, t);
	vt_expect_blocks(test, t, (const struct vt_range []){
		{ 0x33, 0x38 }, { 0x40, 0x50 }, { 0x60, 0x61 } }, 3);
}

struct vt_alloc_case {
	const char *desc;
	unsigned long size;	/* pages */
	unsigned long align;	/* pages */
	unsigned long vstart;	/* pages */
	unsigned long vend;	/* pages */
	long want;		/* pages, -1: fails (returns vend) */
};

/* On vt_five. */
static const struct vt_alloc_case vt_alloc_cases[] = {
	{ "vstart skips lower blocks", 1, 1, 0x30, 0x100, 0x30 },
	{ "vstart inside a block", 2, 1, 0x34, 0x100, 0x34 },
	{ "vend exactly at the block end", 8, 1, 0x30, 0x38, 0x30 },
	{ "lowest fit lies past vend", 8, 1, 0, 0x37, -1 },
	{ "vend before any fit", 5, 1, 0, 0x30, -1 },
	{ "size over every block", 0x11, 1, 0, 0x100, -1 },
	{ "vstart past the last block", 1, 1, 0x61, 0x100, -1 },
	{ "aligned, adjusted search skips a block too small for the worst case",
	  2, 8, 0x21, 0x100, 0x40 },
	{ "aligned, adjusted search needs size + align - 1", 4, 16, 0x21, 0x100, -1 },
	{ "aligned, exact range", 4, 8, 0x20, 0x24, 0x20 },
	{ "aligned, exact range below the root's right child", 8, 8, 0x30, 0x38, 0x30 },
	{ "exact range too small", 8, 8, 0x20, 0x28, -1 },
};

KUNIT_ARRAY_PARAM_DESC(vt_alloc_tbl, vt_alloc_cases, desc);

static void vmalloc_alloc_test(struct kunit *test)
{
	const struct vt_alloc_case *c = test->param_value;
	struct vt_tree *t = vt_tree(test);
	unsigned long addr, before;
	struct vt_snap *snap;

	vt_build(test, t, vt_five, ARRAY_SIZE(vt_five));
	snap = vt_snapshot(test, t);
	before = vt_free_size(t);

	addr = vt_alloc(t, VT_SZ(c->size), VT_SZ(c->align), VT_ADDR(c->vstart),
			VT_ADDR(c->vend));
	vt_check(test, t);
	if (c->want < 0) {
		KUNIT_EXPECT_EQ(test, addr, VT_ADDR(c->vend));
		vt_unchanged(test, t, snap);
		return;
	}
	KUNIT_EXPECT_EQ(test, addr, VT_ADDR(c->want));
	KUNIT_EXPECT_EQ(test, vt_free_size(t), before - VT_SZ(c->size));
	/* The allocated range is no longer free. */
	KUNIT_EXPECT_NULL(test, __find_vmap_area(addr, &t->root));
	KUNIT_EXPECT_NULL(test, __find_vmap_area(addr + VT_SZ(c->size) - 1, &t->root));
}

/* ---------------------------------------------------------------------- */
/* 7. Randomized model test                                                */

#define VT_MODEL_PAGES	2048

struct vt_model {
	unsigned long *busy;	/* bit set: page allocated */
	unsigned long *start;	/* live allocations: first page ... */
	unsigned long *npages;	/* ... and size in pages */
	unsigned int nlive;
};

/* The free list equals the runs of clear bits of the model's bitmap. */
static bool vt_model_match(struct kunit *test, struct vt_tree *t,
			   struct vt_model *m)
{
	unsigned long pg = 0, end;
	struct vmap_area *va;

	list_for_each_entry(va, &t->head, list) {
		pg = find_next_zero_bit(m->busy, VT_MODEL_PAGES, pg);
		end = find_next_bit(m->busy, VT_MODEL_PAGES, pg);
		if (pg >= VT_MODEL_PAGES || va->va_start != VT_ADDR(pg) ||
		    va->va_end != VT_ADDR(end)) {
			KUNIT_FAIL(test, "free block pages [%#lx, %#lx), model says [%#lx, %#lx)",
				   VT_PG(va->va_start), VT_PG(va->va_end), pg, end);
			return false;
		}
		pg = end;
	}
	pg = find_next_zero_bit(m->busy, VT_MODEL_PAGES, pg);
	if (pg < VT_MODEL_PAGES) {
		KUNIT_FAIL(test, "page %#lx is free in the model but not in the tree", pg);
		return false;
	}
	return true;
}

/* What the linear reference expects of an allocation, taken before it. */
struct vt_expect {
	unsigned long want;	/* exact answer, without search adjustment */
	unsigned long worst;	/* lowest block fitting the worst case, or 0 */
};

static struct vt_expect vt_model_expect(struct vt_tree *t, unsigned long size,
					unsigned long align, unsigned long vstart,
					unsigned long vend, bool adjust)
{
	struct vt_expect e = { .want = vend };
	struct vmap_area *ref;

	ref = vt_ref_lowest(t, size, align, vstart, adjust ? size + align - 1 : 0);
	if (ref) {
		e.worst = ref->va_start;
		e.want = vt_ref_fit(ref, size, align, vstart);
		if (e.want > vend || size > vend - e.want)
			e.want = vend;
	}
	return e;
}

/*
 * Check one allocation against the model as it was before it.  Without
 * search adjustment the result must be exactly the linear-scan answer.
 * With it, the result must land at the lowest aligned address of a free
 * block, within [vstart, vend), and that block must lie no higher than the
 * lowest block fitting the worst-case alignment.
 */
static bool vt_model_check_alloc(struct kunit *test, struct vt_model *m,
				 const struct vt_expect *e, unsigned long addr,
				 unsigned long size, unsigned long align,
				 unsigned long vstart, unsigned long vend,
				 bool adjust)
{
	unsigned long pg, npg = size >> PAGE_SHIFT, block;
	struct vmap_area va;

	if (!adjust || addr == vend) {
		if (addr != e->want)
			KUNIT_FAIL(test,
				   "alloc %#lx align %#lx in [%#lx, %#lx): got %#lx, expected %#lx",
				   size, align, vstart, vend, addr, e->want);
		return addr == e->want;
	}
	pg = VT_PG(addr);
	if (addr < VT_BASE || pg + npg > VT_MODEL_PAGES ||
	    find_next_bit(m->busy, pg + npg, pg) < pg + npg) {
		KUNIT_FAIL(test, "alloc %#lx: %#lx is not free", size, addr);
		return false;
	}
	for (block = pg; block && !test_bit(block - 1, m->busy); block--)
		;
	va.va_start = VT_ADDR(block);
	va.va_end = VT_ADDR(find_next_bit(m->busy, VT_MODEL_PAGES, pg));
	if (vt_ref_fit(&va, size, align, vstart) != addr || size > vend - addr ||
	    (e->worst && va.va_start > e->worst)) {
		KUNIT_FAIL(test,
			   "alloc %#lx align %#lx in [%#lx, %#lx): got %#lx in [%#lx, %#lx), worst-case fit at %#lx",
			   size, align, vstart, vend, addr, va.va_start,
			   va.va_end, e->worst);
		return false;
	}
	return true;
}

static bool vt_model_alloc(struct kunit *test, struct vt_tree *t,
			   struct vt_model *m, struct rnd_state *rnd,
			   unsigned int *fails)
{
	unsigned long size, align, vstart, vend, addr;
	struct vt_expect e;
	bool adjust;

	size = VT_SZ(1 + prandom_u32_state(rnd) % 16);
	if (prandom_u32_state(rnd) % 8 == 0)
		size <<= prandom_u32_state(rnd) % 5;
	align = PAGE_SIZE;
	if (prandom_u32_state(rnd) % 4 == 0)
		align <<= prandom_u32_state(rnd) % 6;
	vstart = VT_ADDR(0);
	vend = VT_ADDR(VT_MODEL_PAGES);
	if (prandom_u32_state(rnd) % 4 == 0) {
		vstart = VT_ADDR(prandom_u32_state(rnd) % VT_MODEL_PAGES);
		vend = vstart + VT_SZ(prandom_u32_state(rnd) % (VT_MODEL_PAGES / 2) + 1);
	}
	/* As __alloc_vmap_area() decides. */
	adjust = !(align <= PAGE_SIZE || vend - vstart == size);

	e = vt_model_expect(t, size, align, vstart, vend, adjust);
	addr = vt_alloc(t, size, align, vstart, vend);
	if (!vt_model_check_alloc(test, m, &e, addr, size, align, vstart, vend, adjust))
		return false;
	if (addr == vend) {
		(*fails)++;
		return true;
	}
	m->start[m->nlive] = VT_PG(addr);
	m->npages[m->nlive] = size >> PAGE_SHIFT;
	bitmap_set(m->busy, m->start[m->nlive], m->npages[m->nlive]);
	m->nlive++;
	return true;
}

static void vt_model_free(struct kunit *test, struct vt_tree *t,
			  struct vt_model *m, unsigned int i)
{
	vt_free(test, t, VT_ADDR(m->start[i]), VT_ADDR(m->start[i] + m->npages[i]));
	bitmap_clear(m->busy, m->start[i], m->npages[i]);
	m->nlive--;
	m->start[i] = m->start[m->nlive];
	m->npages[i] = m->npages[m->nlive];
}

/*
 * Thousands of random allocations (sizes, alignments, [vstart, vend)
 * windows) and frees on a private tree, against a page bitmap.  After
 * every operation the tree must satisfy every invariant and hold exactly
 * the model's free runs.
 */
/* One run of the model test with @seed; false if it failed. */
static bool vt_model_run(struct kunit *test, struct vt_model *m,
			 unsigned long seed)
{
	struct vt_tree *t = vt_tree(test);
	unsigned int op, allocs = 0, fails = 0, frees = 0;
	struct rnd_state rnd;

	bitmap_zero(m->busy, VT_MODEL_PAGES);
	m->nlive = 0;
	prandom_seed_state(&rnd, seed);
	vt_free(test, t, VT_ADDR(0), VT_ADDR(VT_MODEL_PAGES));

	for (op = 0; op < vt_ops; op++) {
		if (m->nlive && prandom_u32_state(&rnd) % 100 < 45) {
			vt_model_free(test, t, m, prandom_u32_state(&rnd) % m->nlive);
			frees++;
		} else {
			if (!vt_model_alloc(test, t, m, &rnd, &fails)) {
				KUNIT_FAIL(test, "op %u, seed %lu", op, seed);
				return false;
			}
			allocs++;
		}
		if (!vt_check(test, t) || !vt_model_match(test, t, m)) {
			KUNIT_FAIL(test, "after op %u, seed %lu", op, seed);
			return false;
		}
	}

	/* Free everything: one block again. */
	while (m->nlive)
		vt_model_free(test, t, m, m->nlive - 1);
	if (!vt_check(test, t) ||
	    !vt_expect_blocks(test, t, &(struct vt_range){ 0, VT_MODEL_PAGES }, 1)) {
		KUNIT_FAIL(test, "after freeing everything, seed %lu", seed);
		return false;
	}
	kunit_info(test, "seed %lu: %u ops, %u allocations (%u failed), %u frees\n",
		   seed, vt_ops, allocs, fails, frees);
	return true;
}

static void vmalloc_random_model_test(struct kunit *test)
{
	unsigned long seed = vt_seed, end, runs = 0;
	struct vt_model m = { };

	m.busy = kunit_kcalloc(test, BITS_TO_LONGS(VT_MODEL_PAGES), sizeof(long), GFP_KERNEL);
	m.start = kunit_kcalloc(test, VT_MODEL_PAGES, sizeof(long), GFP_KERNEL);
	m.npages = kunit_kcalloc(test, VT_MODEL_PAGES, sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.busy);
	KUNIT_ASSERT_NOT_NULL(test, m.start);
	KUNIT_ASSERT_NOT_NULL(test, m.npages);

	if (!vt_model_run(test, &m, seed)) {
		if (vt_soak_secs)
			kunit_info(test, "soak: first failing seed %lu\n", seed);
		return;
	}
	if (!vt_soak_secs)
		return;

	/* Soak: the following seeds, until the time is up or one fails. */
	end = jiffies + vt_soak_secs * HZ;
	runs = 1;
	while (time_before(jiffies, end)) {
		vt_empty(vt_tree(test));
		seed++;
		runs++;
		if (!vt_model_run(test, &m, seed)) {
			kunit_info(test, "soak: first failing seed %lu\n", seed);
			return;
		}
		cond_resched();
	}
	kunit_info(test, "soak: %lu seeds passed, %lu..%lu, %u ops each\n",
		   runs, vt_seed, seed, vt_ops);
}

/* ---------------------------------------------------------------------- */
/* 8. Fault injection on the live allocator                                */

#if defined(CONFIG_FAULT_INJECTION_DEBUG_FS)
/* The live free-space tree and list, checked under their lock. */
static bool vt_live_check(struct kunit *test)
{
	char why[160];
	bool ok;

	spin_lock(&free_vmap_area_lock);
	/* The live space runs from 1 to ULONG_MAX: its ends are unaligned. */
	ok = vt_consistent(&free_vmap_area_root, &free_vmap_area_list, false,
			   why, sizeof(why));
	spin_unlock(&free_vmap_area_lock);
	if (!ok)
		KUNIT_FAIL(test, "live free-space tree: %s", why);
	return ok;
}

struct vt_inject {
	unsigned int points;	/* fail points one vmalloc() passed */
	unsigned int returned;	/* injected failures that made it return NULL */
	unsigned int absorbed;	/* injected failures it recovered from */
};

/*
 * Fail the nth fault-injection point of one vmalloc() call (__GFP_NOWARN:
 * no dumps), for every n until a call passes fewer than n points.  An
 * injected failure must make vmalloc() return NULL, unless it hit a path
 * with a fallback (the preload, for one) and the memory is fully usable;
 * either way the live tree must stay consistent.  Leaks are kmemleak's to
 * find (make hardened).
 */
static void vt_inject_sweep(struct kunit *test, unsigned long size,
			    struct vt_inject *r)
{
	unsigned int nth, left;
	void *p;

	memset(r, 0, sizeof(*r));
	for (nth = 1; nth < 256; nth++) {
		current->fail_nth = nth;
		p = __vmalloc(size, GFP_KERNEL | __GFP_NOWARN);
		left = current->fail_nth;
		current->fail_nth = 0;
		if (left) {		/* fewer than nth points: done */
			KUNIT_EXPECT_NOT_NULL(test, p);
			vfree(p);
			break;
		}
		r->points++;
		if (p) {
			memset(p, 0x5a, size);
			r->absorbed++;
		} else {
			r->returned++;
		}
		vfree(p);
		if (!vt_live_check(test))
			return;
	}
	KUNIT_EXPECT_LT(test, nth, 256);
}

/*
 * A fault-injection knob: a bool or u32 debugfs file under
 * /sys/kernel/debug.  debugfs refuses kernel_write(), so the value is set
 * where the file keeps it: debugfs_create_bool() and debugfs_create_u32()
 * store the variable's address in the inode's i_private.
 */
struct vt_knob {
	const char *path;
	bool is_bool;
	u32 on, off;
};

static int vt_fault_knob(struct vfsmount *mnt, const struct vt_knob *k,
			 bool on)
{
	u32 val = on ? k->on : k->off;
	struct file *f;
	void *data;

	f = file_open_root_mnt(mnt, k->path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	data = file_inode(f)->i_private;
	if (data && k->is_bool)
		WRITE_ONCE(*(bool *)data, val);
	else if (data)
		WRITE_ONCE(*(u32 *)data, val);
	fput(f);
	return data ? 0 : -ENOENT;
}

/*
 * Sweep vmalloc() with the debugfs @knobs set to "on" (by default
 * failslab and fail_page_alloc skip sleeping allocations, and
 * fail_page_alloc order-0 pages too), and set them back "off".
 */
static void vt_inject_with(struct kunit *test, const struct vt_knob *knobs,
			   unsigned int n, struct vt_inject *r)
{
	struct file_system_type *type = get_fs_type("debugfs");
	struct vfsmount *mnt;
	unsigned int i;
	int err = 0;

	KUNIT_ASSERT_NOT_NULL(test, type);
	mnt = kern_mount(type);
	put_filesystem(type);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	for (i = 0; i < n && !err; i++)
		err = vt_fault_knob(mnt, &knobs[i], true);
	if (!err)
		vt_inject_sweep(test, 5 * PAGE_SIZE, r);
	while (i--)
		vt_fault_knob(mnt, &knobs[i], false);
	kern_unmount(mnt);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "cannot set %s", knobs[n - 1].path);
}
#endif

static void vmalloc_inject_slab_test(struct kunit *test)
{
#if defined(CONFIG_FAILSLAB) && defined(CONFIG_FAULT_INJECTION_DEBUG_FS)
	static const struct vt_knob knobs[] = {
		{ "failslab/ignore-gfp-wait", true, false, true },
	};
	struct vt_inject r;

	vt_inject_with(test, knobs, ARRAY_SIZE(knobs), &r);
	KUNIT_EXPECT_GT(test, r.points, 0);
	kunit_info(test, "vmalloc(5 pages), failslab: %u fail points, %u failures returned NULL, %u absorbed\n",
		   r.points, r.returned, r.absorbed);
#else
	kunit_skip(test, "needs FAILSLAB, FAULT_INJECTION_DEBUG_FS (kunitconfigs/debug)");
#endif
}

static void vmalloc_inject_page_alloc_test(struct kunit *test)
{
#if defined(CONFIG_FAIL_PAGE_ALLOC) && defined(CONFIG_FAULT_INJECTION_DEBUG_FS)
	static const struct vt_knob knobs[] = {
		{ "fail_page_alloc/ignore-gfp-wait", true, false, true },
		{ "fail_page_alloc/min-order", false, 0, 1 },
	};
	struct vt_inject r;

	vt_inject_with(test, knobs, ARRAY_SIZE(knobs), &r);
	/* The pages come in one bulk allocation: few points, all fatal. */
	KUNIT_EXPECT_GT(test, r.points, 0);
	KUNIT_EXPECT_GT(test, r.returned, 0);
	kunit_info(test, "vmalloc(5 pages), fail_page_alloc: %u fail points, %u failures returned NULL, %u absorbed\n",
		   r.points, r.returned, r.absorbed);
#else
	kunit_skip(test, "needs FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS (kunitconfigs/debug)");
#endif
}

static struct kunit_case vmalloc_free_space_test_cases[] = {
	KUNIT_CASE_PARAM(vmalloc_fit_type_test, vt_fit_gen_params),
	KUNIT_CASE_PARAM(vmalloc_clip_test, vt_clip_gen_params),
	KUNIT_CASE(vmalloc_clip_ne_uses_preload_test),
	KUNIT_CASE(vmalloc_clip_ne_alloc_failure_test),
	KUNIT_CASE_PARAM(vmalloc_va_alloc_test, vt_va_alloc_gen_params),
	KUNIT_CASE(vmalloc_propagate_comment_example_test),
	KUNIT_CASE_PARAM(vmalloc_propagate_many_test, vt_order_gen_params),
	KUNIT_CASE_PARAM(vmalloc_merge_test, vt_merge_gen_params),
	KUNIT_CASE_PARAM(vmalloc_merge_both_in_large_tree_test, vt_merge_seed_gen_params),
	KUNIT_CASE_PARAM(vmalloc_lowest_match_table_test, vt_match_gen_params),
	KUNIT_CASE(vmalloc_lowest_match_wrap_test),
	KUNIT_CASE(vmalloc_lowest_match_linear_test),
	KUNIT_CASE(vmalloc_lowest_match_adjusted_test),
	KUNIT_CASE(vmalloc_alloc_lowest_first_test),
	KUNIT_CASE_PARAM(vmalloc_alloc_test, vt_alloc_tbl_gen_params),
	KUNIT_CASE_SLOW(vmalloc_random_model_test),
	KUNIT_CASE(vmalloc_inject_slab_test),
	KUNIT_CASE(vmalloc_inject_page_alloc_test),
	{}
};

static struct kunit_suite vmalloc_free_space_test_suite = {
	.name = "vmalloc_free_space",
	.suite_init = vt_suite_init,
	.init = vt_init,
	.exit = vt_exit,
	.test_cases = vmalloc_free_space_test_cases,
};

/* ---------------------------------------------------------------------- */
/* Benchmark (make bench): tree search against a linear scan               */

static const unsigned int vt_bench_sizes[] = { 100, 1000, 10000, 100000 };

static void vt_bench_desc(const unsigned int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "N=%u", *n);
}

KUNIT_ARRAY_PARAM(vt_bench, vt_bench_sizes, vt_bench_desc);

/*
 * @n free blocks: single pages one page apart, except that in the upper
 * half of the range one block in eight is four pages long.  A two-page
 * request fits only up there, so the linear scan walks half the list,
 * while the tree descends by subtree_max_size.
 */
static void vt_bench_build(struct kunit *test, struct vt_tree *t,
			   struct rnd_state *rnd, unsigned int n)
{
	unsigned long pg = 0, size;
	unsigned int i;

	for (i = 0; i < n; i++) {
		size = i >= n / 2 && prandom_u32_state(rnd) % 8 == 0 ? 4 : 1;
		vt_free(test, t, VT_ADDR(pg), VT_ADDR(pg + size));
		pg += size + 1;
	}
	/* And one at the very end, so that every request can be met. */
	vt_free(test, t, VT_ADDR(pg), VT_ADDR(pg + 4));
}

/* Repeat @op for at least 20 rounds and 50 ms; the mean in ns per round. */
#define vt_bench_time(op)						\
({									\
	u64 __t0 = ktime_get_ns(), __dt;				\
	unsigned long __n = 0;						\
									\
	do {								\
		op;							\
		__n++;							\
		__dt = ktime_get_ns() - __t0;				\
	} while (__n < 20 || __dt < 50 * NSEC_PER_MSEC);		\
	div64_u64(__dt, __n);						\
})

static struct vmap_area *vt_bench_find(struct vt_tree *t, unsigned long size,
				       unsigned long align, unsigned long vstart)
{
	return find_vmap_lowest_match(&t->root, size, align, vstart, false);
}

/* Allocate @size with __alloc_vmap_area() and free it; the address. */
static unsigned long vt_bench_tree_pair(struct kunit *test, struct vt_tree *t,
					unsigned long size, unsigned long align,
					unsigned long vstart)
{
	unsigned long addr = vt_alloc(t, size, align, vstart, ULONG_MAX);

	vt_free(test, t, addr, addr + size);
	return addr;
}

/* The same with the linear scan in place of the tree search. */
static unsigned long vt_bench_linear_pair(struct kunit *test, struct vt_tree *t,
					  unsigned long size, unsigned long align,
					  unsigned long vstart)
{
	struct vmap_area *va = vt_ref_lowest(t, size, align, vstart, 0);
	unsigned long addr = vt_ref_fit(va, size, align, vstart);

	vt_clip(t, va, addr, size);
	vt_free(test, t, addr, addr + size);
	return addr;
}

static void vmalloc_bench_test(struct kunit *test)
{
	const unsigned int n = *(const unsigned int *)test->param_value;
	unsigned long size = VT_SZ(2), align = PAGE_SIZE, vstart = VT_BASE;
	struct vt_tree *t = vt_tree(test);
	u64 tree_find, lin_find, tree_pair, lin_pair;
	struct vmap_area *va, *ref;
	unsigned long addr;
	struct rnd_state rnd;

	if (!vt_bench)
		kunit_skip(test, "benchmark: run with vmalloc.kunit_bench=1 (make bench)");

	prandom_seed_state(&rnd, 52);
	vt_bench_build(test, t, &rnd, n);
	KUNIT_ASSERT_TRUE(test, vt_check(test, t));

	/* Both find the same block: the figures compare like with like. */
	va = find_vmap_lowest_match(&t->root, size, align, vstart, false);
	ref = vt_ref_lowest(t, size, align, vstart, 0);
	KUNIT_ASSERT_NOT_NULL(test, va);
	KUNIT_ASSERT_PTR_EQ(test, va, ref);

	tree_find = vt_bench_time(va = vt_bench_find(t, size, align, vstart));
	lin_find = vt_bench_time(ref = vt_ref_lowest(t, size, align, vstart, 0));
	KUNIT_EXPECT_PTR_EQ(test, va, ref);

	/* Allocate two pages and free them again: the tree is as before. */
	tree_pair = vt_bench_time(addr = vt_bench_tree_pair(test, t, size,
							    align, vstart));
	KUNIT_EXPECT_EQ(test, addr, ref->va_start);
	lin_pair = vt_bench_time(addr = vt_bench_linear_pair(test, t, size,
							     align, vstart));
	KUNIT_EXPECT_EQ(test, addr, ref->va_start);
	KUNIT_EXPECT_TRUE(test, vt_check(test, t));

	/* One line per N for scripts/bench.sh. */
	kunit_info(test, "bench\t%u\t%llu\t%llu\t%llu\t%llu\n",
		   n, tree_find, lin_find, tree_pair, lin_pair);
}

static struct kunit_case vmalloc_bench_test_cases[] = {
	KUNIT_CASE_PARAM_ATTR(vmalloc_bench_test, vt_bench_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite vmalloc_bench_test_suite = {
	.name = "vmalloc_bench",
	.init = vt_init,
	.exit = vt_exit,
	.test_cases = vmalloc_bench_test_cases,
};

kunit_test_suites(&vmalloc_free_space_test_suite, &vmalloc_bench_test_suite);
