// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for dm-dust's bad-block list, its read/write decisions and
 * its message and table-line parsing.
 *
 * Included at the end of drivers/md/dm-dust.c.  The tests build a
 * dust_device and a dm_target by hand, with no underlying block device,
 * so they cover everything up to dm_get_device(); creating a real device
 * with dmsetup is left to the full-system test.  The contract is
 * Documentation/admin-guide/device-mapper/dm-dust.rst.
 */

#include <kunit/test.h>
#include <linux/kmsg_dump.h>

/* A 64 MiB target, as "0 131072 dust <dev> 0 <blksz>". */
#define DT_LEN_SECTORS	131072ULL

struct dt_fixture {
	struct dm_target ti;
	struct dm_dev dev;
	struct dust_device *dd;
	char result[512];
};

static void dt_clear(void *arg)
{
	struct dust_device *dd = arg;

	__dust_clear_badblocks(&dd->badblocklist, dd->badblock_count);
}

/* A dust device as dust_ctr() would set it up, minus the block device. */
static struct dt_fixture *dt_setup(struct kunit *test, unsigned int blksz,
				   sector_t len)
{
	struct dt_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct dust_device *dd;

	KUNIT_ASSERT_NOT_NULL(test, f);
	dd = kunit_kzalloc(test, sizeof(*dd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dd);
	strscpy(f->dev.name, "254:0", sizeof(f->dev.name));
	dd->dev = &f->dev;
	dd->blksz = blksz;
	dd->sect_per_block = blksz >> SECTOR_SHIFT;
	dd->sect_per_block_shift = __ffs(dd->sect_per_block);
	dd->badblocklist = RB_ROOT;
	spin_lock_init(&dd->dust_lock);
	f->ti.len = len;
	f->ti.private = dd;
	f->dd = dd;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dt_clear, dd), 0);
	return f;
}

/*
 * Send a message as "dmsetup message" would: split @msg at spaces.
 * Returns dust_message()'s result; the text is left in f->result.
 */
static int dt_msg(struct dt_fixture *f, const char *msg)
{
	char buf[128], *argv[8], *p = buf, *tok;
	unsigned int argc = 0;

	strscpy(buf, msg, sizeof(buf));
	while ((tok = strsep(&p, " ")) && argc < ARRAY_SIZE(argv))
		if (*tok)
			argv[argc++] = tok;
	memset(f->result, 0, sizeof(f->result));
	return dust_message(&f->ti, argc, argv, f->result, sizeof(f->result));
}

/* dt_msg() with a printf format. */
static __printf(2, 3) int dt_msgf(struct dt_fixture *f, const char *fmt, ...)
{
	char msg[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return dt_msg(f, msg);
}

/* The bad-block list, as listbadblocks prints it. */
static const char *dt_list(struct dt_fixture *f)
{
	dt_msg(f, "listbadblocks");
	return f->result;
}

static unsigned long long dt_count(struct dt_fixture *f)
{
	return f->dd->badblock_count;
}

/* The kernel log since dt_log_start(), read back from the printk buffer. */
static u64 dt_log_seq;

static void dt_log_start(void)
{
	struct kmsg_dump_iter iter;

	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, false, NULL, 0, NULL))
		;
	dt_log_seq = iter.cur_seq;
}

static bool dt_log_has(const char *needle)
{
	struct kmsg_dump_iter iter = { .cur_seq = dt_log_seq };
	char line[256];
	size_t len;

	while (kmsg_dump_get_line(&iter, false, line, sizeof(line) - 1, &len)) {
		line[len] = '\0';
		if (strstr(line, needle))
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------------- */
/* The bad-block list                                                      */

static void dust_add_remove_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);

	KUNIT_EXPECT_EQ(test, dust_add_block(f->dd, 60, 0), 0);
	KUNIT_EXPECT_EQ(test, dust_add_block(f->dd, 67, 0), 0);
	KUNIT_EXPECT_EQ(test, dust_add_block(f->dd, 72, 3), 0);
	KUNIT_EXPECT_EQ(test, dt_count(f), 3);

	/* Twice: -EINVAL, nothing changes. */
	KUNIT_EXPECT_EQ(test, dust_add_block(f->dd, 67, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, dt_count(f), 3);
	KUNIT_EXPECT_EQ(test, dust_rb_search(&f->dd->badblocklist, 67)->wr_fail_cnt, 0);

	KUNIT_EXPECT_EQ(test, dust_remove_block(f->dd, 67), 0);
	KUNIT_EXPECT_EQ(test, dt_count(f), 2);
	KUNIT_EXPECT_NULL(test, dust_rb_search(&f->dd->badblocklist, 67));

	/* Not in the list: -EINVAL, nothing changes. */
	KUNIT_EXPECT_EQ(test, dust_remove_block(f->dd, 67), -EINVAL);
	KUNIT_EXPECT_EQ(test, dust_remove_block(f->dd, 61), -EINVAL);
	KUNIT_EXPECT_EQ(test, dt_count(f), 2);
	KUNIT_EXPECT_STREQ(test, dt_list(f), "60\n72\n");
}

static void dust_query_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);

	KUNIT_EXPECT_EQ(test, dt_msg(f, "addbadblock 72"), 0);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "queryblock 72"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "dust_query_block: block 72 found in badblocklist");
	KUNIT_EXPECT_EQ(test, dt_msg(f, "queryblock 71"), 1);
	KUNIT_EXPECT_STREQ(test, f->result,
			   "dust_query_block: block 71 not found in badblocklist");
	/* Queries work whether failures are enabled or not. */
	KUNIT_EXPECT_EQ(test, dt_msg(f, "enable"), 0);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "queryblock 72"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "dust_query_block: block 72 found in badblocklist");
}

