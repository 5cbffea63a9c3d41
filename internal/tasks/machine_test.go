package tasks

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

func review(d Decision) Review {
	body := map[Decision]string{
		Pass:    "commands:\n- `go test ./...` → PASS\n" + goodSteps + goodEvidence + "decision: PASS\n",
		Fail:    "commands:\n- `go test ./api` → FAIL (regression)\n" + goodSteps + goodEvidence + "decision: FAIL\n",
		Blocked: "commands:\n- `npm ci` → failed (env_blocker)\n" + goodSteps + goodEvidence + "decision: BLOCKED\n",
	}[d]
	r := ValidateReview(nil, body)
	if !r.Complete() {
		panic(r.Missing)
	}
	return r
}

func states(t Task) []State {
	var out []State
	for _, tr := range t.History {
		out = append(out, tr.To)
	}
	return out
}

// inReview returns a machine with T-1 handed off by dev to qa1.
func inReview(tb testing.TB) *Machine {
	m := New()
	if _, err := m.Touch("T-1", "dev", "developer", at(0)); err != nil {
		tb.Fatal(err)
	}
	if _, err := m.HandedOff("T-1", "dev", "qa1", at(1)); err != nil {
		tb.Fatal(err)
	}
	return m
}

func TestTouch(t *testing.T) {
	m := New()
	for _, id := range []string{"", "-", "  "} {
		if _, err := m.Touch(id, "dev", "developer", at(0)); !errors.Is(err, ErrNoTask) {
			t.Errorf("Touch(%q): %v, want ErrNoTask", id, err)
		}
	}
	pm, err := m.Touch("T-1", "pm", "pm", at(0))
	if err != nil || pm.State != StateInProgress || pm.Developer != "" || !pm.Created.Equal(at(0)) || len(pm.History) != 1 || pm.History[0].Note != "created" {
		t.Fatalf("created %+v %v", pm, err)
	}
	dev, _ := m.Touch("T-1", "dev", "developer", at(2))
	if dev.State != StateInProgress || dev.Developer != "dev" || !dev.Updated.Equal(at(2)) || !dev.Created.Equal(at(0)) || len(dev.History) != 1 {
		t.Errorf("touched %+v", dev)
	}
	old, _ := m.Touch("T-1", "dev2", "developer", at(1))
	if !old.Updated.Equal(at(2)) || old.Developer != "dev" {
		t.Errorf("an older envelope moved Updated back or changed the developer: %+v", old)
	}
	if len(m.All()) != 1 {
		t.Errorf("%d tasks", len(m.All()))
	}
}

func TestLifecycle(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d      Decision
		state  State
		reopen bool
	}{{"pass", Pass, StatePassed, false}, {"fail", Fail, StateFailed, true}, {"blocked", Blocked, StateBlocked, true}} {
		t.Run(tc.name, func(t *testing.T) {
			m := inReview(t)
			got, _ := m.Get("T-1")
			if got.State != StateInReview || got.QA != "qa1" || got.Developer != "dev" {
				t.Fatalf("after handoff %+v", got)
			}
			done, err := m.Review("T-1", "qa1", review(tc.d), at(2))
			if err != nil || done.State != tc.state || done.Reviews != 1 || done.LastReview == nil || done.LastReview.Decision != tc.d {
				t.Fatalf("after review %+v %v", done, err)
			}
			last := done.History[len(done.History)-1]
			if last.From != StateInReview || last.To != tc.state || last.By != "qa1" || !last.At.Equal(at(2)) || last.Note != "review "+string(tc.d) {
				t.Errorf("transition %+v", last)
			}
			again, err := m.HandedOff("T-1", "dev", "qa2", at(3))
			if !tc.reopen {
				if !errors.Is(err, ErrIllegal) || again.State != StatePassed {
					t.Fatalf("a passed task was handed off again: %+v %v", again, err)
				}
				return
			}
			want := []State{StateInProgress, StateInReview, tc.state, StateInProgress, StateInReview}
			if err != nil || again.State != StateInReview || again.QA != "qa2" || !reflect.DeepEqual(states(again), want) {
				t.Fatalf("new handoff: %v %v %v", states(again), again.QA, err)
			}
			if again.History[3].Note != "reopened by a new handoff" {
				t.Errorf("%+v", again.History[3])
			}
		})
	}
}

func TestReopen(t *testing.T) {
	m := inReview(t)
	if _, err := m.Reopen("T-1", "dev", at(2)); !errors.Is(err, ErrIllegal) {
		t.Errorf("reopened a task in review: %v", err)
	}
	m.Review("T-1", "qa1", review(Fail), at(2))
	tk, err := m.Reopen("T-1", "dev", at(3))
	if err != nil || tk.State != StateInProgress || tk.History[len(tk.History)-1].From != StateFailed {
		t.Fatalf("%+v %v", tk, err)
	}
	if _, err := m.Reopen("T-1", "dev", at(4)); !errors.Is(err, ErrIllegal) {
		t.Errorf("reopened a task in progress: %v", err)
	}
	if _, err := m.Reopen("T-9", "dev", at(4)); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("reopened an unknown task: %v", err)
	}
	tk, err = m.HandedOff("T-1", "dev", "qa1", at(5))
	if err != nil || tk.State != StateInReview || len(tk.History) != 5 {
		t.Errorf("handoff after reopen: %v %v", states(tk), err)
	}
}

