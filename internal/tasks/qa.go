package tasks

import "strings"

// Member is an agent of the team and its role.
type Member struct{ Name, Role string }

// QARole is the role whose agents review handed-off tasks.
const QARole = "qa"

// PickQA chooses the QA agent for a handoff among members with role qa:
// the one with the fewest tasks in review (load, by agent name; see
// Machine.Load), ties going to the first in members' order. It returns ""
// when the team has no QA agent.
func PickQA(members []Member, load map[string]int) string {
	best, bestLoad := "", 0
	for _, mb := range members {
		if !strings.EqualFold(strings.TrimSpace(mb.Role), QARole) || mb.Name == "" {
			continue
		}
		if n := load[mb.Name]; best == "" || n < bestLoad {
			best, bestLoad = mb.Name, n
		}
	}
	return best
}

// Load counts the tasks in review by assigned QA agent.
func (m *Machine) Load() map[string]int {
	out := map[string]int{}
	for _, t := range m.byID {
		if t.State == StateInReview && t.QA != "" {
			out[t.QA]++
		}
	}
	return out
}
