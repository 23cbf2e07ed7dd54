// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated PTP Hardware Clock
 *
 * Each instance is a device "ptp_sim<ID>" on the bus "ptp_sim" and the
 * parent of one PTP clock.  Instances come and go at run time, in the style
 * of netdevsim:
 *
 *	echo "ID [MAX_ADJ_PPB [SLEEPING_READS]]" > /sys/bus/ptp_sim/new_device
 *	echo "ID" > /sys/bus/ptp_sim/del_device
 *
 * The clock is a free-running counter derived from CLOCK_MONOTONIC_RAW:
 *
 *	time = dev_ref + (mono_now - mono_ref) * (1 + freq)
 *
 * Every frequency change re-bases (mono_ref, dev_ref) at the current time,
 * so the clock never jumps and never runs backwards across an adjfine().
 *
 * Reads take no lock: the state is published through a seqcount whose
 * writers hold a raw spinlock with interrupts off, so a clock read is valid
 * in any context but NMI, hard interrupts included, unless the instance
 * was created with SLEEPING_READS 1: then every read sleeps on purpose, as
 * a read over MDIO or I2C may (attribute "sleeping_reads" tells).
 *
 * debugfs "ptp_sim/ops" counts the driver operations called, and
 * "ptp_sim/late_ops" the ones called on an instance after its
 * ptp_clock_unregister() returned, which is a bug of the caller.  Such an
 * instance is freed at once unless the module parameter defer_free is set;
 * then it is kept until module unload, so a late operation is counted (and
 * warned about) rather than left for KASAN to find.
 *
 * Two attributes of an instance make it misbehave as hardware does, for
 * the tests of what the PTP and clockdev cores make of it:
 *
 *	echo 1 > /sys/bus/ptp_sim/devices/ptp_sim<ID>/stopped
 *	echo NS > /sys/bus/ptp_sim/devices/ptp_sim<ID>/reset
 *
 * "stopped" stops the oscillator: the clock reads the same until 0 is
 * written, as a PHC whose counter does not run (QEMU 7.2's e1000e); it can
 * still be set and stepped.  "reset" sets the clock to NS behind the PTP
 * core's back, as a NIC reset does in a driver that tells no one.
 *
 * An instance follows system sleep as a NIC does: from its suspend to its
 * resume callback the hardware is powered down (a real PHC then reads all
 * ones).  debugfs "ptp_sim/suspended_ops" counts the operations called in
 * that window, which the caller should not have made.
 *
 * Every instance has one pin, "SMA", and all the instances' pins are on
 * one simulated wire: a periodic output (PTP_PF_PEROUT, channel 0) drives
 * the wire, and every other instance whose pin is an external timestamp
 * input (PTP_PF_EXTTS, channel 0) with the channel enabled timestamps its
 * edges, rising at the period's start and falling after the on time (half
 * the period unless PTP_PEROUT_DUTY_CYCLE says otherwise).  The edges
 * happen exactly when the driving clock reads their time; each listener's
 * timestamp is its own clock's time at that instant of
 * CLOCK_MONOTONIC_RAW, so the wire has no delay and no jitter however late
 * the hrtimer that emits the edge runs.  This is what ts2phc and testptp's
 * -p and -e need: "ts2phc -s /dev/ptpA -c /dev/ptpB" locks B to A.
 */

#include <linux/atomic.h>
#include <linux/cleanup.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pm.h>
#include <linux/ptp_clock_kernel.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>

/*
 * Default frequency range: 10,000,000 ppb = 1 %, which is what the kernel's
 * selftest ptp/phc.sh dials in its "adjfreq" step.
 */
#define PTP_SIM_DEFAULT_MAX_ADJ_PPB	10000000
/*
 * Largest range accepted by new_device.  The core passes the frequency as a
 * long in scaled ppm (ppm << 16); on 32-bit machines that holds at most
 * 32,767,999 ppb.  Like ptp_mock, stay below that.
 */
#define PTP_SIM_MAX_ADJ_LIMIT_PPB	32000000
/* "ptp_sim" plus up to 8 digits and a NUL fits in 16 bytes */
#define PTP_SIM_ID_MAX			99999999
/*
 * With sleeping_reads set, a read sleeps this long: about as long as a
 * register read over MDIO or I2C, long enough to be seen by a caller that
 * should not sleep, short enough to keep phc2sys and the selftests usable.
 */
#define PTP_SIM_READ_SLEEP_MIN_US	20
#define PTP_SIM_READ_SLEEP_MAX_US	50
/*
 * Shortest period of a periodic output: each edge is an hrtimer
 * interrupt, and a guest under emulation cannot take many more.
 */
#define PTP_SIM_PEROUT_MIN_NS		(NSEC_PER_MSEC)
#define PTP_SIM_PEROUT_MAX_S		1000
/* Edges emitted at most by one late run of the output's hrtimer */
#define PTP_SIM_PEROUT_BURST		16

