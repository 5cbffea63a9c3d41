package readmodel

import (
	"testing"
	"time"
)

func TestDoing(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		a           AgentInfo
		state, from string
	}{
		{AgentInfo{Hook: "waiting", HookFrom: "hook", LastOutput: now}, "waiting", "hook"},
		{AgentInfo{Hook: "idle", HookFrom: "screen", LastOutput: now}, "idle", "screen"},
		{AgentInfo{Hook: "permission", HookFrom: "screen", LastOutput: now}, "busy", "output"}, // not a state
		{AgentInfo{LastOutput: now.Add(-time.Second)}, "busy", "output"},
		{AgentInfo{LastOutput: now.Add(-DefaultBusyFor)}, "idle", "output"},
	} {
		if s, f := c.a.Doing(now, DefaultBusyFor); s != c.state || f != c.from {
			t.Errorf("%+v: %s (%s), want %s (%s)", c.a, s, f, c.state, c.from)
		}
	}
}
