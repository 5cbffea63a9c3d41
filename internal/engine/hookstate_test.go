package engine

import (
	"fmt"
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

// busyRunner records what the engine tells an agent of its turns.
type busyRunner struct {
	runner
	calls []bool
}

func (b *busyRunner) Busy(on bool) { b.calls = append(b.calls, on) }

// Deliveries wait for the end of a turn (agents.Agent.Busy): a CLI's hook
// starts and ends one; for a CLI with no hooks its screen does; once a
// hook spoke, a busy screen starts none, and a screen at rest always ends
// one (a turn cancelled at a dialog tells no hook).
func TestTurnsFromHooksAndScreens(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	e := &Engine{perm: &permissions{}, now: func() time.Time { return now }, sinks: map[string]*sink{}}
	runners := map[string]*busyRunner{}
	for _, name := range []string{"hooked", "screen"} {
		s := &sink{ready: make(chan struct{})}
		runners[name] = &busyRunner{}
		s.started(runners[name])
		e.sinks[name] = s
	}
	e.screenState("screen", "busy")
	e.screenState("screen", "idle")
	e.HookState("hooked", "busy")
	now = now.Add(hookPrecedence + time.Second)
	e.screenState("hooked", "busy")
	e.screenState("hooked", "idle")
	e.HookState("hooked", "busy")
	e.HookState("hooked", "idle")
	if got := fmt.Sprint(runners["screen"].calls); got != "[true false]" {
		t.Errorf("a CLI with no hooks, busy then at rest on screen: %s", got)
	}
	if got := fmt.Sprint(runners["hooked"].calls); got != "[true false true false]" {
		t.Errorf("a CLI whose hook spoke (busy; screen busy, at rest; hook busy, idle): %s", got)
	}
}