static bool defer_free;
module_param(defer_free, bool, 0644);
MODULE_PARM_DESC(defer_free,
		 "keep destroyed instances until module unload and count operations on them as late_ops");

/**
 * struct ptp_sim - one simulated PHC
 * @dev:	 the device "ptp_sim<ID>" on the ptp_sim bus, parent of @clock;
 *		 the structure is freed (or deferred) in its release
 * @info:	 the operations and capabilities handed to the PTP core
 * @clock:	 the registered PTP clock
 * @list:	 entry in ptp_sim_list while the instance exists, then in
 *		 ptp_sim_deferred when defer_free kept it
 * @lock:	 serialises writers of @seq and the clock state below
 * @seq:	 lets readers sample the clock state without @lock
 * @mono_ref:	 CLOCK_MONOTONIC_RAW at the last re-base, in ns
 * @dev_ref:	 clock time at @mono_ref, in ns
 * @scaled_ppm:	 frequency offset from nominal, in ppm with a 16-bit
 *		 binary fraction
 * @stopped:	 the oscillator is stopped: the clock reads @dev_ref
 *		 from @mono_ref on (sysfs attribute "stopped")
 * @sleeping_reads: every read sleeps (set at creation; sysfs attribute
 *		 "sleeping_reads" shows it)
 * @suspended:	 between the instance's suspend and resume callbacks
 * @dead:	 ptp_clock_unregister() has returned; any operation is late
 * @pin:	 the pin "SMA", its function set through the PTP core
 * @perout:	 emits the edges of the periodic output
 * @perout_on:	 the periodic output is running
 * @perout_high: the last edge emitted was a rising one
 * @perout_next: clock time of the next edge, in ns
 * @perout_period: period of the output, in ns
 * @perout_width: time from a rising edge to the next falling one, in ns
 * @perout_last: CLOCK_MONOTONIC_RAW of the last edge, in ns
 * @perout_stepped: the clock was stepped since the output last ran
 * @wire_node:	 entry in ptp_sim_wire while the external timestamp
 *		 channel is enabled
 * @extts_edges: the edges the channel timestamps (PTP_RISING_EDGE,
 *		 PTP_FALLING_EDGE)
 * @unwired:	 the instance is being destroyed: no output, no input
 *
 * The fields from @perout_on on are protected by ptp_sim_wire_lock.
 */
struct ptp_sim {
	struct device dev;
	struct ptp_clock_info info;
	struct ptp_clock *clock;
	struct list_head list;

	raw_spinlock_t lock;
	seqcount_raw_spinlock_t seq;
	u64 mono_ref;
	s64 dev_ref;
	long scaled_ppm;
	bool stopped;

	bool sleeping_reads;
	bool suspended;
	bool dead;

	struct ptp_pin_desc pin;
	struct hrtimer perout;
	bool perout_on;
	bool perout_high;
	s64 perout_next;
	s64 perout_period;
	s64 perout_width;
	u64 perout_last;
	bool perout_stepped;
	struct list_head wire_node;
	unsigned int extts_edges;
	bool unwired;
};

/*
 * A snapshot of an instance's clock state, for the wire: the edges are
 * computed from it outside the read section.
 */
struct ptp_sim_state {
	u64 mono_ref;
	s64 dev_ref;
	long scaled_ppm;
	bool stopped;
};

/* Protects ptp_sim_list and ptp_sim_exiting. */
static DEFINE_MUTEX(ptp_sim_list_lock);
static LIST_HEAD(ptp_sim_list);
static bool ptp_sim_exiting;

/* Protects ptp_sim_deferred; taken from device release, so a spinlock. */
static DEFINE_SPINLOCK(ptp_sim_deferred_lock);
static LIST_HEAD(ptp_sim_deferred);

/* Instances not yet released, plus one for the module itself. */
static refcount_t ptp_sim_devs = REFCOUNT_INIT(1);
static DECLARE_COMPLETION(ptp_sim_devs_released);

/*
 * The wire: the instances listening to it (their external timestamp
 * channel enabled), and every instance's output state.  Taken in the
 * hrtimer callback that emits an edge.
 */
static DEFINE_SPINLOCK(ptp_sim_wire_lock);
static LIST_HEAD(ptp_sim_wire);

static struct dentry *ptp_sim_debugfs;
static atomic_t ptp_sim_ops;
static atomic_t ptp_sim_late_ops;
static atomic_t ptp_sim_suspended_ops;

static struct ptp_sim *dev_to_ptp_sim(struct device *dev)
{
	return container_of(dev, struct ptp_sim, dev);
}

