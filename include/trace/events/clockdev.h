/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM clockdev

#if !defined(_TRACE_CLOCKDEV_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_CLOCKDEV_H

#include <linux/clockdev.h>
#include <linux/tracepoint.h>

/**
 * clockdev_timer_read - the timer worker read a clock
 * @cd:        The clock.
 * @boot:      Boot time just before the read.
 * @dev:       The device time read (ns); meaningless when @err is set.
 * @predicted: What the core's mapping predicted for @boot, 0 when it had
 *             no mapping yet: the prediction's error is @dev - @predicted.
 * @err:       The driver's result.
 */
TRACE_EVENT(clockdev_timer_read,
	    TP_PROTO(struct clock_device *cd, ktime_t boot, u64 dev,
		     u64 predicted, int err),
	    TP_ARGS(cd, boot, dev, predicted, err),
	    TP_STRUCT__entry(__string(clock, dev_name(&cd->dev))
			     __field(s64, boot)
			     __field(u64, dev)
			     __field(u64, predicted)
			     __field(int, err)),
	    TP_fast_assign(__assign_str(clock);
			   __entry->boot = ktime_to_ns(boot);
			   __entry->dev = dev;
			   __entry->predicted = predicted;
			   __entry->err = err;),
	    TP_printk("clock=%s boot=%lld dev=%llu predicted=%llu err=%d",
		      __get_str(clock), __entry->boot, __entry->dev,
		      __entry->predicted, __entry->err)
);

/**
 * clockdev_timer_expire - the core decided that a timer expired
 * @cd:      The clock.
 * @expires: The timer's expiry, device time (ns).
 * @now:     The device time read that decided it: never below @expires.
 */
TRACE_EVENT(clockdev_timer_expire,
	    TP_PROTO(struct clock_device *cd, u64 expires, u64 now),
	    TP_ARGS(cd, expires, now),
	    TP_STRUCT__entry(__string(clock, dev_name(&cd->dev))
			     __field(u64, expires)
			     __field(u64, now)),
	    TP_fast_assign(__assign_str(clock);
			   __entry->expires = expires;
			   __entry->now = now;),
	    TP_printk("clock=%s expires=%llu now=%llu late=%lld",
		      __get_str(clock), __entry->expires, __entry->now,
		      (s64)(__entry->now - __entry->expires))
);

#endif /* _TRACE_CLOCKDEV_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
