// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for vm_map_pages() and vm_map_pages_zero() (mm/memory.c),
 * the helpers an ->mmap handler uses to map an array of kernel pages into
 * the caller's VMA: vm_map_pages() maps the array from the VMA's
 * vm_pgoff, vm_map_pages_zero() from page 0 whatever vm_pgoff says, and
 * both fail with -ENXIO, mapping nothing, when the VMA asks for more than
 * the array holds past that offset.
 *
 * Each case maps an anon-inode file whose ->mmap calls the helper into
 * the test thread's own mm (kunit_vm_mmap()), then reads and writes the
 * mapping through copy_{from,to}_user() and counts the references each
 * page holds: one per mapping while mapped, back to the start after
 * munmap or a failed mmap.
 */

#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

/* The largest array a case maps. */
#define VMP_MAX_PAGES	8
/*
 * Pages allocated past the end of the array handed to the helper: a
 * helper that maps one page too many maps a guard page (whose references
 * are counted too) instead of dereferencing whatever follows the array.
 */
#define VMP_GUARD_PAGES	2

/* What the test's ->mmap handler maps, and what the helper returned. */
struct vmp_ctx {
	struct page *pages[VMP_MAX_PAGES + VMP_GUARD_PAGES];
	int start_refs[VMP_MAX_PAGES + VMP_GUARD_PAGES];
	unsigned long num;	/* pages handed to the helper */
	unsigned long allocated;	/* num and the guard pages */
	struct file *file;	/* its ->mmap maps the array */
	bool zero;		/* vm_map_pages_zero() instead of vm_map_pages() */
	int ret;		/* the helper's return value */
	int calls;		/* how often ->mmap ran */
};

/* The tag the kernel writes at the start of page @i of the array. */
static u64 vmp_tag(unsigned long i)
{
	return 0x766d70000000ULL + i;
}

static int vmp_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vmp_ctx *ctx = file->private_data;

	ctx->calls++;
	if (ctx->zero)
		ctx->ret = vm_map_pages_zero(vma, ctx->pages, ctx->num);
	else
		ctx->ret = vm_map_pages(vma, ctx->pages, ctx->num);
	return ctx->ret;
}

static const struct file_operations vmp_fops = {
	.owner = THIS_MODULE,
	.mmap = vmp_mmap,
};

static void vmp_free_page(void *page)
{
	__free_page(page);
}

static void vmp_fput(void *file)
{
	fput(file);
}

/*
 * An array of @num tagged pages and its guard pages, and a file whose
 * ->mmap maps the array with vm_map_pages() or, if @zero,
 * vm_map_pages_zero(); all freed when the test ends.
 */
static struct vmp_ctx *vmp_setup(struct kunit *test, unsigned long num, bool zero)
{
	struct vmp_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	unsigned long i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_LE(test, num, VMP_MAX_PAGES);
	ctx->num = num;
	ctx->zero = zero;
	ctx->allocated = num + VMP_GUARD_PAGES;
	for (i = 0; i < ctx->allocated; i++) {
		ctx->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, ctx->pages[i]);
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test, vmp_free_page, ctx->pages[i]));
		*(u64 *)page_address(ctx->pages[i]) = vmp_tag(i);
		ctx->start_refs[i] = page_ref_count(ctx->pages[i]);
	}
	ctx->file = anon_inode_getfile("kunit-vm-map-pages", &vmp_fops, ctx, O_RDWR);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->file));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, vmp_fput, ctx->file));
	return ctx;
}

/*
 * mmap @npages of @ctx's file at page offset @pgoff, shared, read-write:
 * the address, or an error as an IS_ERR_VALUE() address.
 */
static unsigned long vmp_map(struct kunit *test, struct vmp_ctx *ctx,
			     unsigned long npages, unsigned long pgoff)
{
	unsigned long addr = kunit_vm_mmap(test, ctx->file, 0, npages * PAGE_SIZE,
					   PROT_READ | PROT_WRITE, MAP_SHARED,
					   pgoff << PAGE_SHIFT);

	KUNIT_ASSERT_NE_MSG(test, addr, 0, "kunit_vm_mmap() could not map");
	return addr;
}

/* vmp_map() of @npages from page 0, which must succeed. */
static unsigned long vmp_map_ok(struct kunit *test, struct vmp_ctx *ctx,
				unsigned long npages)
{
	unsigned long addr = vmp_map(test, ctx, npages, 0);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(addr), "mmap: %ld", (long)addr);
	return addr;
}

