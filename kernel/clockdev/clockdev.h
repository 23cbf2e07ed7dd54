/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal interfaces of the dynamic clock device core.
 */
#ifndef _KERNEL_CLOCKDEV_CLOCKDEV_H
#define _KERNEL_CLOCKDEV_CLOCKDEV_H

#include <linux/clockdev.h>

int clockdev_enter(struct clock_device *cd, int *idx);
void clockdev_exit(struct clock_device *cd, int idx);
struct clock_device *clockdev_from_file(struct file *fp);
struct clock_device *clockdev_get_by_serial(u32 serial);
void clockdev_for_each(void (*fn)(struct clock_device *cd));

void clockdev_timers_init(struct clock_device *cd);
void clockdev_timers_shutdown(struct clock_device *cd);
void clockdev_timers_prepare(struct clock_device *cd);
void clockdev_timers_step_begin(struct clock_device *cd);
void clockdev_timers_rate_changed(struct clock_device *cd);
void clockdev_timers_step_end(struct clock_device *cd, bool stepped, bool set,
			      s64 value, ktime_t before, u64 old);

#endif /* _KERNEL_CLOCKDEV_CLOCKDEV_H */
