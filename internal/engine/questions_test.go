package engine

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
)

// Closed questions expire after questions.expire; pending ones never do.
func TestExpireQuestions(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "s"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	team := &config.Team{Questions: config.Questions{Expire: 30 * 24 * time.Hour}}
	l := lead.New(lead.Config{Members: []lead.Member{{Name: "dev", Role: "developer"}},
		Questions: questions.New(questions.Config{Agents: []string{"dev"}})})
	commit := func(out lead.Output) {
		t.Helper()
		if err := st.Commit(&store.Batch{Records: out.Records, Meta: out.Meta, MetaDel: out.MetaDel}); err != nil {
			t.Fatal(err)
		}
	}
	for _, text := range []string{"old answered", "recent answered", "ancient pending"} {
		_, out, err := l.Ask(questions.Ask{Asker: "dev", Topic: "x", Text: text}, t0)
		if err != nil {
			t.Fatal(err)
		}
		commit(out)
	}
	out, _ := l.AnswerQuestion("q-0001", questions.Requester, "a", t0)
	commit(out)
	out, _ = l.AnswerQuestion("q-0002", questions.Requester, "b", t0.Add(40*24*time.Hour))
	commit(out)

	e := &Engine{opts: Options{Team: team}, store: st}
	b, err := e.expireQuestions(t0.Add(45 * 24 * time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(&b); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"q-0001": false, "q-0002": true, "q-0003": true} {
		if _, ok, _ := readmodel.StoredQuestion(st, id); ok != want {
			t.Errorf("%s kept = %v, want %v", id, ok, want)
		}
	}
	if qs, _ := readmodel.StoredQuestions(st, questions.Answered); len(qs) != 1 || qs[0].ID != "q-0002" {
		t.Errorf("answered index after expiry: %+v", qs)
	}
}
