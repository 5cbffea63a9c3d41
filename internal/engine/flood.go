package engine

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// flood is one sending agent's flood control: a token bucket (x/time/rate)
// and the blocks waiting for tokens, in arrival order. Loop goroutine only.
type flood struct {
	lim  *rate.Limiter
	held []input
	// since is when the current flood began; count how many blocks of it
	// waited so far.
	since time.Time
	count int
}

// floodOf returns agent's flood control, or nil when it is off.
func (e *Engine) floodOf(agent string) *flood {
	r := e.opts.Team.Lead.RelayRate
	if r < 0 || e.sinks[agent] == nil {
		return nil
	}
	if r == 0 {
		return nil // a team built without validation: no limit
	}
	f := e.floods[agent]
	if f == nil {
		burst := max(e.opts.Team.Lead.RelayBurst, 1)
		f = &flood{lim: rate.NewLimiter(rate.Limit(r), burst)}
		e.floods[agent] = f
	}
	return f
}

// hold reports whether block input in must wait for agent's rate; it then
// joins the agent's queue (behind the blocks already waiting, so order
// holds). The first held block of a flood tells the human and the agent.
func (e *Engine) hold(in input, now time.Time) (held, first bool) {
	if e.stopping {
		return false, false
	}
	f := e.floodOf(in.agent)
	if f == nil || len(f.held) == 0 && f.lim.AllowN(now, 1) {
		return false, false
	}
	f.held = append(f.held, in)
	f.count++
	if f.since.IsZero() {
		f.since = now
		return true, true
	}
	return true, false
}

// released takes the held blocks whose tokens have come, in order, and
// reports the agents whose flood ended with them.
func (e *Engine) released(now time.Time) (batch []input, over []input) {
	for agent, f := range e.floods {
		for len(f.held) > 0 && (e.stopping || f.lim.AllowN(now, 1)) {
			in := f.held[0]
			in.kind = inReleased
			f.held[0] = input{}
			f.held = f.held[1:]
			batch = append(batch, in)
		}
		if len(f.held) == 0 && !f.since.IsZero() {
			over = append(over, input{kind: inFloodOver, agent: agent, n: f.count, waited: now.Sub(f.since)})
			f.since, f.count = time.Time{}, 0
		}
	}
	return batch, over
}

// nextRelease is how long until a held block may be taken (false: none waits).
func (e *Engine) nextRelease(now time.Time) (time.Duration, bool) {
	wait, any := time.Duration(math.MaxInt64), false
	for _, f := range e.floods {
		if len(f.held) == 0 {
			continue
		}
		any = true
		d := time.Duration(0)
		if tokens := f.lim.TokensAt(now); tokens < 1 {
			d = time.Duration((1 - tokens) / float64(f.lim.Limit()) * float64(time.Second))
		}
		wait = min(wait, d)
	}
	return wait, any
}
