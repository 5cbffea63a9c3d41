package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/store"
)

// The Team Lead's permitted actions (seed 001, "Compliance Check"), plus
// rule 5's own: approving low-risk permission requests.
const (
	ActAssign          = "assign"
	ActRelay           = "relay"
	ActStatus          = "status"
	ActApprovalRequest = "approval-request"
	ActClose           = "close"
	ActApproval        = "approval (rule 5)"
)

// Compliance is what the Team Lead did, by permitted action, and anything
// it did that is none of them.
type Compliance struct {
	// Actions counts the Team Lead's actions by kind.
	Actions map[string]int
	// Refused are the requests to write code or run tests it refused and
	// delegated (coordination-only role).
	Refused []store.Record
	// Violations are actions outside the permitted ones (none, for a
	// compliant log).
	Violations []store.Record
	// Records is how many audit records were read.
	Records int
}

// ComplianceOf classifies the audit log's records by the Team Lead's
// permitted actions. Every text the console typed into an agent is
// accounted for: a relay of another agent's message, an acknowledgement or
// notice (status), a request for a verdict or an approval, or the human's
// own text. Anything else typed is a violation.
func ComplianceOf(recs []store.Record) Compliance {
	c := NewCompliance()
	for _, r := range recs {
		c.Add(r)
	}
	return *c
}

// NewCompliance returns an empty report to Add records to, one at a time
// (the audit log is streamed, not held).
func NewCompliance() *Compliance { return &Compliance{Actions: map[string]int{}} }

// Add classifies one record.
func (c *Compliance) Add(r store.Record) error {
	c.Records++
	act, violation := classify(r)
	switch {
	case violation:
		c.Violations = append(c.Violations, r)
	case act != "":
		c.Actions[act]++
	}
	if r.Kind == wire.KindRefusal && r.Reason == "coordination-only role" {
		c.Refused = append(c.Refused, r)
	}
	return nil
}

// classify names the Team Lead's action in r ("" when r is not one).
func classify(r store.Record) (act string, violation bool) {
	switch r.Kind {
	case wire.KindUndelivered:
		return "", false // nothing was typed
	case wire.KindDelivered:
		switch r.Fields["delivery"] {
		case "relay":
			if r.From == "team-lead" {
				return ActStatus, false // an answer or verdict from the human, passed on
			}
			return ActRelay, false
		case "ack", "notice", "primer":
			return ActStatus, false // acknowledgements, notices, and the protocol briefing
		case "answer":
			return ActRelay, false // an answer to a question, from its answerer (the human, an agent or a tool), passed on
		case "human":
			return "", false // the human's own typing
		}
		return "", true
	case wire.KindInbox, wire.KindQuestionQueue:
		return ActApprovalRequest, false
	case wire.KindConsult:
		if r.Fields["status"] == "pending" {
			return ActApprovalRequest, false
		}
	case wire.KindQuestionTask:
		return ActAssign, false
	case wire.KindTask:
		switch r.Fields["state"] {
		case "in-review":
			return ActAssign, false
		case "passed":
			return ActClose, false
		}
	case wire.KindPermission:
		if r.Fields["decided_by"] == "policy" {
			if r.Fields["status"] == "approved" {
				return ActApproval, false
			}
			return ActStatus, false
		}
		if r.Fields["status"] == "pending" {
			return ActApprovalRequest, false
		}
	}
	return "", false
}

// WriteCompliance prints the report for people.
func WriteCompliance(w io.Writer, c Compliance) error {
	fmt.Fprintf(w, "Team Lead compliance (does the Team Lead only coordinate?): %d audit records read\n\n", c.Records)
	fmt.Fprintln(w, "Permitted actions the Team Lead took:")
	for _, a := range []string{ActAssign, ActRelay, ActStatus, ActApprovalRequest, ActClose, ActApproval} {
		fmt.Fprintf(w, "  %-18s %d\n", a, c.Actions[a])
	}
	fmt.Fprintf(w, "\nRequests to write code or run tests, refused and delegated (coordination-only role): %d\n", len(c.Refused))
	for _, r := range c.Refused {
		fmt.Fprintf(w, "  %s  %s from %s, task %s → %s\n", r.Time.Local().Format("2006-01-02 15:04:05"), Dash(r.MsgID), r.From, Dash(r.Task), Dash(r.Fields["delegate"]))
	}
	fmt.Fprintln(w)
	if len(c.Violations) == 0 {
		_, err := fmt.Fprintln(w, "COMPLIANT: the Team Lead only assigned, relayed, reported status, requested approval, approved low-risk actions by policy and closed; it typed nothing else into any agent.")
		return err
	}
	fmt.Fprintf(w, "NOT COMPLIANT: %d actions outside the permitted ones:\n", len(c.Violations))
	sort.Slice(c.Violations, func(i, j int) bool { return c.Violations[i].Seq < c.Violations[j].Seq })
	for _, r := range c.Violations {
		fmt.Fprintf(w, "  seq %d  %s  %s → %s  %s\n", r.Seq, r.Kind, Dash(r.From), Dash(strings.Join(r.To, ",")), Dash(r.Fields["delivery"]))
	}
	return nil
}