func TestIllegalMoves(t *testing.T) {
	t.Run("review of a task not in review", func(t *testing.T) {
		m := New()
		m.Touch("T-1", "dev", "developer", at(0))
		if tk, err := m.Review("T-1", "qa1", review(Pass), at(1)); !errors.Is(err, ErrIllegal) || tk.State != StateInProgress || tk.Reviews != 0 {
			t.Errorf("%+v %v", tk, err)
		}
	})
	t.Run("review of an unknown task", func(t *testing.T) {
		if _, err := New().Review("T-9", "qa1", review(Pass), at(1)); !errors.Is(err, ErrUnknownTask) {
			t.Error(err)
		}
	})
	t.Run("review without a task id", func(t *testing.T) {
		if _, err := New().Review("-", "qa1", review(Pass), at(1)); !errors.Is(err, ErrNoTask) {
			t.Error(err)
		}
	})
	t.Run("review by another QA agent", func(t *testing.T) {
		m := inReview(t)
		tk, err := m.Review("T-1", "qa2", review(Pass), at(2))
		if !errors.Is(err, ErrNotAssignedQA) || tk.State != StateInReview || tk.Reviews != 0 {
			t.Errorf("%+v %v", tk, err)
		}
		if _, err := m.Review("T-1", "dev", review(Pass), at(2)); !errors.Is(err, ErrNotAssignedQA) {
			t.Errorf("the developer reviewed its own task: %v", err)
		}
	})
	t.Run("review after the decision", func(t *testing.T) {
		m := inReview(t)
		m.Review("T-1", "qa1", review(Pass), at(2))
		if _, err := m.Review("T-1", "qa1", review(Fail), at(3)); !errors.Is(err, ErrIllegal) {
			t.Error(err)
		}
	})
	t.Run("handoff while in review", func(t *testing.T) {
		m := inReview(t)
		tk, err := m.HandedOff("T-1", "dev", "qa2", at(2))
		if !errors.Is(err, ErrIllegal) || tk.QA != "qa1" || len(tk.History) != 2 {
			t.Errorf("%+v %v", tk, err)
		}
	})
	t.Run("handoff without a QA agent", func(t *testing.T) {
		m := New()
		m.Touch("T-1", "dev", "developer", at(0))
		if _, err := m.HandedOff("T-1", "dev", "", at(1)); !errors.Is(err, ErrNoQA) {
			t.Error(err)
		}
		if tk, _ := m.Get("T-1"); tk.State != StateInProgress {
			t.Errorf("%+v", tk)
		}
	})
	t.Run("handoff without a task id", func(t *testing.T) {
		if _, err := New().HandedOff("", "dev", "qa1", at(1)); !errors.Is(err, ErrNoTask) {
			t.Error(err)
		}
	})
	t.Run("reassign a task not in review", func(t *testing.T) {
		m := New()
		m.Touch("T-1", "dev", "developer", at(0))
		if _, err := m.Reassign("T-1", "qa2", "human", at(1)); !errors.Is(err, ErrIllegal) {
			t.Error(err)
		}
		if _, err := m.Reassign("T-2", "qa2", "human", at(1)); !errors.Is(err, ErrUnknownTask) {
			t.Error(err)
		}
	})
	t.Run("errors wrap their sentinel with the detail", func(t *testing.T) {
		m := inReview(t)
		_, err := m.Review("T-1", "qa2", review(Pass), at(2))
		if err.Error() != "not the QA agent assigned to the task: qa2 reviewed task T-1, assigned to qa1" {
			t.Error(err)
		}
	})
}

func TestHandoffOfAnUnseenTaskCreatesIt(t *testing.T) {
	m := New()
	tk, err := m.HandedOff("T-5", "dev", "qa1", at(0))
	if err != nil || tk.State != StateInReview || tk.Developer != "dev" || !reflect.DeepEqual(states(tk), []State{StateInProgress, StateInReview}) {
		t.Fatalf("%+v %v", tk, err)
	}
}

