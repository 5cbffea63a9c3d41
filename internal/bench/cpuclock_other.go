//go:build !(linux || darwin || freebsd || openbsd)

package bench

import "time"

// threadCPU is not available here.
func threadCPU() (time.Duration, bool) { return 0, false }
