package engine

import (
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/usage"
)

// What each task cost: every budgetEvery, the tokens an agent's CLI used
// since the last look are recorded in the audit (a usage record) against
// the task the agent last wrote about (a message, a tool call, a
// handoff), and added to that task's total, which the store keeps across
// runs (meta ts/<task>) and `teamlead tasks` shows.

// taskSpend is every task's total, as the store keeps it.
type taskSpend struct {
	mu     sync.Mutex
	byTask map[string]usage.Tokens
}

// agentTask is the task an agent last wrote about ("" before any).
type agentTask struct{ v atomic.Pointer[string] }

func (t *agentTask) set(task string) {
	if !tasks.NoTask(task) {
		t.v.Store(&task)
	}
}

func (t *agentTask) get() string {
	if p := t.v.Load(); p != nil {
		return *p
	}
	return ""
}

// recordSpend records what each agent used since the last call (every
// budgetEvery, on watchBudgets' goroutine).
func (e *Engine) recordSpend() {
	for _, name := range e.order {
		s := e.sinks[name]
		if s == nil {
			continue
		}
		d := s.spend.unrecorded()
		if d.All() <= 0 && d.CostUSD <= 0 {
			continue
		}
		task := s.task.get()
		fields := map[string]string{"input": strconv.FormatInt(d.Input, 10), "output": strconv.FormatInt(d.Output, 10),
			"cache_read": strconv.FormatInt(d.CacheRead, 10), "cache_write": strconv.FormatInt(d.CacheWrite, 10)}
		if c := cost(d, e.priceOf(name)); c > 0 {
			fields["cost_usd"] = strconv.FormatFloat(c, 'f', 4, 64)
		}
		meta := map[string]string{}
		if task != "" {
			e.spent.mu.Lock()
			sum := e.spent.byTask[task].Add(priced(d, e.priceOf(name)))
			e.spent.byTask[task] = sum
			e.spent.mu.Unlock()
			b, _ := json.Marshal(sum)
			meta[readmodel.MetaTaskSpend+task] = string(b)
		}
		if path, all := s.spend.seen(); path != "" {
			b, _ := json.Marshal(readmodel.UsageSeen{Path: path, Tokens: all})
			meta[readmodel.MetaUsageSeen+name] = string(b)
		}
		e.record(store.Record{Kind: wire.KindUsage, Subject: "agent." + name + ".usage", Agent: name, From: "team-lead", Task: task, Fields: fields}, meta, nil)
	}
}

// taskTotals is a copy of every task's total.
func (e *Engine) taskTotals() map[string]usage.Tokens {
	e.spent.mu.Lock()
	defer e.spent.mu.Unlock()
	out := make(map[string]usage.Tokens, len(e.spent.byTask))
	for k, v := range e.spent.byTask {
		out[k] = v
	}
	return out
}
