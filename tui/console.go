// Package tui is the console a person supervises the team with: the agent
// list and the selected agent's live screen, the human's inbox, the
// activity log, a command palette and help, all from the keyboard. Only
// Model is a tea.Model; each pane is a component under tui/components.
package tui

import (
	"time"

	"github.com/teamlead/teamlead/bus"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/worktree"
	"github.com/teamlead/teamlead/tui/components/screen"
)

// Console is the running team the dashboard drives (the engine).
type Console interface {
	// Diff is what an agent changed in its git worktree.
	Diff(agent string) (worktree.Tree, worktree.Changes, error)
	// Merge merges an agent's worktree branch into the person's checkout:
	// the merge the human was shown (Changes.Merge), refused if their
	// branch moved since.
	Merge(agent string, p worktree.Preview) (worktree.Tree, worktree.Merged, error)
	// Agents lists the team in configuration order.
	Agents() []readmodel.AgentInfo
	// Screen is an agent's emulated terminal, nil if it has none.
	Screen(agent string) screen.Source
	// Send types text into an agent as the human (recorded, then submitted).
	Send(agent, text string) error
	// Keys passes raw key bytes to an agent (focus mode).
	Keys(agent string, b []byte) error
	// Inbox lists what waits for the human.
	Inbox() []lead.InboxItem
	// Answer answers an inbox item (m-…) or a question (q-…), gives the
	// human's verdict on a consultation (c-…: approve, concerns, reject or
	// acknowledge, then the reasons), or decides a permission request
	// (p-…: "approve [note]" once, "always <exact|prefix|dir|tool> [all]",
	// or "deny [message to the agent]").
	Answer(id, text string) error
	// Questions lists the pending questions.
	Questions() []questions.Question
	// ListQuestions lists questions by status: pending, answered, timeout or all.
	ListQuestions(status string) ([]questions.Question, error)
	// Progress is the state of every watched progress file (seed 003).
	Progress() []progress.State
	// Ask asks a question as the human.
	Ask(a questions.Ask) (questions.Question, error)
	// Escalate escalates a question or a consultation now.
	Escalate(id string) error
	// Reassign gives a question to answerer (kind/name), or a consultation
	// to another agent of the consulted role (its name).
	Reassign(id, answerer string) error
	// Consultations lists every consultation, newest first.
	Consultations() []consult.Consultation
	// Acknowledge is the human accepting the concerns raised on a
	// consultation (c-…).
	Acknowledge(id string) error
	// Drop closes an inbox item or a question without answering it:
	// nothing is typed into anyone.
	Drop(id, reason string) error
	// Tasks lists every task.
	Tasks() []tasks.Task
	// Bus carries every committed record.
	Bus() bus.Bus
	// LastSeq is the sequence of the newest committed record.
	LastSeq() uint64
	// ResizeAgents sets every agent's terminal size (the screen pane's).
	ResizeAgents(cols, rows int)
}

// PermissionLister is a Console that also lists the permission requests
// (the engine is one); the permissions board needs it. Decisions on them go
// through Console.Answer, so a console without it still gets the prompts,
// the badge and the keys in the inbox. (Kept apart from Console so that
// the consoles of the benchmarks, which have no requests, need not change.)
type PermissionLister interface {
	// Permissions lists every permission request, newest first.
	Permissions() []approvals.Request
}

// AlwaysPlanner is a Console that says what approving a request always
// would write, against the policy in force and the agent's folder, without
// writing it (the engine is one): the approve-always chooser shows it in
// place of its own preview, so the person sees every rule before it is
// written.
type AlwaysPlanner interface {
	// PlanAlways is what approving request id always at scope would add.
	PlanAlways(id, scope string) (permit.AlwaysPlan, error)
}

// Options tune the dashboard.
type Options struct {
	// Keys are the bindings (DefaultKeyMap, maybe rebound from config).
	Keys KeyMap
	// Notify is called when something starts waiting for the human; nil
	// rings the terminal bell only.
	Notify func(title, body string)
	// Now is the clock (tests fix it); time.Now when nil.
	Now func() time.Time
	// BusyFor is how long after its last output an agent counts as busy.
	BusyFor time.Duration
	// FrameEvery caps the refresh rate of the live screen.
	FrameEvery time.Duration
	// Stall is when a workflow that has not moved shows as stalled.
	Stall time.Duration
	// RunStart, when set, is the last record before this run of the
	// console began: what was recorded from there until the console
	// opened (an agent that could not start, the machine's warnings) is
	// shown too.
	RunStart *uint64
}
