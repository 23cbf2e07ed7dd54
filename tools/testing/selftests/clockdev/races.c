// SPDX-License-Identifier: GPL-2.0
/*
 * Races of dynamic clocks coming and going with their users: ptp_sim
 * instances are made and deleted in a loop while threads find whatever
 * clocks exist, open them, read, steer, arm timers and timerfds, sleep on
 * them and close them again.  Every result must be one the ABI document
 * allows (a removed clock answers ENODEV), no thread may hang, and the
 * console must stay quiet: run it on a kernel with KASAN, lockdep and
 * kmemleak, where what a race breaks shows.
 *
 * CLOCKDEV_RACE_CYCLES sets the number of creations and deletions (200;
 * 'make soak': 10000).
 *
 * The same for RTCs, which cannot be made at will: the driver of an RTC
 * is unbound under armed wake timers, a timerfd and a sleeper, and bound
 * again, CLOCKDEV_RTC_CYCLES times (5; 'make soak': 100).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "clockdev_util.h"

#define PTP_SIM_BUS	"/sys/bus/ptp_sim"
/* Instances that exist at once, at most. */
#define RACE_SLOTS	4
/* Threads using them (on 2 CPUs). */
#define RACE_WORKERS	5
/* Timers a worker holds at once; the oldest goes first. */
#define RACE_TIMERS	8
/* A thread still running this long after the last deletion hangs. */
#define RACE_JOIN_NS	SEC(30)
#define SIG_RACE	(SIGRTMIN + 2)

enum race_op {
	OP_OPEN, OP_GETTIME, OP_GETRES, OP_FREQ, OP_STEP, OP_TIMER_CREATE,
	OP_TIMER_SETTIME, OP_TIMER_GETTIME, OP_TIMER_DELETE, OP_TIMERFD,
	OP_NANOSLEEP, OP_NANOSLEEP_ABS, OP_LONG_SLEEP, NR_OPS
};

static const char *const op_name[NR_OPS] = {
	"open", "clock_gettime", "clock_getres", "adjtime(freq)",
	"adjtime(step)", "timer_create", "timer_settime", "timer_gettime",
	"timer_delete", "timerfd", "nanosleep", "nanosleep(abs)",
	"long sleep",
};

struct race {
	int id[RACE_SLOTS];
	int cycles;
	atomic_bool done;
	/* per operation: results on a live clock, ENODEV, others allowed */
	atomic_long ok[NR_OPS];
	atomic_long enodev[NR_OPS];
	atomic_long other[NR_OPS];
	atomic_long unexpected;
	pthread_mutex_t lock;
	char first[256];
};

struct worker {
	struct race *r;
	unsigned int seed;
	int timer[RACE_TIMERS];
	int ntimers;
	bool long_sleeper;
};

static void on_sig(int sig)
{
}

/* Count @err for @op: 0 and ENODEV always, @also (0: none) besides. */
static void judge(struct race *r, enum race_op op, int err, int also)
{
	if (!err) {
		r->ok[op]++;
	} else if (err == -ENODEV) {
		r->enodev[op]++;
	} else if (also && (err == -also || err == -EINTR)) {
		r->other[op]++;
	} else {
		if (r->unexpected++ == 0) {
			pthread_mutex_lock(&r->lock);
			snprintf(r->first, sizeof(r->first), "%s: %s",
				 op_name[op], errname(-err));
			pthread_mutex_unlock(&r->lock);
		}
	}
}

/* Open the node of slot @slot's instance, if it exists: fd or -errno. */
static int open_slot(const struct race *r, int slot)
{
	char dir[128], path[PATH_MAX];
	struct dirent *e;
	int fd = -ENOENT;
	DIR *d;

	snprintf(dir, sizeof(dir), PTP_SIM_BUS "/devices/ptp_sim%d/ptp",
		 r->id[slot]);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "ptp", 3))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
		break;
	}
	closedir(d);
	return fd;
}

static void drop_timer(struct worker *w, int i)
{
	judge(w->r, OP_TIMER_DELETE, sys_timer_delete(w->timer[i]), 0);
	w->timer[i] = w->timer[--w->ntimers];
}

/* Arm timer @id on @clk: relative and periodic, or absolute, soon. */
static void arm(struct worker *w, clockid_t clk, int id)
{
	s64 now;
	int err;

	if (rand_r(&w->seed) % 2) {
		err = sys_timer_settime(id, 0, MS(1 + rand_r(&w->seed) % 5),
					MS(2 + rand_r(&w->seed) % 8));
	} else {
		now = clock_ns(clk);
		err = now < 0 ? -errno :
		      sys_timer_settime(id, TIMER_ABSTIME, now + MS(3), 0);
	}
	judge(w->r, OP_TIMER_SETTIME, err, 0);
}

