package engine

import (
	"testing"
	"time"
)

// A state the agent's own hook reported outranks its screen for
// hookPrecedence; after that, and without a hook, the screen's counts.
func TestHookStateOutranksScreen(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	e := &Engine{perm: &permissions{}, now: func() time.Time { return now }}
	e.screenState("a", "busy")
	if h := e.hookStateOf("a"); h.state != "busy" || h.from != stateFromScreen {
		t.Fatalf("screen only: %+v", h)
	}
	e.HookState("a", "idle")
	now = now.Add(hookPrecedence - time.Second)
	e.screenState("a", "busy")
	if h := e.hookStateOf("a"); h.state != "idle" || h.from != stateFromHook {
		t.Fatalf("the screen overrode a fresh hook: %+v", h)
	}
	now = now.Add(2 * time.Second)
	e.screenState("a", "waiting")
	if h := e.hookStateOf("a"); h.state != "waiting" || h.from != stateFromScreen || !h.at.Equal(now) {
		t.Fatalf("a stale hook kept the screen out: %+v", h)
	}
	if h := e.hookStateOf("b"); h.state != "" {
		t.Fatalf("unknown agent: %+v", h)
	}
}
