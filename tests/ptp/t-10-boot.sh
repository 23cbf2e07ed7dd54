# SPDX-License-Identifier: GPL-2.0
# The kernel under test is the one asked for.
. /payload/lib.sh
rel=$(uname -r)
case $KIND in
mainline) check "boot: $KIND kernel runs ($rel)" sh -c "case $rel in *-clockdev*) false;; esac" ;;
*) check "boot: $KIND kernel runs ($rel)" sh -c "case $rel in *-clockdev*) true;; *) false;; esac" ;;
esac
