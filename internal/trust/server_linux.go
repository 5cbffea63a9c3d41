//go:build linux

package trust

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// VerifyServer checks, for the human's CLI, that the process serving a
// control socket is a console and not something an agent put in its place
// (an agent runs as the same user and can rename the socket and listen on
// its path, then show the human a false inbox and turn their approval
// towards another request). The server must run in the CLI's own user
// namespace, descend from no teamlead process (a console is never started
// inside an agent) and run a teamlead executable. Called from inside an
// agent, where the console is in the parent namespace, it checks nothing:
// the console refuses an agent the human's operations anyway.
func VerifyServer(c *net.UnixConn) error {
	if InsideAgent() != "" {
		return nil
	}
	pid, pidfd := peer(c)
	if pidfd >= 0 {
		defer unix.Close(pidfd)
	}
	if pid <= 0 {
		return fmt.Errorf("the process serving the control socket is not visible here (another PID namespace): it is not a console of yours")
	}
	who := fmt.Sprintf("pid %d (%s)", pid, cmdline(pid))
	own, _ := os.Readlink("/proc/self/ns/user")
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/user", pid))
	if err != nil || own == "" || ns != own {
		return fmt.Errorf("the control socket is served by %s in another user namespace, as an agent's processes run: it is not your console, and nothing was sent to it", who)
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return fmt.Errorf("the control socket is served by %s, whose program cannot be read (%v): nothing was sent to it", who, err)
	}
	if !isTeamlead(pid, exe) {
		return fmt.Errorf("the control socket is served by %s, which runs %s, not teamlead: an agent may have put it there; nothing was sent to it", who, exe)
	}
	w := &Witness{console: -1}
	chain, _, err := w.stableWalk(pid)
	if err != nil {
		return fmt.Errorf("the ancestry of %s, serving the control socket, could not be read for sure (%v): nothing was sent to it", who, err)
	}
	for _, s := range chain[1:] {
		if s.pid == os.Getpid() {
			break // a console this very process started (a test harness): ours
		}
		if e, err := os.Readlink("/proc/" + strconv.Itoa(s.pid) + "/exe"); err == nil && isTeamlead(s.pid, e) {
			return fmt.Errorf("the control socket is served by %s, which descends from teamlead pid %d: a console's agent started it, so it is not your console; nothing was sent to it", who, s.pid)
		}
	}
	return nil
}

// isTeamlead reports a process running this executable, or one named
// teamlead (the console may run a build older than the CLI's).
func isTeamlead(pid int, exe string) bool {
	if self, err := os.Stat("/proc/self/exe"); err == nil {
		if st, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil && os.SameFile(st, self) {
			return true
		}
	}
	return filepath.Base(strings.TrimSuffix(exe, " (deleted)")) == "teamlead"
}
