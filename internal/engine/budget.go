package engine

import (
	"fmt"
	"time"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/usage"
)

// budgetEvery is how often the agents' spending is held against their
// budgets (it is also checked at every permission request).
const budgetEvery = 5 * time.Second

// cost is what t cost: the CLI's own estimate when it wrote one, else the
// team's price (0 when it set none).
func cost(t usage.Tokens, p config.Price) float64 {
	if t.CostUSD > 0 {
		return t.CostUSD
	}
	return (float64(t.Input+t.CacheWrite)*p.Input + float64(t.CacheRead)*p.CacheRead + float64(t.Output)*p.Output) / 1e6
}

// priced is t with its cost filled in from the team's price when its CLI
// wrote none, so that every place that shows tokens shows a cost too.
func priced(t usage.Tokens, p config.Price) usage.Tokens {
	if t.CostUSD <= 0 {
		t.CostUSD = cost(t, p)
	}
	return t
}

// priceOf is agent's price (the team's unless it set its own).
func (e *Engine) priceOf(agent string) config.Price {
	if p, ok := e.prices[agent]; ok {
		return p
	}
	return e.opts.Team.Price
}

// overBudget says how agent went over its budget ("" while it has not).
func (e *Engine) overBudget(agent string) string {
	var a config.Agent
	for _, x := range e.opts.Team.Agents {
		if x.Name == agent {
			a = x
		}
	}
	s := e.sinks[agent]
	if s == nil || !a.Budget.Set() {
		return ""
	}
	t := s.spend.total()
	switch {
	case a.Budget.Tokens > 0 && t.All() >= a.Budget.Tokens:
		return fmt.Sprintf("%s used %s tokens this run, its budget is %s", agent, usage.Short(t.All()), usage.Short(a.Budget.Tokens))
	case a.Budget.USD > 0 && cost(t, a.Price) >= a.Budget.USD:
		return fmt.Sprintf("%s spent $%.2f this run, its budget is $%.2f", agent, cost(t, a.Price), a.Budget.USD)
	}
	return ""
}

// budgetFloor turns an allow into an ask for an agent over its budget:
// its permissions are paused, and every action it asks for waits for the
// human. Ask and deny stay as they are.
func (e *Engine) budgetFloor(agent string, d permit.Decision) permit.Decision {
	if d.Decide != permit.Allow {
		return d
	}
	why := e.overBudget(agent)
	if why == "" {
		return d
	}
	d.Decide = permit.Ask
	d.Rule = permit.Ref{Kind: permit.ByFloor, Text: "budget"}
	d.Why = why + ": its permissions are paused, every action it asks for waits for you (raise budget: in the team file and restart, or decide each one)"
	return d
}

// watchBudgets tells the human once when an agent crosses its budget.
func (e *Engine) watchBudgets() {
	told := map[string]bool{}
	t := time.NewTicker(budgetEvery)
	defer t.Stop()
	for {
		select {
		case <-e.quit:
			return
		case <-t.C:
		}
		e.recordSpend()
		for _, a := range e.opts.Team.Agents {
			if why := e.overBudget(a.Name); why != "" && !told[a.Name] {
				told[a.Name] = true
				e.Warn(why + ": its permissions are paused: every action it asks for now waits for you")
			}
		}
	}
}