/* One use of clock @clk, drawn from the worker's seed. */
static void use(struct worker *w, clockid_t clk)
{
	struct itimerspec its = { 0 };
	struct race *r = w->r;
	struct pollfd pfd;
	s64 v, iv, now;
	int err, id, tfd;
	uint64_t n;

	switch (rand_r(&w->seed) % 11) {
	case 0:
		judge(r, OP_GETTIME, clock_ns(clk) < 0 ? -errno : 0, 0);
		break;
	case 1: {
		struct timespec ts;

		judge(r, OP_GETRES, clock_getres(clk, &ts) ? -errno : 0, 0);
		break;
	}
	case 2:
		judge(r, OP_FREQ, sys_clock_freq(clk, rand_r(&w->seed) % 2000001
						  - 1000000), 0);
		break;
	case 3:
		/*
		 * A new ptp_sim starts at 0: a step below 0 is the PTP
		 * class's EINVAL.  Back only once past a second, which the
		 * other threads' steps of a millisecond cannot undo.
		 */
		now = clock_ns(clk);
		err = now < 0 ? -errno :
		      sys_clock_step(clk, now > SEC(1) && rand_r(&w->seed) % 2 ?
				     -MS(1) : MS(1));
		judge(r, OP_STEP, err, 0);
		break;
	case 4:
		if (w->ntimers == RACE_TIMERS)
			drop_timer(w, 0);
		err = sys_timer_create(clk, rand_r(&w->seed) % 2 ? SIGEV_NONE :
				       SIGEV_SIGNAL, SIG_RACE, 0, 0, &id);
		judge(r, OP_TIMER_CREATE, err, 0);
		if (err)
			break;
		w->timer[w->ntimers++] = id;
		arm(w, clk, id);
		break;
	case 5:
		if (w->ntimers)
			arm(w, clk, w->timer[rand_r(&w->seed) % w->ntimers]);
		break;
	case 6:
		if (!w->ntimers)
			break;
		id = w->timer[rand_r(&w->seed) % w->ntimers];
		judge(r, OP_TIMER_GETTIME, sys_timer_gettime(id, &v, &iv), 0);
		break;
	case 7:
		if (w->ntimers)
			drop_timer(w, rand_r(&w->seed) % w->ntimers);
		break;
	case 8:
		tfd = timerfd_create(clk, TFD_CLOEXEC | TFD_NONBLOCK);
		if (tfd < 0) {
			judge(r, OP_TIMERFD, -errno, 0);
			break;
		}
		its.it_value.tv_nsec = MS(1 + rand_r(&w->seed) % 3);
		its.it_interval.tv_nsec = rand_r(&w->seed) % 2 ? MS(2) : 0;
		err = timerfd_settime(tfd, 0, &its, NULL) ? -errno : 0;
		if (!err) {
			pfd = (struct pollfd){ .fd = tfd, .events = POLLIN };
			if (poll(&pfd, 1, 50) < 0)
				err = -errno;
			else if (read(tfd, &n, sizeof(n)) < 0)
				err = -errno;
		}
		/* EAGAIN: not expired within 50 ms (a stall, or a step back) */
		judge(r, OP_TIMERFD, err, EAGAIN);
		close(tfd);
		break;
	case 9:
		err = sys_clock_nanosleep(clk, 0, MS(1 + rand_r(&w->seed) % 4),
					  NULL);
		judge(r, OP_NANOSLEEP, err, EINTR);
		break;
	case 10:
		now = clock_ns(clk);
		err = now < 0 ? -errno :
		      sys_clock_nanosleep(clk, TIMER_ABSTIME, now + MS(2), NULL);
		judge(r, OP_NANOSLEEP_ABS, err, EINTR);
		break;
	}
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct race *r = w->r;
	int fd, i, uses;

	while (!r->done) {
		fd = open_slot(r, rand_r(&w->seed) % RACE_SLOTS);
		if (fd == -ENOENT || fd == -ENXIO) {
			/* not there, or going: a race too */
			r->other[OP_OPEN]++;
			pass_time(MS(1));
			continue;
		}
		judge(r, OP_OPEN, fd < 0 ? fd : 0, 0);
		if (fd < 0)
			continue;
		if (w->long_sleeper) {
			/* Until the clock goes: the creator deletes them all. */
			judge(r, OP_LONG_SLEEP,
			      sys_clock_nanosleep(FD_TO_CLOCKID(fd), 0,
						  SEC(3600), NULL), EINTR);
		} else {
			uses = 1 + rand_r(&w->seed) % 8;
			for (i = 0; i < uses; i++)
				use(w, FD_TO_CLOCKID(fd));
		}
		close(fd);
	}
	while (w->ntimers)
		drop_timer(w, 0);
	return NULL;
}

