package testwait

import (
	"testing"
	"time"
)

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	start, n := time.Now(), 0
	Until(t, time.Second, func() bool { n++; return n == 3 }, func() string { return "never" })
	if n != 3 || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("%d checks in %v", n, time.Since(start))
	}
}

// fatalTB records Fatal instead of ending the test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper()           {}
func (f *fatalTB) Fatal(args ...any) { f.msg = args[0].(string) }

func TestUntilFailsWithTheLatestMessage(t *testing.T) {
	f := &fatalTB{TB: t}
	n := 0
	Until(f, 20*time.Millisecond, func() bool { n++; return false }, func() string { return "seen " + string(rune('0'+min(n, 9))) })
	if f.msg == "" || f.msg == "seen 0" {
		t.Fatalf("message %q", f.msg)
	}
}