static void dust_count_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);
	unsigned int i;

	KUNIT_EXPECT_EQ(test, dt_msg(f, "countbadblocks"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "countbadblocks: 0 badblock(s) found");
	for (i = 0; i < 895; i++)
		KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 2 * i, 0), 0);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "countbadblocks"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "countbadblocks: 895 badblock(s) found");
}

/* The list is printed in ascending block order, one block a line. */
static void dust_list_order_test(struct kunit *test)
{
	static const unsigned long long blocks[] = { 88, 1, 131071, 2, 60, 0 };
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(blocks); i++)
		KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, blocks[i], 0), 0);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "listbadblocks"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "0\n1\n2\n60\n88\n131071\n");
}

static void dust_list_empty_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);

	KUNIT_EXPECT_EQ(test, dt_msg(f, "listbadblocks"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "No blocks in badblocklist");
}

static void dust_clear_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);

	KUNIT_EXPECT_EQ(test, dt_msg(f, "clearbadblocks"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "dust_clear_badblocks: no badblocks found");

	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 2, 7), 0);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "clearbadblocks"), 1);
	KUNIT_EXPECT_STREQ(test, f->result, "dust_clear_badblocks: badblocks cleared");
	KUNIT_EXPECT_EQ(test, dt_count(f), 0);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&f->dd->badblocklist));

	/* Cleared blocks can be added again. */
	KUNIT_EXPECT_EQ(test, dust_add_block(f->dd, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, dt_count(f), 1);
}

/* wr_fail_cnt takes every value from 0 to 255, and nothing above. */
static void dust_wr_fail_cnt_range_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);
	char msg[64];
	unsigned int n;

	for (n = 0; n <= 255; n++) {
		snprintf(msg, sizeof(msg), "addbadblock %u %u", n, n);
		KUNIT_ASSERT_EQ_MSG(test, dt_msg(f, msg), 0, "%s", msg);
		KUNIT_ASSERT_EQ(test, dust_rb_search(&f->dd->badblocklist, n)->wr_fail_cnt, n);
	}
	KUNIT_EXPECT_EQ(test, dt_msg(f, "addbadblock 300 256"), -EINVAL);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "addbadblock 300 4294967296"), -EINVAL);
	KUNIT_EXPECT_NULL(test, dust_rb_search(&f->dd->badblocklist, 300));
	KUNIT_EXPECT_EQ(test, dt_count(f), 256);
}

/* ---------------------------------------------------------------------- */
/* Read and write decisions                                                */

static void dust_read_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);

	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 67, 0), 0);

	/* Disabled ("bypass"): every read goes through. */
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, 67, f->dd->fail_read_on_bb),
			DM_MAPIO_REMAPPED);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "enable"), 0);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, 67, f->dd->fail_read_on_bb), DM_MAPIO_KILL);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, 66, f->dd->fail_read_on_bb),
			DM_MAPIO_REMAPPED);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, 68, f->dd->fail_read_on_bb),
			DM_MAPIO_REMAPPED);
	/* A failed read does not remove the block. */
	KUNIT_EXPECT_EQ(test, dt_count(f), 1);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "disable"), 0);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, 67, f->dd->fail_read_on_bb),
			DM_MAPIO_REMAPPED);
}

struct dt_wr_case {
	const char *desc;
	unsigned int wr_fail_cnt;
};

static const struct dt_wr_case dt_wr_cases[] = {
	{ "wr_fail_cnt 0", 0 }, { "wr_fail_cnt 1", 1 }, { "wr_fail_cnt 2", 2 },
	{ "wr_fail_cnt 255", 255 },
};

KUNIT_ARRAY_PARAM_DESC(dt_wr, dt_wr_cases, desc);

