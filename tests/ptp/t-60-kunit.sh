# SPDX-License-Identifier: GPL-2.0
# The clockdev core's KUnit suite, loaded as a module (it opens device
# nodes, so it runs after devtmpfs is mounted).  Each KUnit case counts.
. /payload/lib.sh
if [ -z "$(find /lib/modules/"$(uname -r)" -name 'clockdev_test.ko*' 2>/dev/null)" ]; then
	echo "ok - kunit: clockdev # SKIP no module clockdev_test: this kernel has no clockdev layer"
	exit 0
fi
if ! modprobe clockdev_test 2>/tmp/kunit.err; then
	echo "not ok - kunit: clockdev: modprobe clockdev_test"
	sed 's/^/  /' /tmp/kunit.err
	exit 0
fi
results=/sys/kernel/debug/kunit/clockdev/results
if [ ! -r $results ]; then
	echo "not ok - kunit: clockdev: results in debugfs"
	exit 0
fi
cat $results
# Indented lines are the cases; the unindented one is the suite.  The
# results of a parameterised case are indented further, under their own
# "# Subtest: CASE" line: they are named "CASE: PARAMETER".
awk '
function indent() { return match($0, /[^[:space:]]/) }
/^[[:space:]]+# Subtest: / { name[indent()] = $NF; next }
/^[[:space:]]+(not ok|ok) [0-9]+ / {
	i = indent(); line = substr($0, i)
	res = line ~ /^not ok/ ? "not ok" : "ok"
	sub(/^(not ok|ok) [0-9]+ /, "", line)
	pre = (i in name) && name[i] != "clockdev" ? name[i] ": " : ""
	print res " - kunit: clockdev: " pre line
}' $results
rmmod clockdev_test
