package engine

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/store"
)

// StoredConsultations reads every consultation from the store, newest first.
func StoredConsultations(st *store.Store) ([]consult.Consultation, error) {
	var out []consult.Consultation
	err := st.MetaPrefix(lead.MetaConsult, func(_, v string) error {
		var c consult.Consultation
		if err := json.Unmarshal([]byte(v), &c); err != nil {
			return fmt.Errorf("a stored consultation is unreadable: %w", err)
		}
		out = append(out, c)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, err
}

// Acknowledge is the human accepting the concerns raised on consultation id.
func (e *Engine) Acknowledge(id string) error {
	return e.do(func(now time.Time) (lead.Output, error) { return e.lead.Acknowledge(id, now) })
}