/**
 * ptp_sim_op() - account for one driver operation
 * @info: the clock the PTP core called us for
 *
 * Every operation starts here.  An operation on an instance whose clock
 * has been unregistered is counted in late_ops and refused; one on a
 * suspended instance is counted in suspended_ops.
 *
 * Return: the instance, or NULL if the operation came too late.
 */
static struct ptp_sim *ptp_sim_op(struct ptp_clock_info *info)
{
	struct ptp_sim *sim = container_of(info, struct ptp_sim, info);

	atomic_inc(&ptp_sim_ops);
	if (unlikely(READ_ONCE(sim->suspended)))
		atomic_inc(&ptp_sim_suspended_ops);
	if (unlikely(READ_ONCE(sim->dead))) {
		atomic_inc(&ptp_sim_late_ops);
		WARN_ONCE(1, "ptp_sim: %s: operation after ptp_clock_unregister()\n",
			  info->name);
		return NULL;
	}
	return sim;
}

/*
 * Clock time at @mono, from the state last published by a writer.  A
 * @mono older than the reference (impossible for a sample taken inside the
 * read section) counts as no time elapsed.  adjust_by_scaled_ppm() keeps
 * the product in 128 bits, so no periodic re-base is needed to avoid an
 * overflow.
 */
static s64 ptp_sim_ns_at(const struct ptp_sim *sim, u64 mono)
{
	u64 elapsed = mono > sim->mono_ref ? mono - sim->mono_ref : 0;

	if (sim->stopped)
		return sim->dev_ref;
	return sim->dev_ref + adjust_by_scaled_ppm(elapsed, sim->scaled_ppm);
}

/**
 * ptp_sim_read() - read the clock
 * @sim:  the instance
 * @snap: if not NULL, receives the system time the reading corresponds to
 *
 * The base is CLOCK_MONOTONIC_RAW, read with ktime_get_raw_ns() (or
 * ktime_get_snapshot() for a cross timestamp).  Both are lock-free seqcount
 * reads of the timekeeper, valid in hard interrupt context.  The raw clock
 * is not steered by adjtimex(), so the simulated clock behaves as its own
 * oscillator: phc2sys steering the system clock from it does not feed
 * back into it.  ktime_get() would be as safe but follows NTP;
 * ktime_get_mono_fast_ns() is NMI-safe but follows NTP too and may be seen
 * to go backwards across a timekeeper update; NMI safety would buy nothing
 * here since @sim->seq is not NMI-safe either.
 *
 * The base is sampled inside the read section, so a reader that sees the
 * state of a writer also sees a base at least as late as the writer's.
 *
 * Context: any but NMI.  Takes no lock.
 * Return: the clock time in ns.
 */
static s64 ptp_sim_read(struct ptp_sim *sim, struct system_time_snapshot *snap)
{
	unsigned int seq;
	u64 mono;
	s64 ns;

	do {
		seq = read_seqcount_begin(&sim->seq);
		if (snap) {
			ktime_get_snapshot(snap);
			mono = ktime_to_ns(snap->raw);
		} else {
			mono = ktime_get_raw_ns();
		}
		ns = ptp_sim_ns_at(sim, mono);
	} while (read_seqcount_retry(&sim->seq, seq));

	return ns;
}

/*
 * Move the reference point to now, keeping the clock time continuous, so
 * that a new frequency or offset applies from this instant on.
 */
static void ptp_sim_rebase(struct ptp_sim *sim)
{
	u64 mono;

	lockdep_assert_held(&sim->lock);

	mono = ktime_get_raw_ns();
	sim->dev_ref = ptp_sim_ns_at(sim, mono);
	sim->mono_ref = mono;
}

/* A read of a clock behind a slow bus: might_sleep() and sleep. */
static void ptp_sim_read_delay(struct ptp_sim *sim)
{
	if (!sim->sleeping_reads)
		return;

	might_sleep();
	usleep_range(PTP_SIM_READ_SLEEP_MIN_US, PTP_SIM_READ_SLEEP_MAX_US);
}

/* The clock state, consistent, for computing edges outside a read. */
static void ptp_sim_state(struct ptp_sim *sim, struct ptp_sim_state *st)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&sim->seq);
		st->mono_ref = sim->mono_ref;
		st->dev_ref = sim->dev_ref;
		st->scaled_ppm = sim->scaled_ppm;
		st->stopped = sim->stopped;
	} while (read_seqcount_retry(&sim->seq, seq));
}

/*
 * Clock time at @mono by @st, also before its reference point (as if the
 * clock had run at its present frequency then).
 */
static s64 ptp_sim_state_ns(const struct ptp_sim_state *st, u64 mono)
{
	if (mono >= st->mono_ref && st->stopped)
		return st->dev_ref;
	if (mono >= st->mono_ref)
		return st->dev_ref +
		       adjust_by_scaled_ppm(mono - st->mono_ref, st->scaled_ppm);

	return st->dev_ref -
	       adjust_by_scaled_ppm(st->mono_ref - mono, st->scaled_ppm);
}

