package readmodel

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
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

// StoredTasks reads every task from the store.
func StoredTasks(st *store.Store) ([]tasks.Task, error) {
	var out []tasks.Task
	err := st.MetaPrefix(lead.MetaTask, func(_, v string) error {
		var t tasks.Task
		if err := json.Unmarshal([]byte(v), &t); err != nil {
			return fmt.Errorf("a stored task is unreadable: %w", err)
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// StoredPermissions reads every permission request from the store.
func StoredPermissions(st *store.Store) ([]approvals.Request, error) {
	var out []approvals.Request
	err := st.MetaPrefix(lead.MetaPermission, func(_, v string) error {
		var r approvals.Request
		if err := json.Unmarshal([]byte(v), &r); err != nil {
			return fmt.Errorf("a stored permission request is unreadable: %w", err)
		}
		out = append(out, r)
		return nil
	})
	return out, err
}
