# SPDX-License-Identifier: GPL-2.0
# t-42's trinity runs, as nobody then as root, each of 150,000 calls (about
# 30 min each on the patched kernel under TCG: trinity's children wait in
# most of its calls), or of 60,000 on the debug kernel ($SUBSET; 35 calls
# a second under KASAN and lockdep: about an hour for both).
. /payload/lib.sh
if [ -n "${SUBSET:-}" ]; then
	export TRINITY_CALLS=${TRINITY_CALLS:-60000}
else
	export TRINITY_CALLS=${TRINITY_CALLS:-150000}
fi
. /payload/t-42-trinity.sh