/* The tag user space reads at the start of the page at @uaddr, or 0. */
static u64 vmp_user_tag(unsigned long uaddr)
{
	u64 tag;

	if (copy_from_user(&tag, (void __user *)uaddr, sizeof(tag)))
		return 0;
	return tag;
}

/* Page @i of the array holds @extra references more than at the start. */
static void vmp_expect_refs(struct kunit *test, struct vmp_ctx *ctx,
			    unsigned long i, int extra)
{
	KUNIT_EXPECT_EQ_MSG(test, page_ref_count(ctx->pages[i]),
			    ctx->start_refs[i] + extra, "page %lu", i);
}

/* Every page, guard pages too, holds the references it started with. */
static void vmp_expect_no_refs(struct kunit *test, struct vmp_ctx *ctx)
{
	unsigned long i;

	for (i = 0; i < ctx->allocated; i++)
		vmp_expect_refs(test, ctx, i, 0);
}

struct vmp_case {
	const char *desc;
	unsigned long num;	/* pages in the array */
	unsigned long npages;	/* pages in the VMA */
	unsigned long pgoff;	/* the VMA's vm_pgoff */
	bool zero;
	int err;		/* 0: mapped, from page "first" of the array */
	unsigned long first;
};

static const struct vmp_case vmp_cases[] = {
	{ "whole array", 4, 4, 0, false, 0, 0 },
	{ "from pgoff 1 to the end", 4, 3, 1, false, 0, 1 },
	{ "the last page alone", 4, 1, 3, false, 0, 3 },
	{ "a VMA shorter than the rest", 4, 2, 1, false, 0, 1 },
	{ "one page of a one-page array", 1, 1, 0, false, 0, 0 },
	{ "one page more than the array", 4, 5, 0, false, -ENXIO, 0 },
	{ "one page more than the rest", 4, 4, 1, false, -ENXIO, 0 },
	{ "pgoff at the end of the array", 4, 1, 4, false, -ENXIO, 0 },
	{ "pgoff past the end of the array", 4, 1, 5, false, -ENXIO, 0 },
	{ "zero: whole array", 4, 4, 0, true, 0, 0 },
	{ "zero: pgoff 2 is ignored", 4, 4, 2, true, 0, 0 },
	{ "zero: pgoff past the end is ignored", 4, 2, 9, true, 0, 0 },
	{ "zero: one page more than the array", 4, 5, 0, true, -ENXIO, 0 },
	{ "zero: one page more, pgoff ignored", 4, 5, 3, true, -ENXIO, 0 },
};

static void vmp_case_desc(const struct vmp_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s: %lu of %lu pages at pgoff %lu",
		 c->desc, c->npages, c->num, c->pgoff);
}

KUNIT_ARRAY_PARAM(vmp, vmp_cases, vmp_case_desc);

/*
 * The VMA shows the array's pages in order from the offset the helper
 * uses, each mapped once, and munmap gives every reference back; or the
 * mmap fails with the helper's errno and takes no reference.
 */
static void vm_map_pages_test(struct kunit *test)
{
	const struct vmp_case *c = test->param_value;
	struct vmp_ctx *ctx = vmp_setup(test, c->num, c->zero);
	unsigned long addr = vmp_map(test, ctx, c->npages, c->pgoff), i;

	KUNIT_EXPECT_EQ(test, ctx->calls, 1);
	KUNIT_EXPECT_EQ(test, ctx->ret, c->err);
	if (c->err) {
		KUNIT_EXPECT_TRUE(test, IS_ERR_VALUE(addr));
		KUNIT_EXPECT_EQ(test, (long)addr, (long)c->err);
		vmp_expect_no_refs(test, ctx);
		return;
	}
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(addr), "mmap: %ld", (long)addr);
	for (i = 0; i < ctx->allocated; i++) {
		bool mapped = i >= c->first && i < c->first + c->npages;

		vmp_expect_refs(test, ctx, i, mapped);
	}
	for (i = 0; i < c->npages; i++)
		KUNIT_EXPECT_EQ_MSG(test, vmp_user_tag(addr + i * PAGE_SIZE),
				    vmp_tag(c->first + i), "VMA page %lu", i);
	KUNIT_EXPECT_EQ(test, vm_munmap(addr, c->npages * PAGE_SIZE), 0);
	vmp_expect_no_refs(test, ctx);
	KUNIT_EXPECT_EQ(test, vmp_user_tag(addr), 0);
}