/*
 * CLOCK_MONOTONIC_RAW at which the clock reads @ns by @st: the inverse of
 * ptp_sim_state_ns().  The frequency offset is within max_adj, far from
 * -100 %, so the rate is positive.  A stopped clock never reaches a time
 * past the one it stopped at: U64_MAX.
 */
static u64 ptp_sim_state_mono(const struct ptp_sim_state *st, s64 ns)
{
	const u64 one = 1000000ULL << 16;
	u64 rate = one + st->scaled_ppm;
	u64 d;

	if (st->stopped && ns > st->dev_ref)
		return U64_MAX;

	if (ns >= st->dev_ref)
		return st->mono_ref +
		       mul_u64_u64_div_u64((u64)ns - (u64)st->dev_ref, one, rate);

	d = mul_u64_u64_div_u64((u64)st->dev_ref - (u64)ns, one, rate);

	return d < st->mono_ref ? st->mono_ref - d : 0;
}

/*
 * An edge on the wire at @mono: every instance listening for that edge,
 * but the one driving it, timestamps it with its own time at @mono.
 */
static void ptp_sim_wire_edge(struct ptp_sim *src, u64 mono, bool rising)
{
	unsigned int edge = rising ? PTP_RISING_EDGE : PTP_FALLING_EDGE;
	struct ptp_clock_event event = { .type = PTP_CLOCK_EXTTS };
	struct ptp_sim_state st;
	struct ptp_sim *sim;
	s64 ns;

	lockdep_assert_held(&ptp_sim_wire_lock);

	list_for_each_entry(sim, &ptp_sim_wire, wire_node) {
		if (sim == src || !(sim->extts_edges & edge))
			continue;
		ptp_sim_state(sim, &st);
		ns = ptp_sim_state_ns(&st, mono);
		if (ns < 0)
			continue;
		event.timestamp = ns;
		ptp_clock_event(sim->clock, &event);
	}
}

/*
 * The periodic output: emit the edges the clock has reached, then sleep
 * until the next one.  The hrtimer runs on CLOCK_MONOTONIC, which may run
 * at another rate than the clock; waking early is harmless (nothing is
 * due), waking late delays the events but not their timestamps.
 *
 * The output keeps its phase in the clock's own time across steps: a step
 * forward over edges emits one of them, at the instant of the step, as a
 * comparator would, and loses the others; after a step back the output
 * waits for the next edge in phase, within a period.  A frequency change
 * or a step restarts the hrtimer through ptp_sim_perout_kick().
 */
static enum hrtimer_restart ptp_sim_perout_edge(struct hrtimer *timer)
{
	struct ptp_sim *sim = container_of(timer, struct ptp_sim, perout);
	struct ptp_sim_state st;
	u64 now, mono;
	s64 ns, period;
	int n;

	guard(spinlock_irqsave)(&ptp_sim_wire_lock);
	/* Stopped, or restarted by a kick while this callback waited. */
	if (!sim->perout_on || hrtimer_is_queued(timer))
		return HRTIMER_NORESTART;

	ptp_sim_state(sim, &st);
	now = ktime_get_raw_ns();
	ns = ptp_sim_state_ns(&st, now);
	period = sim->perout_period;

	for (n = 0; n < PTP_SIM_PEROUT_BURST && ns >= sim->perout_next; n++) {
		mono = ptp_sim_state_mono(&st, sim->perout_next);
		/* A step re-based the clock at the instant it happened. */
		if (sim->perout_stepped)
			mono = max(mono, st.mono_ref);
		mono = clamp(mono, sim->perout_last, now);
		sim->perout_high = !sim->perout_high;
		ptp_sim_wire_edge(sim, mono, sim->perout_high);
		sim->perout_last = mono;
		sim->perout_next += sim->perout_high ? sim->perout_width :
				    period - sim->perout_width;
		if (sim->perout_stepped)
			break;
	}
	sim->perout_stepped = false;

	if (sim->perout_next <= ns)
		sim->perout_next += (div64_u64(ns - sim->perout_next, period) + 1) *
				    period;
	else if (sim->perout_next - ns > period)
		sim->perout_next -= div64_u64(sim->perout_next - ns - 1, period) *
				    period;

	/* A stopped clock reaches no edge: "stopped" kicks the output again. */
	if (st.stopped)
		return HRTIMER_NORESTART;
	mono = ptp_sim_state_mono(&st, sim->perout_next);
	hrtimer_set_expires(timer, ktime_add_ns(ktime_get(),
						mono > now ? mono - now : 0));

	return HRTIMER_RESTART;
}

/*
 * The clock's rate or time changed: the output's hrtimer was armed for
 * the old one.  Run it now; it works out the next edge again.
 */
