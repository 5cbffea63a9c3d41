//go:build !linux

package agents

import (
	"errors"
	"time"
)

// BecomeSubreaper is Linux only: elsewhere a process an agent detaches is
// not kept in the console's tree (docs/architecture.md, "Trust").
func BecomeSubreaper() error {
	return errors.New("no child subreaper on this system")
}

func startRoot(start func() int) { start() }

func waitedRoot(int) {}

// EndOrphans does nothing where there is no subreaper.
func EndOrphans(time.Duration) int { return 0 }