/* A write to a bad block fails wr_fail_cnt times, then succeeds and heals it. */
static void dust_write_test(struct kunit *test)
{
	const struct dt_wr_case *c = test->param_value;
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);
	unsigned int i;

	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 72, c->wr_fail_cnt), 0);
	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 90, 0), 0);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "enable"), 0);

	for (i = 0; i < c->wr_fail_cnt; i++) {
		KUNIT_ASSERT_EQ_MSG(test, dust_map_write(f->dd, 72, true), DM_MAPIO_KILL,
				    "write %u of %u", i + 1, c->wr_fail_cnt);
		KUNIT_ASSERT_EQ(test, dt_count(f), 2);
	}
	KUNIT_EXPECT_EQ(test, dust_map_write(f->dd, 72, true), DM_MAPIO_REMAPPED);
	KUNIT_EXPECT_EQ(test, dt_count(f), 1);
	KUNIT_EXPECT_NULL(test, dust_rb_search(&f->dd->badblocklist, 72));
	/* Healed: reads go through now. */
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, 72, true), DM_MAPIO_REMAPPED);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, 90, true), DM_MAPIO_KILL);
}

/* With failures disabled, writes neither fail nor heal. */
static void dust_write_disabled_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);

	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 72, 2), 0);
	KUNIT_EXPECT_EQ(test, dust_map_write(f->dd, 72, false), DM_MAPIO_REMAPPED);
	KUNIT_EXPECT_EQ(test, dt_count(f), 1);
	KUNIT_EXPECT_EQ(test, dust_rb_search(&f->dd->badblocklist, 72)->wr_fail_cnt, 2);
}

struct dt_blksz_case {
	char desc[32];
	unsigned int blksz;
};

static struct dt_blksz_case dt_blksz_cases[22];

static const void *dt_blksz_gen_params(const void *prev, char *desc)
{
	const struct dt_blksz_case *c = prev;
	unsigned int i;

	if (!prev) {
		for (i = 0; i < ARRAY_SIZE(dt_blksz_cases); i++) {
			dt_blksz_cases[i].blksz = 512U << i;
			snprintf(dt_blksz_cases[i].desc, sizeof(dt_blksz_cases[i].desc),
				 "blksz %u", dt_blksz_cases[i].blksz);
		}
		c = dt_blksz_cases;
	} else if (++c == dt_blksz_cases + ARRAY_SIZE(dt_blksz_cases)) {
		return NULL;
	}
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
	return c;
}

/*
 * Sector to block arithmetic for every legal block size, 512 bytes to
 * 1 GiB: every sector of a bad block fails, including one in the middle
 * of the block, and the sectors just outside it do not.
 */
static void dust_block_size_test(struct kunit *test)
{
	const struct dt_blksz_case *c = test->param_value;
	struct dt_fixture *f = dt_setup(test, c->blksz, 64ULL << 21);
	sector_t spb = c->blksz >> SECTOR_SHIFT, first = 3 * spb;

	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 3, 0), 0);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, first, true), DM_MAPIO_KILL);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, first + spb / 2, true), DM_MAPIO_KILL);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, first + spb - 1, true), DM_MAPIO_KILL);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, first - 1, true), DM_MAPIO_REMAPPED);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, first + spb, true), DM_MAPIO_REMAPPED);
	/* A write starting mid-block heals the whole block. */
	KUNIT_EXPECT_EQ(test, dust_map_write(f->dd, first + spb / 2, true), DM_MAPIO_REMAPPED);
	KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, first, true), DM_MAPIO_REMAPPED);
	KUNIT_EXPECT_EQ(test, dt_count(f), 0);
}

/*
 * dust_ctr() accepts any target length of at least one block, so a target
 * may end in a partial block, and I/O reaches it: with 4096-byte blocks
 * and a length of 4.5 blocks, sectors 32-35 are block 4.  For every block
 * size, the first block, the last full block and the partial block are
 * valid in every message, fail reads from their first to their last
 * sector, are healed by a write and are listed; the block after the
 * partial one is refused.  With 512-byte blocks every length is a whole
 * number of blocks: the same checks then cover the last block.
 */
