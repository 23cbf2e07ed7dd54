/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal interfaces of the dynamic clock device core.
 */
#ifndef _KERNEL_CLOCKDEV_CLOCKDEV_H
#define _KERNEL_CLOCKDEV_CLOCKDEV_H

#include <linux/clockdev.h>
#include <linux/fs.h>

int clockdev_enter(struct clock_device *cd, int *idx);
void clockdev_exit(struct clock_device *cd, int idx);
struct clock_device *clockdev_get_by_serial(u32 serial);
void clockdev_for_each(void (*fn)(struct clock_device *cd));

extern const struct file_operations clockdev_fops;

/**
 * clockdev_from_file() - the clock behind a file, if it is a clock's file
 * @fp: Any file.
 *
 * Inline: every system call on a clockid starts here.
 *
 * Return: the clock, or NULL when @fp is not an open clock device.  The
 * clock stays allocated as long as the caller holds @fp.
 */
static inline struct clock_device *clockdev_from_file(struct file *fp)
{
	struct clock_device_context *ctx;

	if (fp->f_op != &clockdev_fops)
		return NULL;
	ctx = fp->private_data;

	return ctx ? ctx->cd : NULL;
}

void clockdev_timers_init(struct clock_device *cd);
void clockdev_timers_shutdown(struct clock_device *cd);
void clockdev_timers_prepare(struct clock_device *cd);
void clockdev_timers_step_begin(struct clock_device *cd);
void clockdev_timers_rate_changed(struct clock_device *cd);
void clockdev_timers_step_end(struct clock_device *cd, bool stepped, bool set,
			      s64 value, ktime_t before, u64 old);

#endif /* _KERNEL_CLOCKDEV_CLOCKDEV_H */
