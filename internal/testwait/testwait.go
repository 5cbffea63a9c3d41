// Package testwait is the tests' one polling loop: wait until something
// holds, or fail saying what did not happen and what was seen instead.
package testwait

import (
	"testing"
	"time"
)

// poll is how often Until looks again.
const poll = 5 * time.Millisecond

// Until checks cond until it holds, and fails t with msg() (called once,
// when the time is up, so it can show the latest state) if it does not
// hold within d. cond is checked once more at the end.
func Until(t testing.TB, d time.Duration, cond func() bool, msg func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			if cond() {
				return
			}
			t.Fatal(msg())
			return
		}
		time.Sleep(poll)
	}
}
