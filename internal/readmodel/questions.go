package readmodel

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/store"
)

// StoredQuestions reads the questions in status from the store ("" for
// all), ordered as the console lists them.
func StoredQuestions(st *store.Store, status questions.Status) ([]questions.Question, error) {
	statuses := []questions.Status{status}
	if status == "" {
		statuses = []questions.Status{questions.Pending, questions.Answered, questions.TimedOut, questions.Dropped}
	}
	var keys []string
	for _, s := range statuses {
		prefix := lead.StatusPrefix(s)
		err := st.MetaPrefix(prefix, func(key, _ string) error {
			keys = append(keys, lead.QuestionKey(strings.TrimPrefix(key, prefix)))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading questions: %w", err)
		}
	}
	vals, err := st.MetaMany(keys)
	if err != nil {
		return nil, fmt.Errorf("reading questions: %w", err)
	}
	out := make([]questions.Question, 0, len(vals))
	for _, k := range keys {
		var q questions.Question
		if v, ok := vals[k]; ok && json.Unmarshal([]byte(v), &q) == nil {
			out = append(out, q)
		}
	}
	questions.SortForHuman(out)
	return out, nil
}

// ListQuestions lists stored questions by status (pending when "", or
// answered, timeout, all), or the one with id when id is set.
func ListQuestions(st *store.Store, status, id string) ([]questions.Question, error) {
	if id != "" {
		q, ok, err := StoredQuestion(st, id)
		if err != nil || !ok {
			return nil, fmt.Errorf("no question %s", id)
		}
		return []questions.Question{q}, nil
	}
	switch status {
	case "", "pending":
		return StoredQuestions(st, questions.Pending)
	case "all":
		return StoredQuestions(st, "")
	case "answered", "timeout", "dropped":
		return StoredQuestions(st, questions.Status(status))
	}
	return nil, fmt.Errorf("unknown status %q: use pending, answered, timeout, dropped, all or a question id", status)
}

// StoredQuestion reads one question from the store.
func StoredQuestion(st *store.Store, id string) (questions.Question, bool, error) {
	var q questions.Question
	v, ok, err := st.Meta(lead.QuestionKey(id))
	if err != nil || !ok {
		return q, ok, err
	}
	return q, true, json.Unmarshal([]byte(v), &q)
}
