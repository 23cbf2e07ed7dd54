#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build-kernel.sh KIND: build the guest kernel KIND (mainline, patched,
# debug, rt, mainline-debug) from tinyconfig plus the fragments in qemu/config.
# KIND dev and dev-debug build the developer's own tree, $DEV (a worktree
# of the series branch, README.md: 'Changing the series'), as patched and
# debug are built.
# Incremental: with nothing changed, make rebuilds nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: build-kernel.sh mainline|patched|debug|rt|mainline-debug|dev|dev-debug}
case $kind in
mainline)       src=$TREE;          frags=(base) ;;
mainline-debug) src=$TREE;          frags=(base debug) ;;
patched)        src=$CACHE/patched; frags=(base clockdev) ;;
debug)          src=$CACHE/patched; frags=(base clockdev debug) ;;
rt)             src=$CACHE/patched; frags=(base clockdev rt) ;;
dev)            src=$DEV;           frags=(base clockdev) ;;
dev-debug)      src=$DEV;           frags=(base clockdev debug) ;;
*) die "unknown kernel '$kind'" ;;
esac
[ -f "$src/Makefile" ] || die "no source tree at $src: run 'make tree' (and 'make series' for $kind)"
need_cmd ccache ccache
need_cmd flex flex
need_cmd bison bison
need_cmd bc bc

obj=$(build_dir "$src" "$kind")
# One build per directory at a time: two makes in one O= corrupt it.
exec 9>"$obj/.lock"
flock 9
# The compiler wrapper lives at a fixed path outside the checkout: kbuild
# rebuilds everything when the compiler's command changes, and every clone
# of the repository would otherwise name another one.
kcc=$CACHE/bin/kcc
mkdir -p "$CACHE/bin"
cmp -s "$top/scripts/kcc" "$kcc" 2>/dev/null || install -m 755 "$top/scripts/kcc" "$kcc"
kmake() { make -s -C "$src" O="$obj" CC="$kcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"; }

# Regenerate .config only when a fragment changed, so that an unchanged
# configuration keeps its timestamp and the build stays incremental.
cfgs=()
for f in "${frags[@]}"; do cfgs+=("$top/qemu/config/$f.config"); done
stamp=$obj/.clockdev-config
want=$(cat "${cfgs[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	log "configuring $kind"
	kmake tinyconfig >/dev/null
	KCONFIG_CONFIG=$obj/.config "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "${cfgs[@]}" >/dev/null
	kmake olddefconfig >/dev/null
	# Check the final .config, not the fragment: report options that did
	# not stick.  A later fragment overrides an earlier one (debug makes
	# PTP a module): check each option's last setting.
	missing=0
	declare -A want_opt=()
	while IFS= read -r line; do
		case $line in CONFIG_*=*) want_opt[${line%%=*}]=$line ;; esac
	done < <(cat "${cfgs[@]}" | grep -v '^#')
	for line in "${want_opt[@]}"; do
		case $line in CONFIG_*=n) opt=${line%%=*}
			grep -q "^$opt=" "$obj/.config" && { log "$opt still set"; missing=1; } ;;
		*) grep -qx "$line" "$obj/.config" || { log "$line did not stick"; missing=1; } ;;
		esac
	done
	[ $missing = 0 ] || die "configuration of $kind is incomplete"
	echo "$want" > "$stamp"
fi
log "building $kind"
kmake bzImage modules
kmake headers_install >/dev/null
rm -rf "$obj/modroot"
kmake INSTALL_MOD_PATH="$obj/modroot" INSTALL_MOD_STRIP=1 modules_install >/dev/null
kmake -s kernelrelease > "$obj/kernelrelease"
log "$kind: $(cat "$obj/kernelrelease") ready"