static void ptp_sim_perout_kick(struct ptp_sim *sim, bool stepped)
{
	guard(spinlock_irqsave)(&ptp_sim_wire_lock);
	if (!sim->perout_on)
		return;
	sim->perout_stepped |= stepped;
	hrtimer_start(&sim->perout, 0, HRTIMER_MODE_REL);
}

static int ptp_sim_perout(struct ptp_sim *sim, struct ptp_perout_request *rq,
			  int on)
{
	struct ptp_sim_state st;
	s64 period, width, start, now;

	if (rq->flags & ~(PTP_PEROUT_DUTY_CYCLE | PTP_PEROUT_PHASE))
		return -EOPNOTSUPP;

	/* Stop the output first, so that its callback is not running. */
	scoped_guard(spinlock_irqsave, &ptp_sim_wire_lock)
		sim->perout_on = false;
	hrtimer_cancel(&sim->perout);
	if (!on)
		return 0;

	if (ptp_find_pin(sim->clock, PTP_PF_PEROUT, 0) < 0)
		return -EBUSY;

	if (rq->period.sec < 0 || rq->period.sec > PTP_SIM_PEROUT_MAX_S ||
	    rq->period.nsec >= NSEC_PER_SEC)
		return -EINVAL;
	period = rq->period.sec * NSEC_PER_SEC + rq->period.nsec;
	if (period < PTP_SIM_PEROUT_MIN_NS)
		return -EINVAL;

	width = period / 2;
	if (rq->flags & PTP_PEROUT_DUTY_CYCLE) {
		if (rq->on.sec < 0 || rq->on.sec > PTP_SIM_PEROUT_MAX_S ||
		    rq->on.nsec >= NSEC_PER_SEC)
			return -EINVAL;
		width = rq->on.sec * NSEC_PER_SEC + rq->on.nsec;
		if (width <= 0 || width >= period)
			return -ERANGE;
	}

	ptp_sim_state(sim, &st);
	now = ptp_sim_state_ns(&st, ktime_get_raw_ns());
	if (rq->flags & PTP_PEROUT_PHASE) {
		/* The edges are at the multiples of the period, plus the phase. */
		if (rq->phase.sec < 0 || rq->phase.sec > PTP_SIM_PEROUT_MAX_S ||
		    rq->phase.nsec >= NSEC_PER_SEC)
			return -EINVAL;
		start = rq->phase.sec * NSEC_PER_SEC + rq->phase.nsec;
		start += (div64_s64(now - start, period) + 1) * period;
	} else {
		if (rq->start.sec < 0 || rq->start.sec >= KTIME_SEC_MAX ||
		    rq->start.nsec >= NSEC_PER_SEC)
			return -EINVAL;
		start = rq->start.sec * NSEC_PER_SEC + rq->start.nsec;
		/* A start in the past: the output runs in its phase from now. */
		if (start < now)
			start += (div64_u64(now - start, period) + 1) * period;
	}

	guard(spinlock_irqsave)(&ptp_sim_wire_lock);
	if (sim->unwired)
		return -ENODEV;
	sim->perout_next = start;
	sim->perout_period = period;
	sim->perout_width = width;
	sim->perout_high = false;
	sim->perout_stepped = false;
	sim->perout_last = 0;
	sim->perout_on = true;
	hrtimer_start(&sim->perout, 0, HRTIMER_MODE_REL);

	return 0;
}

static int ptp_sim_extts(struct ptp_sim *sim, struct ptp_extts_request *rq,
			 int on)
{
	if (on && ptp_find_pin(sim->clock, PTP_PF_EXTTS, 0) < 0)
		return -EBUSY;

	guard(spinlock_irqsave)(&ptp_sim_wire_lock);
	list_del_init(&sim->wire_node);
	sim->extts_edges = 0;
	if (!on)
		return 0;
	if (sim->unwired)
		return -ENODEV;
	/* A request of the first version names no edge: the rising one. */
	sim->extts_edges = (rq->flags & PTP_EXTTS_EDGES) ?: PTP_RISING_EDGE;
	list_add_tail(&sim->wire_node, &ptp_sim_wire);

	return 0;
}

/*
 * Called by the PTP core with its pincfg_mux held, which serialises the
 * requests and lets ptp_find_pin() look at the pin.
 */
static int ptp_sim_enable(struct ptp_clock_info *info,
			  struct ptp_clock_request *rq, int on)
{
	struct ptp_sim *sim = ptp_sim_op(info);

	if (!sim)
		return -ENODEV;

	switch (rq->type) {
	case PTP_CLK_REQ_EXTTS:
		return ptp_sim_extts(sim, &rq->extts, on);
	case PTP_CLK_REQ_PEROUT:
		return ptp_sim_perout(sim, &rq->perout, on);
	default:
		return -EOPNOTSUPP;
	}
}

