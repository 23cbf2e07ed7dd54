# SPDX-License-Identifier: GPL-2.0
# The kernel under test is the one the host built and asked for: its
# release string is the one the build recorded (scripts/suite.sh passes it
# as EXPECT_RELEASE).
. /payload/lib.sh
rel=$(uname -r)
check "boot: the kernel runs ($rel, expected ${EXPECT_RELEASE:-unset})" \
	test "$rel" = "${EXPECT_RELEASE:-}"
