# SPDX-License-Identifier: GPL-2.0
# t-42's trinity runs, each of 150,000 calls (about 30 min each on the
# patched kernel under TCG: trinity's children wait in most of its calls).
. /payload/lib.sh
export TRINITY_CALLS=${TRINITY_CALLS:-150000}
. /payload/t-42-trinity.sh