static int slot_new(struct race *r, int slot, bool sleeping)
{
	/* "ID MAX_ADJ_PPB SLEEPING_READS" */
	return write_file(PTP_SIM_BUS "/new_device", "%d 10000000 %d",
			  r->id[slot], sleeping);
}

static int slot_del(struct race *r, int slot)
{
	return write_file(PTP_SIM_BUS "/del_device", "%d", r->id[slot]);
}

FIXTURE(races) {
	struct race r;
	bool made[RACE_SLOTS];
};

FIXTURE_SETUP(races)
{
	const char *cycles = getenv("CLOCKDEV_RACE_CYCLES");
	int i;

	if (access(PTP_SIM_BUS, F_OK))
		run_cmd("modprobe ptp_sim >/dev/null 2>&1");
	if (access(PTP_SIM_BUS, F_OK))
		SKIP(return, "no ptp_sim (%s): this kernel lacks the simulated PHC",
		     PTP_SIM_BUS);
	pthread_mutex_init(&self->r.lock, NULL);
	self->r.cycles = cycles ? atoi(cycles) : 200;
	for (i = 0; i < RACE_SLOTS; i++)
		self->r.id[i] = 900000 + (getpid() % 10000) * 10 + i;
}

FIXTURE_TEARDOWN(races)
{
	int i;

	for (i = 0; i < RACE_SLOTS; i++)
		if (self->made[i])
			slot_del(&self->r, i);
}

/*
 * Instances made and deleted in turn in RACE_SLOTS slots (every second
 * generation of a slot with reads that sleep, so that both the RCU and
 * the SRCU read paths, the hrtimer and the worker expiry paths race with
 * removal) under RACE_WORKERS threads, two of which sleep in
 * clock_nanosleep() until their clock goes.
 */
TEST_F_TIMEOUT(races, create_destroy, 3000)
{
	struct sigaction sa = { .sa_handler = on_sig };
	struct worker w[RACE_WORKERS] = { 0 };
	pthread_t th[RACE_WORKERS];
	struct race *r = &self->r;
	long live = 0, gone = 0;
	int cyc, slot, err, i;
	struct timespec dl;
	s64 t0 = mono_ns();

	ASSERT_EQ(0, sigaction(SIG_RACE, &sa, NULL));
	for (i = 0; i < RACE_WORKERS; i++) {
		w[i].r = r;
		w[i].seed = t0 + i;
		w[i].long_sleeper = i < 2;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker, &w[i]));
	}
	for (cyc = 0; cyc < r->cycles && !r->unexpected; cyc++) {
		slot = cyc % RACE_SLOTS;
		if (self->made[slot]) {
			err = slot_del(r, slot);
			ASSERT_EQ(0, err) TH_LOG("cycle %d: del_device %d: %s",
						 cyc, r->id[slot], errname(-err));
		} else {
			err = slot_new(r, slot, (cyc / RACE_SLOTS) % 4 == 1);
			ASSERT_EQ(0, err) TH_LOG("cycle %d: new_device %d: %s",
						 cyc, r->id[slot], errname(-err));
		}
		self->made[slot] = !self->made[slot];
	}
	/* The last deletions wake the long sleepers; then all must end. */
	r->done = true;
	for (slot = 0; slot < RACE_SLOTS; slot++) {
		if (self->made[slot])
			EXPECT_EQ(0, slot_del(r, slot));
		self->made[slot] = false;
	}
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += RACE_JOIN_NS / NSEC_PER_SEC;
	for (i = 0; i < RACE_WORKERS; i++) {
		err = pthread_timedjoin_np(th[i], NULL, &dl);
		ASSERT_EQ(0, err) TH_LOG("worker %d still runs 30 s after the last deletion (%s)",
					 i, errname(err));
	}

	for (i = 0; i < NR_OPS; i++) {
		ksft_print_msg("%-16s %8ld ok %8ld ENODEV %8ld other allowed\n",
			       op_name[i], r->ok[i], r->enodev[i], r->other[i]);
		live += r->ok[i];
		gone += r->enodev[i];
	}
	ksft_print_msg("%d creations and deletions in %.1f s\n", cyc,
		       (mono_ns() - t0) / 1e9);
	ksft_print_msg("%ld results on live clocks, %ld ENODEV\n", live, gone);
	EXPECT_EQ(0, r->unexpected) TH_LOG("%ld unexpected results, the first: %s",
					   r->unexpected, r->first);
	/* Both sides of the race happened, or nothing was tested. */
	EXPECT_LT(0, live);
	EXPECT_LT(0, gone);
}

FIXTURE(rtc_cycles) {
	struct test_clock c;
	char why[256];
	int err;
};

FIXTURE_VARIANT(rtc_cycles) {
	enum clock_kind kind;
};