static int ptp_sim_verify(struct ptp_clock_info *info, unsigned int pin,
			  enum ptp_pin_function func, unsigned int chan)
{
	if (!ptp_sim_op(info))
		return -ENODEV;

	switch (func) {
	case PTP_PF_NONE:
	case PTP_PF_EXTTS:
	case PTP_PF_PEROUT:
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int ptp_sim_adjfine(struct ptp_clock_info *info, long scaled_ppm)
{
	struct ptp_sim *sim = ptp_sim_op(info);

	if (!sim)
		return -ENODEV;

	scoped_guard(raw_spinlock_irqsave, &sim->lock) {
		write_seqcount_begin(&sim->seq);
		ptp_sim_rebase(sim);
		sim->scaled_ppm = scaled_ppm;
		write_seqcount_end(&sim->seq);
	}
	ptp_sim_perout_kick(sim, false);

	return 0;
}

static int ptp_sim_adjtime(struct ptp_clock_info *info, s64 delta)
{
	struct ptp_sim *sim = ptp_sim_op(info);

	if (!sim)
		return -ENODEV;

	scoped_guard(raw_spinlock_irqsave, &sim->lock) {
		write_seqcount_begin(&sim->seq);
		ptp_sim_rebase(sim);
		sim->dev_ref += delta;
		write_seqcount_end(&sim->seq);
	}
	ptp_sim_perout_kick(sim, true);

	return 0;
}

/* Load the counter with @ns: by clock_settime(), or by a reset. */
static void ptp_sim_load(struct ptp_sim *sim, s64 ns)
{
	scoped_guard(raw_spinlock_irqsave, &sim->lock) {
		write_seqcount_begin(&sim->seq);
		sim->mono_ref = ktime_get_raw_ns();
		sim->dev_ref = ns;
		write_seqcount_end(&sim->seq);
	}
	ptp_sim_perout_kick(sim, true);
}

static int ptp_sim_settime64(struct ptp_clock_info *info,
			     const struct timespec64 *ts)
{
	struct ptp_sim *sim = ptp_sim_op(info);

	if (!sim)
		return -ENODEV;

	ptp_sim_load(sim, timespec64_to_ns(ts));

	return 0;
}

static int ptp_sim_gettimex64(struct ptp_clock_info *info,
			      struct timespec64 *ts,
			      struct ptp_system_timestamp *sts)
{
	struct ptp_sim *sim = ptp_sim_op(info);
	s64 ns;

	if (!sim)
		return -ENODEV;

	ptp_sim_read_delay(sim);
	ptp_read_system_prets(sts);
	ns = ptp_sim_read(sim, NULL);
	ptp_read_system_postts(sts);
	*ts = ns_to_timespec64(ns);

	return 0;
}

/*
 * The clock is a function of CLOCK_MONOTONIC_RAW, so the cross timestamp
 * is exact: the device time is computed from the raw time of the snapshot.
 */
static int ptp_sim_getcrosststamp(struct ptp_clock_info *info,
				  struct system_device_crosststamp *cts)
{
	struct ptp_sim *sim = ptp_sim_op(info);
	struct system_time_snapshot snap;
	s64 ns;

	if (!sim)
		return -ENODEV;

	ptp_sim_read_delay(sim);
	ns = ptp_sim_read(sim, &snap);
	cts->device = ns_to_ktime(ns);
	cts->sys_realtime = snap.real;
	cts->sys_monoraw = snap.raw;

	return 0;
}

static const struct ptp_clock_info ptp_sim_info = {
	.owner		= THIS_MODULE,
	.adjfine	= ptp_sim_adjfine,
	.adjtime	= ptp_sim_adjtime,
	.settime64	= ptp_sim_settime64,
	.gettimex64	= ptp_sim_gettimex64,
	.getcrosststamp	= ptp_sim_getcrosststamp,
	.enable		= ptp_sim_enable,
	.verify		= ptp_sim_verify,
	.n_ext_ts	= 1,
	.n_per_out	= 1,
	.n_pins		= 1,
};

static ssize_t sleeping_reads_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", dev_to_ptp_sim(dev)->sleeping_reads);
}
static DEVICE_ATTR_RO(sleeping_reads);

static ssize_t stopped_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(dev_to_ptp_sim(dev)->stopped));
}

/*
 * Stop or start the oscillator.  The clock keeps the time it reads at the
 * instant, and its frequency; the periodic output waits while it stands.
 */
static ssize_t stopped_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	struct ptp_sim *sim = dev_to_ptp_sim(dev);
	bool stop;
	int err;

	err = kstrtobool(buf, &stop);
	if (err)
		return err;
	if (READ_ONCE(sim->dead))
		return -ENODEV;

	scoped_guard(raw_spinlock_irqsave, &sim->lock) {
		write_seqcount_begin(&sim->seq);
		ptp_sim_rebase(sim);
		sim->stopped = stop;
		write_seqcount_end(&sim->seq);
	}
	ptp_sim_perout_kick(sim, false);

	return count;
}
static DEVICE_ATTR_RW(stopped);