static void dust_partial_block_test(struct kunit *test)
{
	const struct dt_blksz_case *c = test->param_value;
	sector_t spb = c->blksz >> SECTOR_SHIFT, len = 4 * spb + spb / 2;
	struct dt_fixture *f = dt_setup(test, c->blksz, len);
	unsigned long long nr = DIV_ROUND_UP_ULL(len, spb);
	unsigned long long full = len >> f->dd->sect_per_block_shift;
	/* The first, the last full and the partial block (if there is one). */
	const unsigned long long blocks[] = { 0, full - 1, nr - 1 };
	unsigned int i, n = nr > full ? 3 : 2;
	char list[64];

	KUNIT_ASSERT_EQ(test, nr, spb > 1 ? 5ULL : 4ULL);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "enable"), 0);
	for (i = 0; i < n; i++) {
		unsigned long long b = blocks[i];
		sector_t first = b * spb, last = min_t(sector_t, first + spb, len) - 1;

		KUNIT_EXPECT_EQ_MSG(test, dt_msgf(f, "addbadblock %llu", b), 0, "block %llu", b);
		KUNIT_EXPECT_EQ_MSG(test, dt_msgf(f, "queryblock %llu", b), 1, "block %llu", b);
		KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, first, true), DM_MAPIO_KILL);
		KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, last, true), DM_MAPIO_KILL);
		KUNIT_EXPECT_EQ_MSG(test, dt_msgf(f, "removebadblock %llu", b), 0, "block %llu", b);
		KUNIT_EXPECT_EQ_MSG(test, dt_msgf(f, "addbadblock %llu 1", b), 0, "block %llu", b);
		KUNIT_EXPECT_EQ(test, dust_map_write(f->dd, last, true), DM_MAPIO_KILL);
		KUNIT_EXPECT_EQ(test, dust_map_write(f->dd, last, true), DM_MAPIO_REMAPPED);
		KUNIT_EXPECT_EQ(test, dust_map_read(f->dd, first, true), DM_MAPIO_REMAPPED);
		KUNIT_EXPECT_EQ_MSG(test, dt_msgf(f, "addbadblock %llu", b), 0, "block %llu", b);
	}
	if (n == 3)
		snprintf(list, sizeof(list), "0\n%llu\n%llu\n", blocks[1], blocks[2]);
	else
		snprintf(list, sizeof(list), "0\n%llu\n", blocks[1]);
	KUNIT_EXPECT_STREQ(test, dt_list(f), list);

	/* Past the partial block: refused by every message, nothing changes. */
	KUNIT_EXPECT_EQ(test, dt_msgf(f, "addbadblock %llu", nr), -EINVAL);
	KUNIT_EXPECT_EQ(test, dt_msgf(f, "addbadblock %llu 1", nr), -EINVAL);
	KUNIT_EXPECT_EQ(test, dt_msgf(f, "queryblock %llu", nr), -EINVAL);
	KUNIT_EXPECT_EQ(test, dt_msgf(f, "removebadblock %llu", nr), -EINVAL);
	KUNIT_EXPECT_STREQ(test, dt_list(f), list);
}

/* ---------------------------------------------------------------------- */
/* The bio path                                                            */

struct dt_bio_case {
	const char *desc;
	blk_opf_t opf;
	sector_t sector;
	unsigned int bytes;		/* 0: an empty bio */
	unsigned int cnt_before;	/* block 0's write failure count */
	int ret;			/* what dust_map() returns */
	bool listed;			/* block 0 is still a bad block */
	unsigned int cnt_after;
};

/*
 * A target with 4096-byte blocks, read failures enabled and bad blocks 0
 * and 1.  dm sends flushes to the target as empty REQ_PREFLUSH bios with
 * sector 0: they write no block, whatever block 0's write failure count.
 * Data writes, with or without REQ_PREFLUSH or REQ_FUA, still write their
 * block, and reads still fail.
 */
static const struct dt_bio_case dt_bio_cases[] = {
	{ "empty flush", REQ_OP_WRITE | REQ_PREFLUSH, 0, 0, 0,
	  DM_MAPIO_REMAPPED, true, 0 },
	{ "empty flush, write failure count 2", REQ_OP_WRITE | REQ_PREFLUSH, 0, 0, 2,
	  DM_MAPIO_REMAPPED, true, 2 },
	{ "write of block 0 with REQ_PREFLUSH", REQ_OP_WRITE | REQ_PREFLUSH, 0, 4096, 0,
	  DM_MAPIO_REMAPPED, false, 0 },
	{ "write in block 0 with REQ_FUA", REQ_OP_WRITE | REQ_FUA, 3, 512, 0,
	  DM_MAPIO_REMAPPED, false, 0 },
	{ "write of block 0, write failure count 2", REQ_OP_WRITE, 0, 4096, 2,
	  DM_MAPIO_KILL, true, 1 },
	{ "read in block 0", REQ_OP_READ, 7, 512, 0, DM_MAPIO_KILL, true, 0 },
	{ "read of block 2", REQ_OP_READ, 16, 4096, 0, DM_MAPIO_REMAPPED, true, 0 },
};

KUNIT_ARRAY_PARAM_DESC(dt_bio, dt_bio_cases, desc);

