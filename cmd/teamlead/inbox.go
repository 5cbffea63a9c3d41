package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/store"
)

func newInboxCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "List what waits for you: questions for you (q-…), blockers sent to team-lead, permission requests, workflows to resume",
		Long: "Inbox lists what waits for you, oldest first, as the console's inbox shows it: the questions\n" +
			"routed to a person or a team (q-…: teamlead answer q-… TEXT), the blockers and <gap> questions\n" +
			"sent to team-lead (m-…), permission requests (p-…: teamlead approve or deny), consultations\n" +
			"escalated to you (c-…), texts that could not be delivered (u-…) and workflows to resume (w-…).\n" +
			"TEXT is what the agent wrote; NOTE is the console's own word on it (the policy's reason for a\n" +
			"permission, the topic and the time left of a question). --format json prints every field in full.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := format.check(); err != nil {
				return err
			}
			rows, err := inboxRows(g)
			if err != nil {
				return err
			}
			w, now := cmd.OutOrStdout(), time.Now()
			return printList(w, format, rows, nil, func() error { return printInbox(w, rows, now) })
		},
	}
	format = addFormat(cmd)
	return cmd
}

// inboxRow is one thing waiting for the human: an inbox item or a question
// for a person or a team. It is also its JSON (teamlead inbox --format json).
type inboxRow struct {
	ID   string `json:"id"`
	From string `json:"from"`
	// Type is the item's message type (blocker, permission, question,
	// undelivered, resume, ...); "question" for a question (q-…).
	Type string `json:"type"`
	Task string `json:"task,omitempty"`
	// Text is what the agent wrote; Note what the console adds: the
	// policy's reason for a permission, how to resume, why undelivered.
	Text string `json:"text"`
	Note string `json:"note,omitempty"`
	// A question's topic, urgency, answerer and deadline; a <gap>
	// question's topic too.
	Topic    string `json:"topic,omitempty"`
	Urgency  string `json:"urgency,omitempty"`
	Answerer string `json:"answerer,omitempty"`
	// A permission request's action, risk and the rule that sent it here.
	Action   string    `json:"action,omitempty"`
	Risk     string    `json:"risk,omitempty"`
	Rule     string    `json:"rule,omitempty"`
	Since    time.Time `json:"since,omitzero"`
	Deadline time.Time `json:"deadline,omitzero"`
}

// inboxRows asks the running console, or reads the store: the lead's inbox
// and the pending questions for a person or a team, oldest first.
func inboxRows(g *globals) ([]inboxRow, error) {
	var (
		items []lead.InboxItem
		qs    []questions.Question
	)
	c, err := g.client()
	switch {
	case err == nil:
		if items, err = c.Inbox(); err != nil {
			return nil, err
		}
		if qs, err = c.Questions("pending", ""); err != nil {
			return nil, err
		}
	case errors.Is(err, control.ErrNoConsole):
		st, err := openReadOnly(g)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		var recs []store.Record
		err = st.Scan(store.Query{}, func(r store.Record) error {
			if r.Kind == wire.KindInbox || r.Kind == wire.KindAnswered || r.Kind == wire.KindDropped {
				recs = append(recs, r)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		items = lead.RestoreInbox(recs)
		if qs, err = readmodel.ListQuestions(st, "pending", ""); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	rows := make([]inboxRow, 0, len(items)+len(qs))
	for _, it := range items {
		rows = append(rows, itemRow(it))
	}
	for _, q := range qs {
		if forHuman(q) {
			rows = append(rows, questionRow(q))
		}
	}
	slices.SortStableFunc(rows, func(a, b inboxRow) int { return a.Since.Compare(b.Since) })
	return rows, nil
}

// forHuman reports whether question q waits for a person or a team (the
// console's inbox shows those; an agent or a tool answers the others).
func forHuman(q questions.Question) bool {
	return strings.HasPrefix(q.Answerer, "human/") || strings.HasPrefix(q.Answerer, "team/")
}

func questionRow(q questions.Question) inboxRow {
	return inboxRow{ID: q.ID, From: q.Asker, Type: protocol.TypeQuestion, Task: q.Task, Text: q.Text, Topic: q.Topic,
		Urgency: q.Urgency, Answerer: q.Answerer, Since: q.Created, Deadline: q.Deadline}
}

// itemRow splits an inbox item's body into what the agent wrote and what
// the console says about it.
func itemRow(it lead.InboxItem) inboxRow {
	r := inboxRow{ID: it.ID, From: it.From, Type: it.Type, Task: it.Task, Text: it.Body, Since: it.Since,
		Topic: it.Extra["topic"], Urgency: it.Extra["urgency"]}
	switch {
	case it.Extra["permission"] != "":
		// "<agent> wants <action> — risk <risk> — <rule>: <why>", then the
		// agent's own words on a line of their own.
		r.Action, r.Risk, r.Rule = it.Extra["action"], it.Extra["risk"], it.Extra["rule"]
		head, said, _ := strings.Cut(it.Body, "\n")
		why := head
		if prefix := fmt.Sprintf("%s wants %s — risk %s — %s: ", it.From, r.Action, r.Risk, r.Rule); strings.HasPrefix(head, prefix) {
			why = strings.TrimPrefix(head, prefix)
		}
		r.Note = strings.TrimSpace(fmt.Sprintf("risk %s, %s: %s", r.Risk, r.Rule, why))
		r.Text = strings.TrimSpace(said)
		if r.Text == "" {
			r.Text = r.Action
		} else if !strings.Contains(r.Text, r.Action) {
			r.Text = r.Action + " — " + r.Text
		}
	case it.Type == "resume":
		// "Workflow <id> (<task>) stopped at step N of M; answer to tell …"
		if i := strings.LastIndex(it.Body, "; answer to tell "); i >= 0 {
			r.Text, r.Note = it.Body[:i], it.Body[i+2:]
		}
	case it.Type == "undelivered":
		// "undelivered: <why>…\n---\n<the text>"
		if note, text, ok := strings.Cut(it.Body, "\n---\n"); ok {
			r.Note, r.Text = note, text
		}
	}
	return r
}

// Column widths of the inbox table: longer text is cut at a word, with "…"
// (--format json has it whole).
const (
	inboxTextWidth = 72
	inboxNoteWidth = 80
)

func printInbox(w io.Writer, rows []inboxRow, now time.Time) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "nothing waits for you")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFROM\tTYPE\tTASK\tAGE\tTEXT\tNOTE")
	for _, r := range rows {
		note := r.Note
		if r.Topic != "" {
			note = joinNote("topic "+r.Topic, note)
		}
		if r.Urgency != "" && r.Urgency != "normal" {
			note = joinNote("urgency "+r.Urgency, note)
		}
		if !r.Deadline.IsZero() {
			note = joinNote(note, report.Age(max(r.Deadline.Sub(now), 0))+" left")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", report.Cells(r.ID, r.From, r.Type, report.Dash(r.Task), report.Age(now.Sub(r.Since)),
			cell(r.Text, inboxTextWidth), report.Dash(cell(note, inboxNoteWidth)))...)
	}
	return tw.Flush()
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ", " + b
}

// cell is s on one line, cut to at most n runes at a word boundary.
func cell(s string, n int) string {
	s = report.Flat(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:—-") + "…"
}
