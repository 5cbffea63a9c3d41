package consult

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Cycle reports whether opening c closed a circle of agents waiting on each
// other's verdicts (A waits for B, B for C, C for A): it returns the agents
// in order, starting and ending with c's requester, or nil. The circle is
// recorded on c; breaking it is for the people involved (a verdict, or the
// human), so nothing deadlocks silently.
func (m *Machine) Cycle(c *Consultation, now time.Time) []string {
	waits := map[string][]string{} // requester → the agents it waits for
	for _, o := range m.byID {
		if o.Open() || o.Status == ConcernsRaised {
			waits[o.Requester] = append(waits[o.Requester], o.Consulted)
		}
	}
	for _, v := range waits {
		sort.Strings(v)
	}
	path := waitPath(waits, c.Consulted, c.Requester, map[string]bool{})
	if path == nil {
		return nil
	}
	circle := append([]string{c.Requester}, path...)
	c.Events = append(c.Events, Event{Kind: EventCycle, By: "team-lead", Body: strings.Join(circle, " → "), At: now})
	return circle
}

// waitPath finds a path from → … → to in waits (depth first, in name order).
func waitPath(waits map[string][]string, from, to string, seen map[string]bool) []string {
	if from == to {
		return []string{to}
	}
	if seen[from] {
		return nil
	}
	seen[from] = true
	for _, next := range waits[from] {
		if p := waitPath(waits, next, to, seen); p != nil {
			return append([]string{from}, p...)
		}
	}
	return nil
}

// ruleCycles lists circles among the mandatory rules' roles (architect must
// consult security, security must consult architect ...): they are legal,
// but a decision of each kind taken at once would wait on the other.
func ruleCycles(rules []Rule) []string {
	edges := map[string][]string{}
	for _, r := range rules {
		edges[r.Requester] = append(edges[r.Requester], r.Consulted)
	}
	roles := make([]string, 0, len(edges))
	for r := range edges {
		sort.Strings(edges[r])
		roles = append(roles, r)
	}
	sort.Strings(roles)
	var out []string
	reported := map[string]bool{}
	for _, r := range roles {
		for _, next := range edges[r] {
			p := waitPath(edges, next, r, map[string]bool{})
			if p == nil {
				continue
			}
			circle := append([]string{r}, p...)
			key := canonical(circle[:len(circle)-1])
			if !reported[key] {
				reported[key] = true
				out = append(out, fmt.Sprintf("rules form a circle %s: two such decisions at once would wait on each other; the console reports it when it happens", strings.Join(circle, " → ")))
			}
		}
	}
	return out
}

// canonical names a circle independently of where it starts.
func canonical(nodes []string) string {
	c := append([]string(nil), nodes...)
	sort.Strings(c)
	return strings.Join(c, ",")
}