static void dust_bio_test(struct kunit *test)
{
	const struct dt_bio_case *c = test->param_value;
	struct dt_fixture *f = dt_setup(test, 4096, DT_LEN_SECTORS);
	struct badblock *bb;
	struct bio bio;

	/* The fixture has no block device; bio_set_dev() then needs no blkg. */
	if (IS_ENABLED(CONFIG_BLK_CGROUP))
		kunit_skip(test, "bio_set_dev() needs a real block device with CONFIG_BLK_CGROUP");
	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 0, c->cnt_before), 0);
	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, dt_msg(f, "enable"), 0);

	bio_init(&bio, NULL, NULL, 0, c->opf);
	bio.bi_iter.bi_sector = c->sector;
	bio.bi_iter.bi_size = c->bytes;
	KUNIT_EXPECT_EQ(test, dust_map(&f->ti, &bio), c->ret);
	bb = dust_rb_search(&f->dd->badblocklist, 0);
	KUNIT_EXPECT_EQ(test, !!bb, c->listed);
	if (bb && c->listed)
		KUNIT_EXPECT_EQ(test, bb->wr_fail_cnt, c->cnt_after);
	KUNIT_EXPECT_EQ(test, dt_count(f), 1ULL + c->listed);
	/* Offset 0 of the target is sector 0 of the device. */
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_sector, c->sector);
}

/* ---------------------------------------------------------------------- */
/* Messages                                                                */

struct dt_msg_case {
	const char *msg;
	int ret;
	const char *result;	/* NULL: not checked */
};

/*
 * On a 64 MiB target with 4096-byte blocks (16384 blocks, 0..16383) that
 * holds bad blocks 1 and 2: every documented message, with good and bad
 * arguments.  An error must change nothing.
 */
static const struct dt_msg_case dt_msg_cases[] = {
	{ "addbadblock 3", 0, NULL },
	{ "addbadblock 3 0", 0, NULL },
	{ "addbadblock 3 255", 0, NULL },
	{ "addbadblock 16383", 0, NULL },
	{ "ADDBADBLOCK 3", 0, NULL },
	{ "addbadblock 1", -EINVAL, NULL },
	{ "addbadblock", -EINVAL, NULL },
	{ "addbadblock x", -EINVAL, NULL },
	{ "addbadblock 3x", -EINVAL, NULL },
	{ "addbadblock -1", -EINVAL, NULL },
	{ "addbadblock 16384", -EINVAL, NULL },
	{ "addbadblock 18446744073709551615", -EINVAL, NULL },
	{ "addbadblock 18446744073709551616", -EINVAL, NULL },
	{ "addbadblock 3 4294967296", -EINVAL, NULL },
	{ "queryblock 18446744073709551616", -EINVAL, NULL },
	{ "addbadblock 3 256", -EINVAL, NULL },
	{ "addbadblock 3 -1", -EINVAL, NULL },
	{ "addbadblock 3 x", -EINVAL, NULL },
	{ "addbadblock x 1", -EINVAL, NULL },
	{ "addbadblock -1 1", -EINVAL, NULL },
	{ "addbadblock 16384 0", -EINVAL, NULL },
	{ "addbadblock 16383 255", 0, NULL },
	{ "addbadblock 3 1 1", -EINVAL, NULL },
	{ "removebadblock 1", 0, NULL },
	{ "removebadblock 3", -EINVAL, NULL },
	{ "removebadblock", -EINVAL, NULL },
	{ "removebadblock x", -EINVAL, NULL },
	{ "removebadblock 16384", -EINVAL, NULL },
	{ "removebadblock 1 0", -EINVAL, NULL },
	{ "queryblock 1", 1, "dust_query_block: block 1 found in badblocklist" },
	{ "queryblock 3", 1, "dust_query_block: block 3 not found in badblocklist" },
	{ "queryblock", -EINVAL, NULL },
	{ "queryblock x", -EINVAL, NULL },
	{ "queryblock 16384", -EINVAL, NULL },
	{ "queryblock 1 1", -EINVAL, NULL },
	{ "countbadblocks", 1, "countbadblocks: 2 badblock(s) found" },
	{ "countbadblocks 1", -EINVAL, NULL },
	{ "listbadblocks", 1, "1\n2\n" },
	{ "listbadblocks 1", -EINVAL, NULL },
	{ "clearbadblocks", 1, "dust_clear_badblocks: badblocks cleared" },
	{ "clearbadblocks 1", -EINVAL, NULL },
	{ "enable", 0, NULL },
	{ "enable 1", -EINVAL, NULL },
	{ "disable", 0, NULL },
	{ "disable 1", -EINVAL, NULL },
	{ "quiet", 0, NULL },
	{ "quiet 1", -EINVAL, NULL },
	{ "frobnicate", -EINVAL, NULL },
	{ "frobnicate 1", -EINVAL, NULL },
	{ "frobnicate 1 2", -EINVAL, NULL },
	{ "addbadblock 1 2 3 4", -EINVAL, NULL },
	{ "", -EINVAL, NULL },
};

static void dt_msg_case_desc(const struct dt_msg_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->msg);
}

KUNIT_ARRAY_PARAM(dt_msg, dt_msg_cases, dt_msg_case_desc);

