# Shared by the sweep tests (sourced; not a test itself).
# The process that measures for a `pqtls sweep` started as PID: its child that leads a
# session of its own (the sweep measures there when that raises the endpoints' group,
# docs/sweep.md), else PID itself. A cell's server is a child of that process.
sweep_measurer() {
	local c
	for c in $(pgrep -P "$1" -x pqtls); do
		[ "$(ps -o sess= -p "$c" | tr -d ' ')" = "$c" ] && { echo "$c"; return; }
	done
	echo "$1"
}
