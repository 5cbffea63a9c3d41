package store

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Badger writes its log through mmap'd, sparse files, so a full disk usually
// shows up as SIGBUS (a crash) rather than ENOSPC. The guard below refuses
// commits before that happens; isNoSpace catches the ENOSPC that Badger does
// return (it wraps errors as text, so errors.Is alone is not enough).

// spaceCheckEvery and spaceCheckBytes bound how stale the free-space figure may get.
const (
	spaceCheckEvery = time.Second
	spaceCheckBytes = 1 << 20
)

// spaceGuard fails commits while the state dir's filesystem is nearly full.
type spaceGuard struct {
	dir  string
	min  uint64
	free func(dir string) (uint64, error) // free bytes; replaceable in tests

	mu      sync.Mutex
	checked time.Time // last statfs
	written int       // estimated bytes committed since
	low     bool      // last check found less than min free
}

// newSpaceGuard returns a guard for dir, or nil when disabled (min < 0).
func newSpaceGuard(dir string, min int64) *spaceGuard {
	if min < 0 {
		return nil
	}
	if min == 0 {
		min = DefaultMinFreeBytes
	}
	return &spaceGuard{dir: dir, min: uint64(min), free: freeBytes}
}

// check accounts for n bytes about to be written and fails if space is low.
func (g *spaceGuard) check(n int) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.written += n
	now := time.Now()
	if !g.low && g.written < spaceCheckBytes && now.Sub(g.checked) < spaceCheckEvery {
		return nil
	}
	free, err := g.free(g.dir)
	g.checked, g.written = now, 0
	if err != nil {
		g.low = false // unknown: let Badger try
		return nil
	}
	g.low = free < g.min
	if g.low {
		return diskFull(g.dir, fmt.Errorf("only %d bytes free, the store keeps %d in reserve", free, g.min))
	}
	return nil
}

// isNoSpace reports whether err is an out-of-space failure, wrapped or flattened to text.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) ||
		strings.Contains(err.Error(), syscall.ENOSPC.Error())
}

// diskFull wraps ErrDiskFull with what the user should do.
func diskFull(dir string, cause error) error {
	return fmt.Errorf("%w: %s: free space on the filesystem holding it (or move the state dir), "+
		"then retry (this write was not acknowledged): %v", ErrDiskFull, dir, cause)
}