static void dust_message_test(struct kunit *test)
{
	const struct dt_msg_case *c = test->param_value;
	struct dt_fixture *f = dt_setup(test, 4096, DT_LEN_SECTORS);
	char before[64];
	bool fail_read, quiet;

	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 2, 0), 0);
	strscpy(before, dt_list(f), sizeof(before));
	fail_read = f->dd->fail_read_on_bb;
	quiet = f->dd->quiet_mode;

	KUNIT_EXPECT_EQ(test, dt_msg(f, c->msg), c->ret);
	if (c->result)
		KUNIT_EXPECT_STREQ(test, f->result, c->result);
	if (c->ret < 0) {
		KUNIT_EXPECT_STREQ(test, dt_list(f), before);
		KUNIT_EXPECT_EQ(test, dt_count(f), 2);
		/* Bit-fields: typeof() in KUNIT_EXPECT_EQ() needs a value. */
		KUNIT_EXPECT_EQ(test, (bool)f->dd->fail_read_on_bb, fail_read);
		KUNIT_EXPECT_EQ(test, (bool)f->dd->quiet_mode, quiet);
	}
}

/*
 * <blknum> is "a block number within range of the device": the last block
 * of the target is accepted and the one after it is not, for 512-byte
 * and 4096-byte blocks, also when the target is shorter than its device.
 */
static void dust_message_range_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, 64);

	KUNIT_EXPECT_EQ(test, dt_msg(f, "addbadblock 63"), 0);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "addbadblock 64"), -EINVAL);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "queryblock 64"), -EINVAL);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "addbadblock 64 1"), -EINVAL);

	f = dt_setup(test, 4096, 64);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "addbadblock 7"), 0);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "addbadblock 8"), -EINVAL);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "addbadblock 8 1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, dt_count(f), 1);
}

static void dust_enable_disable_quiet_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);
	char status[128];

	dust_status(&f->ti, STATUSTYPE_INFO, 0, status, sizeof(status));
	KUNIT_EXPECT_STREQ(test, status, "254:0 bypass verbose");
	KUNIT_EXPECT_EQ(test, dt_msg(f, "enable"), 0);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "enable"), 0);
	dust_status(&f->ti, STATUSTYPE_INFO, 0, status, sizeof(status));
	KUNIT_EXPECT_STREQ(test, status, "254:0 fail_read_on_bad_block verbose");
	KUNIT_EXPECT_EQ(test, dt_msg(f, "quiet"), 0);
	dust_status(&f->ti, STATUSTYPE_INFO, 0, status, sizeof(status));
	KUNIT_EXPECT_STREQ(test, status, "254:0 fail_read_on_bad_block quiet");
	KUNIT_EXPECT_EQ(test, dt_msg(f, "quiet"), 0);
	KUNIT_EXPECT_EQ(test, dt_msg(f, "disable"), 0);
	dust_status(&f->ti, STATUSTYPE_INFO, 0, status, sizeof(status));
	KUNIT_EXPECT_STREQ(test, status, "254:0 bypass verbose");

	f->dd->start = 2048;
	f->dd->blksz = 4096;
	dust_status(&f->ti, STATUSTYPE_TABLE, 0, status, sizeof(status));
	KUNIT_EXPECT_STREQ(test, status, "254:0 2048 4096");
}

/*
 * The kernel log names the block a write removed, in blocks, whatever the
 * block size; quiet mode silences it.  The log is read back with the
 * kmsg_dump iterator, whatever the console log level.
 */
static void dust_write_log_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 4096, DT_LEN_SECTORS);

	if (!IS_ENABLED(CONFIG_PRINTK))
		kunit_skip(test, "needs CONFIG_PRINTK to read the kernel log");

	dt_log_start();
	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 5, 0), 0);
	KUNIT_EXPECT_TRUE(test, dt_log_has("badblock added at block 5 with write fail count 0"));
	KUNIT_EXPECT_EQ(test, dust_map_write(f->dd, 5 * 8 + 3, true), DM_MAPIO_REMAPPED);
	KUNIT_EXPECT_TRUE(test, dt_log_has("block 5 removed from badblocklist by write"));

	KUNIT_EXPECT_EQ(test, dt_msg(f, "quiet"), 0);
	dt_log_start();
	KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 6, 0), 0);
	KUNIT_EXPECT_EQ(test, dust_map_write(f->dd, 6 * 8, true), DM_MAPIO_REMAPPED);
	KUNIT_EXPECT_EQ(test, dust_remove_block(f->dd, 6), -EINVAL);
	KUNIT_EXPECT_FALSE(test, dt_log_has("block 6"));
}

/*
 * Every message that logs, in verbose and in quiet mode: verbose logs the
 * line (dm-dust.rst shows them), quiet logs nothing, and the message does
 * the same either way.
 */