/*
 * The hardware is reset and its counter loaded with the time written, in
 * ns: the clock is set without a call from the PTP core, which is not
 * told.
 */
static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct ptp_sim *sim = dev_to_ptp_sim(dev);
	s64 ns;
	int err;

	err = kstrtos64(buf, 0, &ns);
	if (err)
		return err;
	if (ns < 0)
		return -ERANGE;
	if (READ_ONCE(sim->dead))
		return -ENODEV;

	ptp_sim_load(sim, ns);

	return count;
}
static DEVICE_ATTR_WO(reset);

static struct attribute *ptp_sim_dev_attrs[] = {
	&dev_attr_sleeping_reads.attr,
	&dev_attr_stopped.attr,
	&dev_attr_reset.attr,
	NULL
};
ATTRIBUTE_GROUPS(ptp_sim_dev);

/*
 * Last reference to an instance gone: free it, or with defer_free keep a
 * destroyed one so that late operations on it hit valid memory.
 */
static void ptp_sim_dev_release(struct device *dev)
{
	struct ptp_sim *sim = dev_to_ptp_sim(dev);

	if (READ_ONCE(defer_free) && sim->dead) {
		spin_lock(&ptp_sim_deferred_lock);
		list_add_tail(&sim->list, &ptp_sim_deferred);
		spin_unlock(&ptp_sim_deferred_lock);
	} else {
		kfree(sim);
	}

	if (refcount_dec_and_test(&ptp_sim_devs))
		complete(&ptp_sim_devs_released);
}

static int ptp_sim_suspend(struct device *dev)
{
	WRITE_ONCE(dev_to_ptp_sim(dev)->suspended, true);
	return 0;
}

