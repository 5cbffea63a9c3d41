//go:build linux

package worktree

import (
	"syscall"
	"time"
)

// changeTime is the inode's last change (st_ctim).
func changeTime(st *syscall.Stat_t) time.Time { return time.Unix(st.Ctim.Sec, st.Ctim.Nsec) }
