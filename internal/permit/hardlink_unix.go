//go:build unix

package permit

import (
	"io/fs"
	"syscall"
)

// linkCount is a file's number of names; 1 when the system does not say.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