static int ptp_sim_resume(struct device *dev)
{
	WRITE_ONCE(dev_to_ptp_sim(dev)->suspended, false);
	return 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(ptp_sim_pm_ops, ptp_sim_suspend,
				ptp_sim_resume);

static const struct device_type ptp_sim_dev_type = {
	.groups		= ptp_sim_dev_groups,
	.pm		= pm_sleep_ptr(&ptp_sim_pm_ops),
	.release	= ptp_sim_dev_release,
};

static const struct bus_type ptp_sim_bus;

/**
 * ptp_sim_create() - create an instance and register its clock
 * @id:      instance number, unique on the bus
 * @max_adj: frequency range of the clock, in ppb
 *
 * Context: process context, ptp_sim_list_lock held.
 * Return: the new instance, or an ERR_PTR().
 */
static struct ptp_sim *ptp_sim_create(unsigned int id, s32 max_adj,
				      bool sleeping_reads)
{
	struct ptp_sim *sim;
	int err;

	lockdep_assert_held(&ptp_sim_list_lock);

	sim = kzalloc(sizeof(*sim), GFP_KERNEL);
	if (!sim)
		return ERR_PTR(-ENOMEM);

	raw_spin_lock_init(&sim->lock);
	seqcount_raw_spinlock_init(&sim->seq, &sim->lock);
	sim->mono_ref = ktime_get_raw_ns();

	sim->info = ptp_sim_info;
	sim->info.max_adj = max_adj;
	sim->sleeping_reads = sleeping_reads;
	sim->info.atomic_gettime = !sleeping_reads;
	strscpy(sim->pin.name, "SMA");
	sim->info.pin_config = &sim->pin;
	hrtimer_init(&sim->perout, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	sim->perout.function = ptp_sim_perout_edge;
	INIT_LIST_HEAD(&sim->wire_node);
	snprintf(sim->info.name, sizeof(sim->info.name), "ptp_sim%u", id);

	/* From here on the device owns @sim: its release frees it. */
	refcount_inc(&ptp_sim_devs);
	sim->dev.bus = &ptp_sim_bus;
	sim->dev.type = &ptp_sim_dev_type;
	sim->dev.id = id;
	device_initialize(&sim->dev);
	err = device_add(&sim->dev);
	if (err)
		goto out_put_dev;

	sim->clock = ptp_clock_register(&sim->info, &sim->dev);
	if (IS_ERR(sim->clock)) {
		err = PTR_ERR(sim->clock);
		goto out_del_dev;
	}

	return sim;

out_del_dev:
	device_del(&sim->dev);
out_put_dev:
	put_device(&sim->dev);
	return ERR_PTR(err);
}

/**
 * ptp_sim_destroy() - unregister an instance's clock and delete it
 * @sim: the instance
 *
 * Open files of the clock stay valid: the PTP core keeps its ptp_clock
 * until the last close, and calls no operation once
 * ptp_clock_unregister() has returned.
 *
 * Context: process context, ptp_sim_list_lock held.
 */
static void ptp_sim_destroy(struct ptp_sim *sim)
{
	lockdep_assert_held(&ptp_sim_list_lock);

	list_del(&sim->list);
	/* Off the wire first: nobody delivers an edge to the clock any more. */
	scoped_guard(spinlock_irqsave, &ptp_sim_wire_lock) {
		sim->unwired = true;
		sim->perout_on = false;
		list_del_init(&sim->wire_node);
	}
	hrtimer_cancel(&sim->perout);
	ptp_clock_unregister(sim->clock);
	WRITE_ONCE(sim->dead, true);
	device_unregister(&sim->dev);
}

static struct ptp_sim *ptp_sim_find(unsigned int id)
{
	struct ptp_sim *sim;

	lockdep_assert_held(&ptp_sim_list_lock);

	list_for_each_entry(sim, &ptp_sim_list, list)
		if (sim->dev.id == id)
			return sim;

	return NULL;
}

static ssize_t new_device_store(const struct bus_type *bus, const char *buf,
				size_t count)
{
	unsigned int id, max_adj = PTP_SIM_DEFAULT_MAX_ADJ_PPB, sleeping = 0;
	struct ptp_sim *sim;

	if (sscanf(buf, "%u %u %u", &id, &max_adj, &sleeping) < 1 ||
	    id > PTP_SIM_ID_MAX || max_adj > PTP_SIM_MAX_ADJ_LIMIT_PPB ||
	    sleeping > 1) {
		pr_err("ptp_sim: new_device takes \"ID [MAX_ADJ_PPB [SLEEPING_READS]]\", ID <= %u, MAX_ADJ_PPB <= %u, SLEEPING_READS 0 or 1\n",
		       PTP_SIM_ID_MAX, PTP_SIM_MAX_ADJ_LIMIT_PPB);
		return -EINVAL;
	}

	guard(mutex)(&ptp_sim_list_lock);
	if (ptp_sim_exiting)
		return -EBUSY;
	if (ptp_sim_find(id))
		return -EEXIST;

	sim = ptp_sim_create(id, max_adj, sleeping);
	if (IS_ERR(sim))
		return PTR_ERR(sim);
	list_add_tail(&sim->list, &ptp_sim_list);

	return count;
}
static BUS_ATTR_WO(new_device);

static ssize_t del_device_store(const struct bus_type *bus, const char *buf,
				size_t count)
{
	struct ptp_sim *sim;
	unsigned int id;
	int err;

	err = kstrtouint(buf, 10, &id);
	if (err) {
		pr_err("ptp_sim: del_device takes \"ID\"\n");
		return err;
	}

	guard(mutex)(&ptp_sim_list_lock);
	if (ptp_sim_exiting)
		return -EBUSY;
	sim = ptp_sim_find(id);
	if (!sim)
		return -ENOENT;
	ptp_sim_destroy(sim);

	return count;
}
static BUS_ATTR_WO(del_device);

static struct attribute *ptp_sim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL
};
ATTRIBUTE_GROUPS(ptp_sim_bus);

static const struct bus_type ptp_sim_bus = {
	.name		= "ptp_sim",
	.dev_name	= "ptp_sim",
	.bus_groups	= ptp_sim_bus_groups,
};

static int __init ptp_sim_init(void)
{
	int err;

	err = bus_register(&ptp_sim_bus);
	if (err)
		return err;

	ptp_sim_debugfs = debugfs_create_dir("ptp_sim", NULL);
	debugfs_create_atomic_t("ops", 0444, ptp_sim_debugfs, &ptp_sim_ops);
	debugfs_create_atomic_t("late_ops", 0444, ptp_sim_debugfs,
				&ptp_sim_late_ops);
	debugfs_create_atomic_t("suspended_ops", 0444, ptp_sim_debugfs,
				&ptp_sim_suspended_ops);

	return 0;
}

static void __exit ptp_sim_exit(void)
{
	struct ptp_sim *sim, *tmp;

	scoped_guard(mutex, &ptp_sim_list_lock) {
		ptp_sim_exiting = true;
		list_for_each_entry_safe(sim, tmp, &ptp_sim_list, list)
			ptp_sim_destroy(sim);
	}

	if (!refcount_dec_and_test(&ptp_sim_devs))
		wait_for_completion(&ptp_sim_devs_released);

	/* All releases have run: nobody else touches the deferred list. */
	list_for_each_entry_safe(sim, tmp, &ptp_sim_deferred, list)
		kfree(sim);

	bus_unregister(&ptp_sim_bus);
	debugfs_remove(ptp_sim_debugfs);
}

module_init(ptp_sim_init);
module_exit(ptp_sim_exit);

MODULE_DESCRIPTION("Simulated PTP Hardware Clock");
MODULE_LICENSE("GPL");
