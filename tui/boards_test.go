package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
)

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func TestConsultationsBoardActions(t *testing.T) {
	f := newFake()
	tm := startModel(t, newModel(f), 160, 45)
	waitOutput(t, tm, "3 decisions blocked") // the badge, before the board is opened
	tm.Send(runes("6"))
	waitOutput(t, tm, "Consultations — 2 open · 3 decisions blocked")
	waitOutput(t, tm, "BLOCKED: architect's infrastructure decision on T-1 — held by c-2 (sec: pending 2h)")
	waitOutput(t, tm, "▶ c-2")

	// a: the verdict, prefilled with approve, goes to AnswerAny.
	tm.Send(runes("a"))
	waitOutput(t, tm, "verdict on c-2, architect's infrastructure decision on T-1")
	tm.Type("Keys rotate monthly.")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "answer c-2 approve Keys rotate monthly.")
	waitOutput(t, tm, "c-2: approve sent; architect has it")

	// The board follows the bus: a consult record makes it read again.
	f.setStatus("c-2", consult.Approved)
	f.publish(store.Record{Kind: wire.KindConsult, Subject: "consult.c-2", MsgID: "c-2", Time: t0,
		Fields: map[string]string{"status": "approved", "decision": "infrastructure"}})
	waitOutput(t, tm, "Consultations — 1 open · 2 decisions blocked")

	// /: filter; K: acknowledge the concerns on the one left.
	tm.Send(runes("/"))
	waitOutput(t, tm, "filter consultations")
	tm.Type("designer")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "filter: designer")
	tm.Send(runes("K"))
	waitCall(t, f, "acknowledge c-3")
	waitOutput(t, tm, "acknowledged the concerns on c-3")

	// e and r on the escalated one.
	tm.Send(runes("/"))
	waitOutput(t, tm, "filter consultations")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU}) // clear the old filter
	tm.Type("escalated")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "filter: escalated")
	tm.Send(runes("e"))
	waitCall(t, f, "escalate c-4")
	waitOutput(t, tm, "escalated c-4")
	tm.Send(runes("r"))
	waitOutput(t, tm, "reassign c-4 (now reviewer, review) to agent:")
	tm.Type("reviewer2")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "reassign c-4 reviewer2")
	waitOutput(t, tm, "reassigned c-4 to reviewer2")

	// enter: the detail; esc back to the board, esc again to the screen.
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "Consultation c-4 — esc for the board")
	waitOutput(t, tm, "escalated to human: no verdict within 30m0s")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitOutput(t, tm, "Consultations — 1 open")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitOutput(t, tm, "dev — developer — busy")
}

func TestConsultationErrorShows(t *testing.T) {
	f := newFake()
	f.failWith = fmt.Errorf("consultation closed: c-1 is superseded")
	tm := start(t, f)
	tm.Send(runes("6"))
	waitOutput(t, tm, "Consultations — 2 open")
	tm.Send(runes("/"))
	tm.Type("superseded")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "filter: superseded")
	tm.Send(runes("e"))
	waitCall(t, f, "escalate c-1")
	waitOutput(t, tm, "consultation closed: c-1 is superseded")
}

func TestTasksBoardAndHistory(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(runes("7"))
	waitOutput(t, tm, "Tasks — 1 in progress · 1 in review")
	waitOutput(t, tm, "sent back: evidence summary: none given")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "Task T-2 — esc for the board")
	waitOutput(t, tm, "in-progress → in-review by dev: handoff to qa")
	waitOutput(t, tm, "evidence summary: none given (add an 'evidence:' section)")

	// QA passes it: the task record refreshes the board, detail and all.
	f.mu.Lock()
	f.ts[1].State = tasks.StatePassed
	f.ts[1].History = append(f.ts[1].History, tasks.Transition{From: tasks.StateInReview, To: tasks.StatePassed, At: t0, By: "qa", Note: "review PASS"})
	f.mu.Unlock()
	f.publish(store.Record{Kind: wire.KindTask, Subject: "task.T-2", Task: "T-2", Time: t0, Fields: map[string]string{"state": "passed"}})
	waitOutput(t, tm, "T-2 · passed")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitOutput(t, tm, "Tasks — 1 in progress · 1 passed")
	tm.Send(runes("7")) // again: the screen
	waitOutput(t, tm, "dev — developer — busy")
}

func TestPaletteConsultsAndTasks(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(runes(":"))
	tm.Type("/consults c-3")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "Consultation c-3 — esc for the board")
	waitOutput(t, tm, "concerns-raised by designer: Modals break deep links.")
	tm.Send(runes(":"))
	tm.Type("/acknowledge c-3")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "acknowledge c-3")
	tm.Send(runes(":"))
	tm.Type("/tasks T-1")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "Task T-1 — esc for the board")
	tm.Send(runes(":"))
	tm.Type("/consults open")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "Consultations — 2 open · 3 decisions blocked — filter: open")
}

func TestBoardKeysRebind(t *testing.T) {
	f := newFake()
	m := newModel(f)
	if err := m.keys.Rebind(map[string][]string{"show-consults": {"f6"}, "acknowledge": {"A"}}); err != nil {
		t.Fatal(err)
	}
	m = New(f, m.st, Options{Keys: m.keys, Now: m.opts.Now})
	tm := startModel(t, m, 120, 36)
	tm.Send(tea.KeyMsg{Type: tea.KeyF6})
	waitOutput(t, tm, "Consultations — 2 open")
	waitOutput(t, tm, "A acknowledge")
	tm.Send(runes("?"))
	waitOutput(t, tm, "f6 consultations")
}