struct dt_log_case {
	const char *msg;
	int ret;
	const char *logged;	/* in verbose mode */
};

static const struct dt_log_case dt_log_cases[] = {
	{ "addbadblock 9", 0, "dust_add_block: badblock added at block 9 with write fail count 0" },
	{ "addbadblock 5", -EINVAL, "dust_add_block: block 5 already in badblocklist" },
	{ "removebadblock 5", 0, "dust_remove_block: badblock removed at block 5" },
	{ "removebadblock 9", -EINVAL, "dust_remove_block: block 9 not found in badblocklist" },
};

static void dt_log_case_desc(const struct dt_log_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->msg);
}

KUNIT_ARRAY_PARAM(dt_log, dt_log_cases, dt_log_case_desc);

static void dust_message_log_test(struct kunit *test)
{
	const struct dt_log_case *c = test->param_value;
	bool quiet;

	if (!IS_ENABLED(CONFIG_PRINTK))
		kunit_skip(test, "needs CONFIG_PRINTK to read the kernel log");
	for (quiet = false; ; quiet = true) {
		struct dt_fixture *f = dt_setup(test, 4096, DT_LEN_SECTORS);

		KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, 5, 0), 0);
		if (quiet)
			KUNIT_ASSERT_EQ(test, dt_msg(f, "quiet"), 0);
		dt_log_start();
		KUNIT_EXPECT_EQ_MSG(test, dt_msg(f, c->msg), c->ret, "quiet %d", quiet);
		KUNIT_EXPECT_EQ_MSG(test, dt_log_has(c->logged), !quiet,
				    "quiet %d: \"%s\" logged", quiet, c->logged);
		KUNIT_EXPECT_FALSE_MSG(test, quiet && dt_log_has("dust_"),
				       "quiet mode logged a dust line");
		if (quiet)
			break;
	}
}

/*
 * A message's result goes into dm's buffer of @maxlen bytes: a longer
 * result is cut at maxlen - 1 bytes, NUL-terminated (dm then reports the
 * buffer full and dmsetup retries with a larger one), and nothing is
 * written past the buffer; with no room at all nothing is written (a
 * query for a listed block, 3, and for one not listed, 5).
 */
static void dust_message_maxlen_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);
	static const char * const msgs[] = {
		"listbadblocks", "countbadblocks", "queryblock 3", "queryblock 5",
		"clearbadblocks", "listbadblocks", "clearbadblocks",
	};
	char *argv[2], msg[32], buf[9];
	unsigned int i, argc;

	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, i, 0), 0);
	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		char *p = msg;

		strscpy(msg, msgs[i], sizeof(msg));
		argv[0] = strsep(&p, " ");
		argv[1] = p;
		argc = p ? 2 : 1;
		memset(buf, 'x', sizeof(buf));
		KUNIT_EXPECT_EQ_MSG(test, dust_message(&f->ti, argc, argv, buf, 0), 1,
				    "%s", msgs[i]);
		KUNIT_EXPECT_EQ_MSG(test, buf[0], 'x', "%s wrote to a 0-byte buffer", msgs[i]);
	}
	/* The clears above emptied the list: refill it, cut the list at 7 bytes. */
	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, dust_add_block(f->dd, i, 0), 0);
	argv[0] = "listbadblocks";
	memset(buf, 'x', sizeof(buf));
	KUNIT_EXPECT_EQ(test, dust_message(&f->ti, 1, argv, buf, sizeof(buf) - 1), 1);
	KUNIT_EXPECT_STREQ(test, buf, "1\n2\n3\n4");
	KUNIT_EXPECT_EQ(test, buf[sizeof(buf) - 1], 'x');
}

/*
 * The IMA measurement of a dust target is empty; with no room, no status
 * type writes anything.
 */
static void dust_status_ima_test(struct kunit *test)
{
	struct dt_fixture *f = dt_setup(test, 512, DT_LEN_SECTORS);
	char status[16];

	memset(status, 'x', sizeof(status));
	dust_status(&f->ti, STATUSTYPE_IMA, 0, status, sizeof(status));
	KUNIT_EXPECT_STREQ(test, status, "");
	memset(status, 'x', sizeof(status));
	dust_status(&f->ti, STATUSTYPE_INFO, 0, status, 0);
	dust_status(&f->ti, STATUSTYPE_TABLE, 0, status, 0);
	KUNIT_EXPECT_EQ(test, status[0], 'x');
}

/* ---------------------------------------------------------------------- */
/* Table lines                                                             */

struct dt_ctr_case {
	const char *desc;
	const char *args[4];
	unsigned int argc;
	sector_t len;
	const char *error;
};

