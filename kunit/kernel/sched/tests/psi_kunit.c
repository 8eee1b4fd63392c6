// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for PSI triggers: psi_trigger_create() and
 * psi_trigger_destroy(), the code behind "Monitoring for pressure
 * thresholds" in Documentation/accounting/psi.rst.  A trigger string is
 * "<some|full> <threshold us> <window us>"; windows run up to 10 s,
 * thresholds from 1 us up to the window; openers without CAP_SYS_RESOURCE
 * need a window that is a multiple of 2 s and get the averaging work
 * instead of the RT poll thread.
 *
 * Included at the end of kernel/sched/psi.c.  The cases work on a psi
 * group of their own, never on the system's; the opener's credentials
 * come from a file the test makes up (only its f_cred is read).
 */

#include <kunit/test.h>
#include <linux/cred.h>

/* A made-up opener: its credentials, with or without CAP_SYS_RESOURCE. */
struct psi_test_opener {
	struct file file;
	struct cred *cred;
};

static struct psi_group *psi_test_group(struct kunit *test)
{
	struct psi_group *group = kunit_kzalloc(test, sizeof(*group), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, group);
	group_init(group);
	return group;
}

static void psi_test_opener_init(struct kunit *test, struct psi_test_opener *o,
				 bool privileged)
{
	memset(o, 0, sizeof(*o));
	o->cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, o->cred);
	if (privileged)
		cap_raise(o->cred->cap_effective, CAP_SYS_RESOURCE);
	else
		cap_lower(o->cred->cap_effective, CAP_SYS_RESOURCE);
	o->file.f_cred = o->cred;
}

static void psi_test_opener_exit(struct psi_test_opener *o)
{
	put_cred(o->cred);
}

struct psi_trigger_case {
	const char *desc;
	const char *buf;
	enum psi_res res;
	bool privileged;
	int err;			/* 0: a trigger is made */
	enum psi_states state;
	u32 threshold_us;
	u32 window_us;
};

#define PSI_OK(d, b, r, p, s, t, w) \
	{ .desc = d, .buf = b, .res = r, .privileged = p, .state = s, \
	  .threshold_us = t, .window_us = w }
#define PSI_BAD(d, b, r, p) \
	{ .desc = d, .buf = b, .res = r, .privileged = p, .err = -EINVAL }

static const struct psi_trigger_case psi_trigger_cases[] = {
	PSI_OK("memory some, psi.rst's example", "some 150000 1000000", PSI_MEM,
	       true, PSI_MEM_SOME, 150000, 1000000),
	PSI_OK("io full, psi.rst's example", "full 50000 1000000", PSI_IO,
	       true, PSI_IO_FULL, 50000, 1000000),
	PSI_OK("cpu some", "some 1 1", PSI_CPU, true, PSI_CPU_SOME, 1, 1),
	PSI_OK("cpu full", "full 100 1000", PSI_CPU, true, PSI_CPU_FULL, 100, 1000),
	PSI_OK("trailing newline", "some 1000 2000\n", PSI_MEM, true,
	       PSI_MEM_SOME, 1000, 2000),
	PSI_OK("largest window", "some 1 10000000", PSI_IO, true, PSI_IO_SOME,
	       1, 10000000),
	/* More than 2^32 ns: a 32-bit multiplication would wrap. */
	PSI_OK("threshold and window past 2^32 ns", "some 5000000 10000000",
	       PSI_MEM, true, PSI_MEM_SOME, 5000000, 10000000),
	PSI_OK("threshold equal to the window", "some 500000 500000", PSI_MEM,
	       true, PSI_MEM_SOME, 500000, 500000),
	PSI_OK("window shorter than psi.rst's old 500ms", "some 1000 100000",
	       PSI_MEM, true, PSI_MEM_SOME, 1000, 100000),
	PSI_BAD("zero window", "some 1 0", PSI_MEM, true),
	PSI_BAD("window past 10s", "some 1 10000001", PSI_MEM, true),
	PSI_BAD("window that wraps u32", "some 1 4294967296", PSI_MEM, true),
	PSI_BAD("zero threshold", "some 0 1000000", PSI_MEM, true),
	PSI_BAD("threshold over the window", "some 1000001 1000000", PSI_MEM, true),
	PSI_BAD("unknown kind", "most 1 1000000", PSI_MEM, true),
	PSI_BAD("upper-case kind", "SOME 1 1000000", PSI_MEM, true),
	PSI_BAD("no window", "some 100000", PSI_MEM, true),
	PSI_BAD("words, not numbers", "some a b", PSI_MEM, true),
	PSI_BAD("negative threshold", "some -1 1000000", PSI_MEM, true),
	PSI_BAD("empty string", "", PSI_MEM, true),
	PSI_OK("unprivileged 2s window", "some 100000 2000000", PSI_MEM, false,
	       PSI_MEM_SOME, 100000, 2000000),
	PSI_OK("unprivileged 10s window", "full 1 10000000", PSI_IO, false,
	       PSI_IO_FULL, 1, 10000000),
	PSI_BAD("unprivileged 1s window", "some 100000 1000000", PSI_MEM, false),
	PSI_BAD("unprivileged 3s window", "some 100000 3000000", PSI_MEM, false),
	PSI_BAD("unprivileged window of 2s plus 1us", "some 1 2000001", PSI_MEM,
		false),
	PSI_BAD("unprivileged zero threshold", "some 0 2000000", PSI_MEM, false),
};

static void psi_trigger_case_desc(const struct psi_trigger_case *c, char *desc)
{
	/* %pEs: a newline in the string must not end the KTAP line. */
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s: \"%*pEs\"%s", c->desc,
		 (int)strlen(c->buf), c->buf, c->privileged ? "" : ", unprivileged");
}