// settle runs cmd and feeds what it returns back into m, as the program
// would (the boards' commands only: fetches, which return at once).
func settle(m Model, cmd tea.Cmd) Model {
	if cmd == nil {
		return m
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			m = settle(m, c)
		}
		return m
	}
	mm, next := m.Update(msg)
	return settle(mm.(Model), next)
}

// TestBoardsGolden draws the whole console with each board at the two
// sizes people use most: 160x45 and 100x30. (teatest's golden package
// owns -update in this package: testdata/TestBoardsGolden/<name>.golden.)
func TestBoardsGolden(t *testing.T) {
	for _, size := range [][2]int{{160, 45}, {100, 30}} {
		for _, board := range []string{"6", "7"} {
			mm, _ := newModel(newFake()).Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m := mm.(Model)
			fetch := tea.Batch(m.fetchConsults(), m.fetchTasks())
			m = settle(m, fetch)
			mm, cmd := m.Update(runes(board))
			m = settle(mm.(Model), cmd)
			name := map[string]string{"6": "consults", "7": "tasks"}[board]
			view := m.View()
			if got := len(strings.Split(view, "\n")); got != size[1] {
				t.Errorf("%s at %dx%d: %d lines", name, size[0], size[1], got)
			}
			t.Run(fmt.Sprintf("%s-%dx%d", name, size[0], size[1]), func(t *testing.T) { golden.RequireEqual(t, []byte(view)) })
		}
	}
}

// The boards' first reading, started at start-up, may come back after a
// reading that records triggered: the later reading must win.
func TestFirstBoardReadingDoesNotOverwriteALaterOne(t *testing.T) {
	f := newFake()
	all := f.cs
	f.cs = nil
	m := newModel(f)
	first := m.initial[0]() // the start-up reading: no consultations yet
	f.cs = all
	later := m.fetchConsults()() // a consult record arrived meanwhile
	for _, order := range [][]tea.Msg{{first, later}, {later, first}} {
		var model tea.Model = m
		for _, msg := range order {
			model, _ = model.Update(msg)
		}
		if got := len(model.(Model).consults.All()); got != len(all) {
			t.Fatalf("the start-up reading won over the later one: %d consultations, want %d", got, len(all))
		}
	}
}

// TestChoosingAnAgentLeavesTheBoard: after 6, 7 or 8 a board fills the
// right pane; choosing an agent (] or [, or up and down in the agent list)
// or going back to the agent list (1) shows that agent's screen again, as
// a person expects.
func TestChoosingAnAgentLeavesTheBoard(t *testing.T) {
	for _, board := range []string{"6", "7", "8"} {
		for _, choose := range []string{"]", "1 down"} {
			mm, _ := newModel(newFake()).Update(tea.WindowSizeMsg{Width: 160, Height: 45})
			m := press(mm.(Model), board)
			if !m.boardShown() {
				t.Fatalf("%s: no board shown", board)
			}
			if choose == "]" {
				m = press(m, "]")
			} else {
				m = press(m, "1")
				mm, cmd := m.Update(tea.KeyMsg{Type: tea.KeyDown})
				m = settlePerms(mm.(Model), cmd)
			}
			if m.boardShown() {
				t.Fatalf("board %s, then %q: the board still fills the right pane", board, choose)
			}
			if v := m.View(); !strings.Contains(v, "architect — architect") {
				t.Fatalf("board %s, then %q: the next agent's screen is not shown:\n%s", board, choose, v)
			}
		}
		// 1 alone, back to the agent list: the selected agent's screen.
		mm, _ := newModel(newFake()).Update(tea.WindowSizeMsg{Width: 160, Height: 45})
		m := press(press(mm.(Model), board), "1")
		if v := m.View(); m.boardShown() || !strings.Contains(v, "dev — developer") {
			t.Fatalf("board %s, then 1: dev's screen is not shown:\n%s", board, v)
		}
	}
}

// d shows the selected agent's worktree diff in the right pane; the keys
// scroll it; esc (or d) goes back to the screen; an agent with no worktree
// says so.
func TestDiffView(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(runes("d"))
	waitOutput(t, tm, "diff of dev — lines 1–")
	waitOutput(t, tm, "teamlead/dev at feedbeef7777 since abcdef123456")
	waitOutput(t, tm, "M main.go  +40 −0")
	tm.Send(tea.KeyMsg{Type: tea.KeyPgDown})
	waitOutput(t, tm, "+line 20 of the change")
	tm.Send(runes("G"))
	waitOutput(t, tm, "+line 39 of the change")
	// M twice merges; once, then another key, does not.
	tm.Send(runes("M"))
	waitOutput(t, tm, "press M again to merge")
	tm.Send(tea.KeyMsg{Type: tea.KeyUp})
	tm.Send(runes("M"))
	waitOutput(t, tm, "press M again to merge")
	tm.Send(runes("M"))
	waitOutput(t, tm, "merged teamlead/dev into main: 0123456789ab, 3 files")
	if calls := strings.Join(f.Calls(), ","); strings.Count(calls, "merge dev at feedbeef7777") != 1 {
		t.Errorf("merge calls: %s", calls)
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitOutput(t, tm, "dev — developer — busy")
	tm.Send(runes("]"))
	tm.Send(runes("d"))
	waitOutput(t, tm, "does not work in a worktree of its own")
}
