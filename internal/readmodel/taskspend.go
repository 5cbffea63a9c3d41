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