KUNIT_ARRAY_PARAM(psi_trigger, psi_trigger_cases, psi_trigger_case_desc);

/*
 * psi_trigger_create() accepts what psi.rst allows, with the state,
 * threshold, window and aggregator asked for, and refuses the rest with
 * -EINVAL, adding nothing to the group.
 */
static void psi_trigger_create_test(struct kunit *test)
{
	const struct psi_trigger_case *c = test->param_value;
	struct psi_group *group = psi_test_group(test);
	struct psi_test_opener opener;
	struct psi_trigger *t;
	char buf[64];
	bool need_worker = true;

	strscpy(buf, c->buf, sizeof(buf));
	psi_test_opener_init(test, &opener, c->privileged);
	t = psi_trigger_create(group, buf, c->res, &opener.file, NULL, &need_worker);
	psi_test_opener_exit(&opener);

	if (c->err) {
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(t), c->err);
		KUNIT_EXPECT_TRUE(test, list_empty(&group->rtpoll_triggers));
		KUNIT_EXPECT_TRUE(test, list_empty(&group->avg_triggers));
		KUNIT_EXPECT_EQ(test, group->rtpoll_states, 0);
		KUNIT_EXPECT_FALSE(test, need_worker);
		if (!IS_ERR(t))
			psi_trigger_destroy(t);
		return;
	}
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t), "error %ld", PTR_ERR(t));
	KUNIT_EXPECT_EQ(test, t->state, c->state);
	KUNIT_EXPECT_EQ(test, t->threshold, (u64)c->threshold_us * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, t->win.size, (u64)c->window_us * NSEC_PER_USEC);
	if (c->privileged) {
		/* The RT poll thread serves it: the caller must start one. */
		KUNIT_EXPECT_EQ(test, t->aggregator, PSI_POLL);
		KUNIT_EXPECT_TRUE(test, need_worker);
		KUNIT_EXPECT_EQ(test, group->rtpoll_states, BIT(c->state));
		KUNIT_EXPECT_EQ(test, group->rtpoll_nr_triggers[c->state], 1);
		KUNIT_EXPECT_EQ(test, group->rtpoll_min_period,
				div_u64((u64)c->window_us * NSEC_PER_USEC,
					UPDATES_PER_WINDOW));
		KUNIT_EXPECT_TRUE(test, list_empty(&group->avg_triggers));
	} else {
		KUNIT_EXPECT_EQ(test, t->aggregator, PSI_AVGS);
		KUNIT_EXPECT_FALSE(test, need_worker);
		KUNIT_EXPECT_EQ(test, group->avg_nr_triggers[c->state], 1);
		KUNIT_EXPECT_EQ(test, group->rtpoll_states, 0);
		KUNIT_EXPECT_TRUE(test, list_empty(&group->rtpoll_triggers));
	}
	psi_trigger_destroy(t);
	KUNIT_EXPECT_TRUE(test, list_empty(&group->rtpoll_triggers));
	KUNIT_EXPECT_TRUE(test, list_empty(&group->avg_triggers));
	KUNIT_EXPECT_EQ(test, group->rtpoll_states, 0);
}

/*
 * The group polls as often as its shortest window needs, and goes back
 * to the next shortest when that trigger is destroyed.
 */
static void psi_trigger_min_period_test(struct kunit *test)
{
	static const char * const bufs[] = {
		"some 1000 1000000", "some 1000 100000", "full 1000 5000000",
	};
	struct psi_group *group = psi_test_group(test);
	struct psi_trigger *t[ARRAY_SIZE(bufs)];
	struct psi_test_opener opener;
	char buf[64];
	bool need;
	int i;

	psi_test_opener_init(test, &opener, true);
	for (i = 0; i < ARRAY_SIZE(bufs); i++) {
		strscpy(buf, bufs[i], sizeof(buf));
		t[i] = psi_trigger_create(group, buf, PSI_MEM, &opener.file,
					  NULL, &need);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
	}
	psi_test_opener_exit(&opener);

	KUNIT_EXPECT_EQ(test, group->rtpoll_min_period, 100000000 / UPDATES_PER_WINDOW);
	KUNIT_EXPECT_EQ(test, group->rtpoll_nr_triggers[PSI_MEM_SOME], 2);
	KUNIT_EXPECT_EQ(test, group->rtpoll_states,
			BIT(PSI_MEM_SOME) | BIT(PSI_MEM_FULL));

	psi_trigger_destroy(t[1]);
	KUNIT_EXPECT_EQ(test, group->rtpoll_min_period, 1000000000 / UPDATES_PER_WINDOW);
	KUNIT_EXPECT_EQ(test, group->rtpoll_nr_triggers[PSI_MEM_SOME], 1);

	psi_trigger_destroy(t[0]);
	KUNIT_EXPECT_EQ(test, group->rtpoll_min_period, 5000000000ULL / UPDATES_PER_WINDOW);
	KUNIT_EXPECT_EQ(test, group->rtpoll_states, BIT(PSI_MEM_FULL));

	psi_trigger_destroy(t[2]);
	KUNIT_EXPECT_EQ(test, group->rtpoll_states, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&group->rtpoll_triggers));
}

static struct kunit_case psi_trigger_test_cases[] = {
	KUNIT_CASE_PARAM(psi_trigger_create_test, psi_trigger_gen_params),
	KUNIT_CASE(psi_trigger_min_period_test),
	{}
};

static struct kunit_suite psi_trigger_test_suite = {
	.name = "psi_trigger",
	.test_cases = psi_trigger_test_cases,
};

kunit_test_suite(psi_trigger_test_suite);
