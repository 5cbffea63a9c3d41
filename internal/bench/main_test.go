package bench

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the benchmark's child processes,
// as the tlbench binary does.
func TestMain(m *testing.M) {
	if code, ok := Child(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