static const struct dt_ctr_case dt_ctr_cases[] = {
	{ "no arguments", { }, 0, 1024, "Invalid argument count" },
	{ "two arguments", { "/dev/vdb", "0" }, 2, 1024, "Invalid argument count" },
	{ "four arguments", { "/dev/vdb", "0", "512", "x" }, 4, 1024,
	  "Invalid argument count" },
	{ "block size 0", { "/dev/vdb", "0", "0" }, 3, 1024, "Invalid block size parameter" },
	{ "block size not a number", { "/dev/vdb", "0", "4k" }, 3, 1024,
	  "Invalid block size parameter" },
	{ "block size negative", { "/dev/vdb", "0", "-512" }, 3, 1024,
	  "Invalid block size parameter" },
	{ "block size 511", { "/dev/vdb", "0", "511" }, 3, 1024,
	  "Block size must be at least 512" },
	{ "block size 513", { "/dev/vdb", "0", "513" }, 3, 1024,
	  "Block size must be a power of 2" },
	{ "block size 1536", { "/dev/vdb", "0", "1536" }, 3, 1024,
	  "Block size must be a power of 2" },
	{ "block size 2 GiB", { "/dev/vdb", "0", "2147483648" }, 3, 1ULL << 32,
	  "Block size is too large" },
	{ "block size over the target", { "/dev/vdb", "0", "8192" }, 3, 8,
	  "Block size is too large" },
	/* Valid block sizes get as far as the offset. */
	{ "block size 512, bad offset", { "/dev/vdb", "x", "512" }, 3, 1024,
	  "Invalid device offset sector" },
	{ "block size 1 GiB, bad offset", { "/dev/vdb", "1x", "1073741824" }, 3, 1ULL << 22,
	  "Invalid device offset sector" },
	{ "block size equal to the target, bad offset", { "/dev/vdb", "", "4096" }, 3, 8,
	  "Invalid device offset sector" },
	{ "offset negative", { "/dev/vdb", "-x", "4096" }, 3, 1024,
	  "Invalid device offset sector" },
	{ "offset 2^64", { "/dev/vdb", "18446744073709551616", "4096" }, 3, 1024,
	  "Invalid device offset sector" },
	{ "offset 2^64 + 8", { "/dev/vdb", "18446744073709551624", "4096" }, 3, 1024,
	  "Invalid device offset sector" },
	{ "offset 10^20", { "/dev/vdb", "100000000000000000000", "4096" }, 3, 1024,
	  "Invalid device offset sector" },
};

KUNIT_ARRAY_PARAM_DESC(dt_ctr, dt_ctr_cases, desc);

static void dust_ctr_test(struct kunit *test)
{
	const struct dt_ctr_case *c = test->param_value;
	struct dm_target ti = { .len = c->len };
	char *argv[4];
	unsigned int i;

	for (i = 0; i < c->argc; i++)
		argv[i] = (char *)c->args[i];
	KUNIT_EXPECT_EQ(test, dust_ctr(&ti, c->argc, argv), -EINVAL);
	KUNIT_ASSERT_NOT_NULL(test, ti.error);
	KUNIT_EXPECT_STREQ(test, ti.error, c->error);
	KUNIT_EXPECT_NULL(test, ti.private);
}

static struct kunit_case dm_dust_test_cases[] = {
	KUNIT_CASE(dust_add_remove_test),
	KUNIT_CASE(dust_query_test),
	KUNIT_CASE(dust_count_test),
	KUNIT_CASE(dust_list_order_test),
	KUNIT_CASE(dust_list_empty_test),
	KUNIT_CASE(dust_clear_test),
	KUNIT_CASE(dust_wr_fail_cnt_range_test),
	KUNIT_CASE(dust_read_test),
	KUNIT_CASE_PARAM(dust_write_test, dt_wr_gen_params),
	KUNIT_CASE(dust_write_disabled_test),
	KUNIT_CASE_PARAM(dust_block_size_test, dt_blksz_gen_params),
	KUNIT_CASE_PARAM(dust_partial_block_test, dt_blksz_gen_params),
	KUNIT_CASE_PARAM(dust_bio_test, dt_bio_gen_params),
	KUNIT_CASE_PARAM(dust_message_test, dt_msg_gen_params),
	KUNIT_CASE(dust_message_range_test),
	KUNIT_CASE(dust_enable_disable_quiet_test),
	KUNIT_CASE(dust_write_log_test),
	KUNIT_CASE_PARAM(dust_message_log_test, dt_log_gen_params),
	KUNIT_CASE(dust_message_maxlen_test),
	KUNIT_CASE(dust_status_ima_test),
	KUNIT_CASE_PARAM(dust_ctr_test, dt_ctr_gen_params),
	{}
};

static struct kunit_suite dm_dust_test_suite = {
	.name = "dm_dust",
	.test_cases = dm_dust_test_cases,
};

kunit_test_suite(dm_dust_test_suite);
