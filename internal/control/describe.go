package control

import (
	"errors"
	"fmt"
	"strings"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
)

// What the human's operations changed, in one line each, for the CLI to
// print on success (Reply.Done): "approved p-2 (dev: Bash(rm -rf /srv/x))
// once", "answered q-0001 (qa, general: May I …); qa gets the answer".

// item is what the human acts on, as read before acting: its name as the
// human knows it ("p-2 (dev: Bash(rm -rf /srv/x))", "q-0001 (qa, general:
// May I …)") and who asked it.
type item struct{ subject, from string }

func (s *Server) item(id string) item {
	switch {
	case strings.HasPrefix(id, "p-"):
		if r, ok := s.permission(id); ok {
			return item{fmt.Sprintf("%s (%s: %s)", id, r.Agent, r.Action), r.Agent}
		}
	case strings.HasPrefix(id, "c-"):
		if c, ok := s.consultation(id); ok {
			return item{fmt.Sprintf("%s (%s's %s decision, asked of %s)", id, c.Requester, orDash(c.Decision), c.Consulted), c.Requester}
		}
	default:
		if _, ok := questions.ParseID(id); ok {
			if q, ok := s.question(id); ok {
				return item{fmt.Sprintf("%s (%s, %s: %s)", q.ID, q.Asker, q.Topic, clip(q.Text, 60)), q.Asker}
			}
			return item{subject: id}
		}
	}
	for _, it := range s.console.Inbox() {
		if it.ID == id {
			return item{fmt.Sprintf("%s (%s's %s: %s)", id, it.From, orDash(it.Type), clip(firstLine(it.Body), 60)), it.From}
		}
	}
	return item{subject: id}
}

// permission reads request id from the store.
func (s *Server) permission(id string) (approvals.Request, bool) {
	if s.console.Store() == nil {
		return approvals.Request{}, false
	}
	rs, err := readmodel.StoredPermissions(s.console.Store())
	if err != nil {
		return approvals.Request{}, false
	}
	for _, r := range rs {
		if r.ID == id {
			return r, true
		}
	}
	return approvals.Request{}, false
}

// consultation reads consultation id from the store.
func (s *Server) consultation(id string) (consult.Consultation, bool) {
	if s.console.Store() == nil {
		return consult.Consultation{}, false
	}
	cs, err := readmodel.StoredConsultations(s.console.Store())
	if err != nil {
		return consult.Consultation{}, false
	}
	for _, c := range cs {
		if c.ID == id {
			return c, true
		}
	}
	return consult.Consultation{}, false
}

// question reads question id from the store.
func (s *Server) question(id string) (questions.Question, bool) {
	qid, ok := questions.ParseID(id)
	if !ok || s.console.Store() == nil {
		return questions.Question{}, false
	}
	q, ok, err := readmodel.StoredQuestion(s.console.Store(), qid)
	return q, ok && err == nil
}

// permissionAnswered says what answering permission r with word did.
func (s *Server) permissionAnswered(subject, word string, r approvals.Request) string {
	switch {
	case r.Status == approvals.Denied && r.Note != "":
		return fmt.Sprintf("denied %s; %s is told: %s", subject, r.Agent, clip(r.Note, 80))
	case r.Status == approvals.Denied:
		return "denied " + subject
	case r.Status == approvals.Approved && word == "always" && strings.HasPrefix(r.Note, approvals.NoRuleNote):
		return fmt.Sprintf("approved %s once; no rule added: %s", subject, strings.TrimPrefix(r.Note, approvals.NoRuleNote))
	case r.Status == approvals.Approved && word == "always":
		return fmt.Sprintf("approved %s always: %s", subject, strings.TrimPrefix(r.Note, approvals.AlwaysNote))
	case r.Status == approvals.Approved:
		return "approved " + subject + " once"
	}
	return fmt.Sprintf("answered %s (now %s)", subject, r.Status)
}

// keyNote says what is known of a dialog's key: typed, and read only once
// the CLI took it (red team 18b, finding 1: "approved" said before the key
// was read claimed more than was known).
func keyNote(r approvals.Request) string {
	if r.Source != approvals.FromDialog || r.DecidedBy != "human" {
		return ""
	}
	return "; key typed, waiting for the agent to read it (taken back and asked again if it does not)"
}

// answered says what answering item id (it, as it was before) with text
// did.
func (s *Server) answered(id string, it item, text string) string {
	subject := it.subject
	word, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	word = strings.ToLower(strings.Trim(word, ".,:;!"))
	switch {
	case strings.HasPrefix(id, "p-"):
		r, ok := s.permission(id)
		if !ok {
			return "answered " + subject
		}
		return s.permissionAnswered(subject, word, r) + keyNote(r)
	case strings.HasPrefix(id, "c-"):
		switch word {
		case "approve", "approved", "yes", "ok":
			return "approved " + subject
		case "concerns", "concerns-raised", "concern":
			return "raised concerns on " + subject
		case "reject", "rejected", "no":
			return "rejected " + subject
		case "acknowledge", "acknowledged", "ack":
			return "acknowledged the concerns on " + subject
		}
		return "answered " + subject
	}
	if it.from == "" || it.from == "human" {
		return "answered " + subject
	}
	return fmt.Sprintf("answered %s; the answer goes to %s", subject, it.from)
}

// planned says what approving it always would do, as planned: the
// rules it would add and for whom, or that it would be approved once and
// why; nothing is changed.
func planned(it item, forAll bool, plan permit.AlwaysPlan) string {
	if len(plan.Rules) == 0 {
		return fmt.Sprintf("dry run: approving %s always would add no rule: %s; it would be approved once. Nothing was changed", it.subject, plan.Why)
	}
	whose := it.from + "'s rules"
	if forAll || it.from == "" {
		whose = "every agent's rules"
	}
	return fmt.Sprintf("dry run: approving %s always would add %s to %s in the policy file. Nothing was changed", it.subject, strings.Join(plan.Rules, ", "), whose)
}

// escalated says where item id went.
func (s *Server) escalated(id string, it item) string {
	subject := it.subject
	if q, ok := s.question(id); ok {
		return "escalated " + subject + "; " + q.Escalated()
	}
	if c, ok := s.consultation(id); ok {
		return fmt.Sprintf("escalated %s; it is now %s with %s", subject, c.Status, c.Consulted)
	}
	return "escalated " + subject
}

// dropped says what dropping an item did.
func dropped(it item, reason string) string {
	s := "dropped " + it.subject
	if reason = strings.TrimSpace(reason); reason != "" {
		s += " (" + clip(reason, 60) + ")"
	}
	return s + "; nothing was typed into anyone"
}

// withPending adds the questions waiting for the human to an answer's "no
// such pending item" (the inbox lists both; an m-… that became a
// question is answered as its q-…).
func (s *Server) withPending(err error) error {
	if !errors.Is(err, lead.ErrNoItem) || s.console.Store() == nil {
		return err
	}
	qs, qerr := readmodel.ListQuestions(s.console.Store(), "pending", "")
	if qerr != nil {
		return err
	}
	var ids []string
	for _, q := range qs {
		if strings.HasPrefix(q.Answerer, "human/") || strings.HasPrefix(q.Answerer, "team/") {
			ids = append(ids, q.ID)
		}
	}
	if len(ids) == 0 {
		return err
	}
	return fmt.Errorf("%w; questions waiting for you: %s (teamlead inbox lists both)", err, strings.Join(ids, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// clip is s on one line, at most n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