/* User writes reach the kernel's pages and kernel writes reach user space. */
static void vm_map_pages_shared_test(struct kunit *test)
{
	const u64 user = 0x75736572ULL, kernel = 0x6b65726eULL;
	struct vmp_ctx *ctx = vmp_setup(test, 3, false);
	unsigned long addr = vmp_map_ok(test, ctx, 3), i;
	u64 *kaddr;

	for (i = 0; i < 3; i++) {
		unsigned long uaddr = addr + i * PAGE_SIZE;
		/* The last word of the page: the whole page is shared. */
		void __user *ulast = (void __user *)(uaddr + PAGE_SIZE - sizeof(u64));
		u64 last = user + i;

		kaddr = page_address(ctx->pages[i]);
		KUNIT_EXPECT_EQ(test, copy_to_user(ulast, &last, sizeof(last)), 0);
		KUNIT_EXPECT_EQ(test, kaddr[PAGE_SIZE / sizeof(u64) - 1], user + i);
		WRITE_ONCE(kaddr[0], kernel + i);
		KUNIT_EXPECT_EQ(test, vmp_user_tag(uaddr), kernel + i);
	}
	KUNIT_EXPECT_EQ(test, vm_munmap(addr, 3 * PAGE_SIZE), 0);
	vmp_expect_no_refs(test, ctx);
}

/*
 * munmap of the middle of the mapping gives back those pages' references
 * only; the pages around it stay mapped and readable.
 */
static void vm_map_pages_partial_munmap_test(struct kunit *test)
{
	struct vmp_ctx *ctx = vmp_setup(test, 4, false);
	unsigned long addr = vmp_map_ok(test, ctx, 4);

	KUNIT_EXPECT_EQ(test, vm_munmap(addr + PAGE_SIZE, 2 * PAGE_SIZE), 0);
	vmp_expect_refs(test, ctx, 0, 1);
	vmp_expect_refs(test, ctx, 1, 0);
	vmp_expect_refs(test, ctx, 2, 0);
	vmp_expect_refs(test, ctx, 3, 1);
	KUNIT_EXPECT_EQ(test, vmp_user_tag(addr), vmp_tag(0));
	KUNIT_EXPECT_EQ(test, vmp_user_tag(addr + PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, vmp_user_tag(addr + 2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, vmp_user_tag(addr + 3 * PAGE_SIZE), vmp_tag(3));
	KUNIT_EXPECT_EQ(test, vm_munmap(addr, 4 * PAGE_SIZE), 0);
	vmp_expect_no_refs(test, ctx);
}

/*
 * A page vm_insert_page() refuses (a slab page) in the middle of the
 * array: the helper fails with -EINVAL after mapping the pages before
 * it, and the failed mmap leaves none of them mapped.
 */
static void vm_map_pages_bad_page_test(struct kunit *test)
{
	struct vmp_ctx *ctx = vmp_setup(test, 3, false);
	void *slab = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned long addr;

	KUNIT_ASSERT_NOT_NULL(test, slab);
	KUNIT_ASSERT_TRUE(test, PageSlab(virt_to_page(slab)));
	ctx->pages[2] = virt_to_page(slab);
	addr = vmp_map(test, ctx, 3, 0);
	KUNIT_EXPECT_EQ(test, ctx->ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, (long)addr, -EINVAL);
	vmp_expect_refs(test, ctx, 0, 0);
	vmp_expect_refs(test, ctx, 1, 0);
}

static struct kunit_case vm_map_pages_test_cases[] = {
	KUNIT_CASE_PARAM(vm_map_pages_test, vmp_gen_params),
	KUNIT_CASE(vm_map_pages_shared_test),
	KUNIT_CASE(vm_map_pages_partial_munmap_test),
	KUNIT_CASE(vm_map_pages_bad_page_test),
	{}
};

static struct kunit_suite vm_map_pages_test_suite = {
	.name = "vm_map_pages",
	.test_cases = vm_map_pages_test_cases,
};

kunit_test_suite(vm_map_pages_test_suite);

MODULE_DESCRIPTION("KUnit tests for vm_map_pages() and vm_map_pages_zero()");
MODULE_LICENSE("GPL");