func TestIncompleteReviewStaysInReview(t *testing.T) {
	m := inReview(t)
	r := ValidateReview(nil, "commands:\n- `go test ./...` → FAIL\n"+goodSteps+"decision: FAIL\n")
	tk, err := m.Review("T-1", "qa1", r, at(2))
	if !errors.Is(err, ErrIncompleteReview) || tk.State != StateInReview || tk.Reviews != 1 || tk.LastReview == nil || tk.LastReview.Complete() {
		t.Fatalf("%+v %v", tk, err)
	}
	if fb := tk.LastReview.Feedback(); fb == "" || len(tk.LastReview.Missing) != 2 {
		t.Errorf("feedback %q for %q", fb, tk.LastReview.Missing)
	}
	if len(tk.History) != 2 {
		t.Errorf("an incomplete review was recorded as a transition: %+v", tk.History)
	}
	tk, err = m.Review("T-1", "qa1", review(Fail), at(3))
	if err != nil || tk.State != StateFailed || tk.Reviews != 2 || !tk.LastReview.Complete() {
		t.Fatalf("%+v %v", tk, err)
	}
	if _, err := New().Review("T-1", "qa1", Review{}, at(0)); !errors.Is(err, ErrUnknownTask) {
		t.Error(err)
	}
	m2 := inReview(t)
	if _, err := m2.Review("T-1", "qa1", Review{}, at(2)); !errors.Is(err, ErrIncompleteReview) {
		t.Errorf("a review with no decision and nothing missing moved the task: %v", err)
	}
}

func TestReassign(t *testing.T) {
	m := inReview(t)
	if _, err := m.Reassign("T-1", "", "human", at(2)); !errors.Is(err, ErrNoQA) {
		t.Error(err)
	}
	tk, err := m.Reassign("T-1", "qa2", "human", at(2))
	if err != nil || tk.QA != "qa2" || tk.State != StateInReview || tk.History[2].Note != "reassigned from qa1 to qa2" {
		t.Fatalf("%+v %v", tk, err)
	}
	if _, err := m.Review("T-1", "qa1", review(Pass), at(3)); !errors.Is(err, ErrNotAssignedQA) {
		t.Errorf("the former QA agent reviewed: %v", err)
	}
	if tk, err := m.Review("T-1", "qa2", review(Pass), at(3)); err != nil || tk.State != StatePassed {
		t.Errorf("%+v %v", tk, err)
	}
}

func TestPickQAAndLoad(t *testing.T) {
	team := []Member{{"dev", "developer"}, {"qa-b", "qa"}, {"qa-a", "QA"}, {"pm", "pm"}}
	if got := PickQA(team, nil); got != "qa-b" {
		t.Errorf("no load: %q, want the first QA in team order", got)
	}
	if got := PickQA(team, map[string]int{"qa-b": 2, "qa-a": 1, "dev": 0}); got != "qa-a" {
		t.Errorf("%q, want the least loaded", got)
	}
	if got := PickQA([]Member{{"dev", "developer"}}, nil); got != "" {
		t.Errorf("%q from a team without QA", got)
	}
	m := New()
	m.HandedOff("T-1", "dev", "qa-b", at(0))
	m.HandedOff("T-2", "dev", "qa-b", at(1))
	m.HandedOff("T-3", "dev", "qa-a", at(2))
	m.Review("T-3", "qa-a", review(Pass), at(3))
	if got := m.Load(); !reflect.DeepEqual(got, map[string]int{"qa-b": 2}) {
		t.Errorf("load %v", got)
	}
	if got := PickQA(team, m.Load()); got != "qa-a" {
		t.Errorf("%q", got)
	}
}

func TestAllGetAndRestore(t *testing.T) {
	m := inReview(t)
	m.Touch("T-2", "dev", "developer", at(5))
	m.Touch("T-0", "dev", "developer", at(5))
	m.Review("T-1", "qa1", review(Fail), at(3))
	all := m.All()
	if len(all) != 3 || all[0].ID != "T-0" || all[1].ID != "T-2" || all[2].ID != "T-1" {
		t.Fatalf("order %v", []string{all[0].ID, all[1].ID, all[2].ID})
	}
	if _, ok := m.Get("T-9"); ok {
		t.Error("got an unknown task")
	}

	// the caller's copies do not alias the machine's records
	all[2].History[0].Note = "changed"
	all[2].LastReview.Commands[0].Text = "changed"
	if tk, _ := m.Get("T-1"); tk.History[0].Note != "created" || tk.LastReview.Commands[0].Text != "go test ./api" {
		t.Error("a returned task aliases the machine")
	}

	data, err := json.Marshal(m.All())
	if err != nil {
		t.Fatal(err)
	}
	var back []Task
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	stale := back[2]
	stale.State, stale.Updated = StateInProgress, at(-10)
	back = append(back, stale, Task{ID: "-"}, Task{})
	r := Restore(back)
	if !reflect.DeepEqual(r.All(), m.All()) {
		t.Errorf("restored\n%+v\nwant\n%+v", r.All(), m.All())
	}
	tk, err := r.HandedOff("T-1", "dev", "qa1", at(6))
	if err != nil || tk.State != StateInReview || tk.Reviews != 1 {
		t.Errorf("the restored machine does not go on: %+v %v", tk, err)
	}
}
