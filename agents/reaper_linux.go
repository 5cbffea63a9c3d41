//go:build linux

package agents

import (
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The console is the child subreaper of everything it starts
// (PR_SET_CHILD_SUBREAPER): a process an agent detaches — a double fork,
// setsid, a daemon — is reparented to the console instead of init, so it
// still descends from the console, and the control socket refuses it the
// human's operations (internal/trust). The orphans it collects this way
// must be reaped when they exit, without stealing the exit status of the
// console's own children (agents, which os/exec waits for, and commands in
// the console's own session): the reaper waits only for zombie children
// that are neither an agent's process nor in the console's session.
//
// This is state of the whole process because the kernel attribute is.
var reaper struct {
	once  sync.Once
	err   error
	spawn sync.RWMutex // held for reading while an agent's process starts and is registered
	mu    sync.Mutex
	roots map[int]bool // agents' processes, waited for by os/exec
}

// BecomeSubreaper makes this process the subreaper of its descendants and
// starts reaping the orphans it inherits. It is called once by the console
// before it starts any agent; later calls return the first result.
func BecomeSubreaper() error {
	reaper.once.Do(func() {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			reaper.err = err
			return
		}
		reaper.roots = map[int]bool{}
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGCHLD)
		go func() {
			// SIGCHLDs coalesce, so every wake-up reaps every orphan that
			// is a zombie; the ticker is a backstop for a missed signal.
			t := time.NewTicker(5 * time.Second)
			for {
				select {
				case <-ch:
				case <-t.C:
				}
				reapOrphans()
			}
		}()
	})
	return reaper.err
}

// startRoot runs start (which starts an agent's process and returns its
// pid, or 0) so that the reaper never takes the process for an orphan.
func startRoot(start func() int) {
	reaper.spawn.RLock()
	defer reaper.spawn.RUnlock()
	if pid := start(); pid > 0 {
		reaper.mu.Lock()
		if reaper.roots != nil {
			reaper.roots[pid] = true
		}
		reaper.mu.Unlock()
	}
}

// waitedRoot forgets pid once os/exec has waited for it.
func waitedRoot(pid int) {
	reaper.mu.Lock()
	delete(reaper.roots, pid)
	reaper.mu.Unlock()
}

// orphan is a child of the console that none of its own code waits for.
type orphan struct {
	pid, sid int
	zombie   bool
}

// orphans lists the console's children that are neither agents' processes
// nor in the console's own session.
func orphans() []orphan {
	self, own := os.Getpid(), 0
	if sid, err := unix.Getsid(0); err == nil {
		own = sid
	}
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	var out []orphan
	eachProc(func(pid int, f [][]byte) {
		ppid, _ := strconv.Atoi(string(f[1]))
		sid, _ := strconv.Atoi(string(f[3]))
		if ppid != self || sid == own || reaper.roots[pid] {
			return
		}
		out = append(out, orphan{pid: pid, sid: sid, zombie: f[0][0] == 'Z'})
	})
	return out
}

// reapOrphans waits for every orphan that has exited.
func reapOrphans() {
	reaper.spawn.Lock()
	defer reaper.spawn.Unlock()
	for _, o := range orphans() {
		if o.zombie {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(o.pid, &ws, unix.WNOHANG, nil)
		}
	}
}

// EndOrphans ends what agents detached and left behind — every process the
// console inherited as subreaper, with its session — SIGTERM first, SIGKILL
// after grace. The console calls it as it stops when agents do not run in
// user namespaces of their own: such a process, once reparented to init,
// would no longer be told from the human's. It returns how many it found.
func EndOrphans(grace time.Duration) int {
	if reaper.roots == nil {
		return 0
	}
	live := func() []orphan {
		var out []orphan
		for _, o := range orphans() {
			if !o.zombie {
				out = append(out, o)
			}
		}
		return out
	}
	found := live()
	for _, o := range found {
		signalSession(o.sid, syscall.SIGTERM)
		_ = syscall.Kill(o.pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for len(live()) > 0 && time.Now().Before(deadline) {
		time.Sleep(pollEvery)
	}
	for _, o := range live() {
		signalSession(o.sid, syscall.SIGKILL)
		_ = syscall.Kill(o.pid, syscall.SIGKILL)
	}
	reapOrphans()
	return len(found)
}