/* The machine's RTC (rtc_cmos), whose alarm wakes it from suspend. */
FIXTURE_VARIANT_ADD(rtc_cycles, cmos) {
	.kind = CK_RTC_CMOS,
};

/* rtc-test.1, an RTC whose alarm is a kernel timer. */
FIXTURE_VARIANT_ADD(rtc_cycles, test_alarm) {
	.kind = CK_RTC,
};

FIXTURE_SETUP(rtc_cycles)
{
	self->err = test_clock_make(&self->c, variant->kind, self->why,
				    sizeof(self->why));
}

FIXTURE_TEARDOWN(rtc_cycles)
{
	if (!self->err)
		test_clock_destroy(&self->c);
}

/*
 * Each cycle arms, on the RTC's clock, a timer an hour away (it programs
 * the RTC's alarm: a wake timer), a periodic timer signalling every
 * second, a timerfd and a process sleeping in clock_nanosleep(); unbinds
 * the RTC's driver; checks that every user sees a removed clock; binds
 * the driver again and sleeps a second on the new clock.
 */
TEST_F_TIMEOUT(rtc_cycles, unbind_bind, 1800)
{
	const char *env = getenv("CLOCKDEV_RTC_CYCLES");
	struct itimerspec its = { .it_value.tv_sec = 60 };
	struct pollfd pfd = { .events = POLLIN };
	int cycles = env ? atoi(env) : 5;
	int cyc, wake, tick, tfd, err, st;
	s64 now, t0 = mono_ns();
	sigset_t set;
	pid_t pid;

	if (self->err)
		SKIP(return, "%s", self->why);
	err = probe_timer_create(self->c.clk);
	if (!err)
		err = probe_nanosleep(self->c.clk);
	if (err)
		SKIP(return, "no timers on %s on this kernel: %s",
		     self->c.path, errname(-err));
	/* The periodic timer's signal stays pending: it interrupts nothing. */
	sigemptyset(&set);
	sigaddset(&set, SIG_RACE);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));

	for (cyc = 0; cyc < cycles; cyc++) {
		now = clock_ns(self->c.clk);
		ASSERT_LT(0, now);
		ASSERT_EQ(0, sys_timer_create(self->c.clk, SIGEV_NONE, 0, 0, 0,
					      &wake));
		ASSERT_EQ(0, sys_timer_settime(wake, TIMER_ABSTIME,
					       now + SEC(3600), 0));
		ASSERT_EQ(0, sys_timer_create(self->c.clk, SIGEV_SIGNAL,
					      SIG_RACE, 0, 0, &tick));
		ASSERT_EQ(0, sys_timer_settime(tick, 0, SEC(1), SEC(1)));
		tfd = timerfd_create(self->c.clk, TFD_CLOEXEC);
		ASSERT_LE(0, tfd);
		ASSERT_EQ(0, timerfd_settime(tfd, 0, &its, NULL));
		pid = sleeper_until_gone(self->c.clk);
		ASSERT_LE(0, pid) TH_LOG("cycle %d: a sleeper: %s", cyc,
					 errname(-pid));

		err = test_clock_remove(&self->c);
		ASSERT_EQ(0, err) TH_LOG("cycle %d: unbinding %s's driver: %s",
					 cyc, self->c.rtc, errname(-err));
		ASSERT_TRUE(reap_within(pid, &st, SEC(5)))
			TH_LOG("cycle %d: the sleeper still sleeps 5 s after the unbind",
			       cyc);
		EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
			TH_LOG("cycle %d: the sleeper: status 0x%x", cyc, st);
		err = clock_ns(self->c.clk) < 0 ? -errno : 0;
		EXPECT_EQ(-ENODEV, err);
		EXPECT_EQ(-ENODEV, sys_timer_settime(wake, 0, SEC(1), 0));
		EXPECT_EQ(0, sys_timer_delete(wake));
		EXPECT_EQ(0, sys_timer_delete(tick));
		pfd.fd = tfd;
		EXPECT_EQ(1, poll(&pfd, 1, 1000));
		EXPECT_EQ(POLLERR | POLLHUP, pfd.revents & (POLLERR | POLLHUP));
		close(tfd);

		err = test_clock_rebind(&self->c);
		ASSERT_EQ(0, err) TH_LOG("cycle %d: binding it again: %s", cyc,
					 errname(-err));
		err = sys_clock_nanosleep(self->c.clk, 0, SEC(1), NULL);
		EXPECT_EQ(0, err) TH_LOG("cycle %d: a second's sleep on the new clock %s: %s",
					 cyc, self->c.path, errname(-err));
		if (_metadata->exit_code)
			break;
	}
	ksft_print_msg("%d unbinds and binds of %s in %.1f s\n", cyc,
		       self->c.rtc, (mono_ns() - t0) / 1e9);
}

TEST_HARNESS_MAIN
