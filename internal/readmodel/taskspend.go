package readmodel

import (
	"encoding/json"
	"fmt"

	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/usage"
)

// MetaTaskSpend is the store meta key prefix of each task's total (the
// tokens spent on it, which the engine adds to and `teamlead tasks` shows).
const MetaTaskSpend = "ts/"

// StoredTaskSpend reads every task's total from the store.
func StoredTaskSpend(st *store.Store) (map[string]usage.Tokens, error) {
	out := map[string]usage.Tokens{}
	err := st.MetaPrefix(MetaTaskSpend, func(k, v string) error {
		var t usage.Tokens
		if err := json.Unmarshal([]byte(v), &t); err != nil {
			return fmt.Errorf("a stored task total is unreadable: %w", err)
		}
		out[k[len(MetaTaskSpend):]] = t
		return nil
	})
	return out, err
}

// WithSpend returns ts with each task's total filled in.
func WithSpend(ts []tasks.Task, spent map[string]usage.Tokens) []tasks.Task {
	for i := range ts {
		if t, ok := spent[ts[i].ID]; ok {
			ts[i].Tokens = &t
		}
	}
	return ts
}

// MetaUsageSeen is the store meta key prefix of what each agent's
// conversation had used when the console last recorded its usage.
const MetaUsageSeen = "us/"

// UsageSeen is an agent's conversation (its file, or the key of the total
// its CLI keeps) and all it had used when its usage was last recorded.
type UsageSeen struct {
	Path   string       `json:"path"`
	Tokens usage.Tokens `json:"tokens"`
}

// StoredUsageSeen returns every agent's UsageSeen.
func StoredUsageSeen(st *store.Store) (map[string]UsageSeen, error) {
	out := map[string]UsageSeen{}
	err := st.MetaPrefix(MetaUsageSeen, func(k, v string) error {
		var u UsageSeen
		if err := json.Unmarshal([]byte(v), &u); err != nil {
			return fmt.Errorf("a stored usage mark is unreadable: %w", err)
		}
		out[k[len(MetaUsageSeen):]] = u
		return nil
	})
	return out, err
}
