#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench-sizes.sh [KIND]: the sizes of clockdev's structures in the built
# kernel KIND (default patched), as "bench<TAB>ROW<TAB>BYTES<TAB>bytes"
# lines: compiled on the host with the exact command kbuild used for
# kernel/clockdev/core.o (its .cmd file), the asm-offsets way, so the
# figures are those of that kernel's config and compiler.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:-patched}
obj=$CACHE/build/$kind
cmdf=$obj/kernel/clockdev/.core.o.cmd
[ -f "$cmdf" ] || die "no $cmdf: build the $kind kernel first (make kernels)"
tmp=$(mktemp -d /tmp/clockdev-sizes.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/sizes.c" <<'C'
#include <linux/kbuild.h>
#include <linux/clockdev.h>
#include <linux/clockdev_timer.h>
#include <linux/posix-timers.h>
#include <linux/srcu.h>

void clockdev_sizes(void);
void clockdev_sizes(void)
{
	DEFINE(clock_device, sizeof(struct clock_device));
	DEFINE(clockdev_timer_base, sizeof(struct clockdev_timer_base));
	DEFINE(srcu_struct, sizeof(struct srcu_struct));
	DEFINE(srcu_usage, sizeof(struct srcu_usage));
	DEFINE(srcu_data, sizeof(struct srcu_data));
	DEFINE(clockdev_timer, sizeof(struct clockdev_timer));
	DEFINE(k_itimer, sizeof(struct k_itimer));
	DEFINE(clock_device_context, sizeof(struct clock_device_context));
}
C
# "cmd_kernel/clockdev/core.o := CC ... -c -o kernel/clockdev/core.o SRC":
# the same command, compiling sizes.c to assembly.
cmd=$(sed -n 's/^savedcmd_[^ ]* := //p; s/^cmd_[^ ]* := //p' "$cmdf" | head -1)
[ -n "$cmd" ] || die "cannot read the compile command in $cmdf"
cmd=${cmd%% -c -o *}
# Without kbuild's dependency file, which must stay the build's own.
cmd=$(printf '%s\n' "$cmd" | sed 's/-Wp,-MMD,[^ ]*//')
(cd "$obj" && eval "$cmd -S -o $tmp/sizes.s $tmp/sizes.c") ||
	die "compiling the sizes failed"
sed -n 's/.*->\([a-z_]*\) \$\{0,1\}\([0-9]*\) .*/\1 \2/p' "$tmp/sizes.s" |
while read -r name bytes; do
	printf 'bench\tsizeof(struct %s)\t%s\tbytes\n' "$name" "$bytes"
done
