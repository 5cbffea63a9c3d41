//go:build !linux

package worktree

import (
	"syscall"
	"time"
)

// changeTime is the inode's last change (st_ctimespec on the BSDs and macOS).
func changeTime(st *syscall.Stat_t) time.Time { return time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec) }
