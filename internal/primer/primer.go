// Package primer writes the protocol primer: the text that teaches one
// agent of a team its name, its role, its teammates and exactly how to talk
// to them through teamlead — [ROUTE] envelopes, <gap> questions,
// consultations and the rules of its role, query and progress files, the
// handoff to QA and permission requests. The text is generated from the
// team config, so it always names the real teammates and the rules that
// apply; it is short enough for a system prompt.
//
// Plan and WriteFile hand the primer to an agent the way its CLI takes it:
// as command-line arguments, in an instructions file of its working folder
// (between marker lines, keeping the user's own text), or as its first
// message. WriteStarter writes a starter team for `teamlead init`.
package primer

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
	"time"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/tasks"
)

// ProtocolVersion is the version of the wire protocol the primer teaches
// (PROTOCOL.md, docs/protocol.md).
const ProtocolVersion = "1"

// ErrUnknownAgent: the team has no agent of that name.
var ErrUnknownAgent = errors.New("unknown agent")

//go:embed primer.tmpl
var primerText string

var primerTmpl = template.Must(template.New("primer").Funcs(template.FuncMap{
	"code": func(s string) string { return "`" + s + "`" },
}).Parse(primerText))

// Text is the primer for agent of team, as Markdown.
func Text(team *config.Team, agent string) (string, error) {
	d, err := build(team, agent)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := primerTmpl.Execute(&b, d); err != nil {
		return "", fmt.Errorf("primer: %w", err)
	}
	return tidy(b.String()), nil
}

// tidy collapses the blank lines the template's conditionals leave behind.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " ")
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n")) + "\n"
}

// mate is a teammate as the primer lists it.
type mate struct{ Name, Role, Caps string }

// need is one decision of the agent's role that needs approvals.
type need struct {
	Decision  string
	Approvers []string // "role review (rev)" or "role testing (no agent has it: ...)"
	Handoff   bool     // the decision a developer's handoff makes
}

// duty is one decision of another role the agent's role must approve.
type duty struct{ Decision, Requesters, Deadline string }

// story is the consultation the verdict examples follow.
type story struct{ Judge, Decision, Concern, Fix, Resubmit string }

// topic is one route of answerers.yaml as the primer lists it.
type topic struct{ Pattern, Who string }

// data feeds primer.tmpl.
type data struct {
	// Tools: the agent's CLI has teamlead's MCP tools (its preset's mcp);
	// ToolNames is how the CLI shows one ({tool}: its name; "" unknown).
	Tools      bool
	ToolNames  string
	Version    string
	Name, Role string
	Mates      []mate
	Count      int
	// Peer is whom the examples address: a teammate the agent may consult,
	// else any teammate, else team-lead; AckBody and AnsweredBy are what
	// the console says of a message to Peer and of its answer.
	Peer, AckBody, AnsweredBy string
	// Needs, Duties: the mandatory rules naming the agent's role.
	Needs  []need
	Duties []duty
	// MayConsult lists the roles (with their agents) the role may consult
	// optionally, MayConsultAbsent those of them with no agent; Anyone when
	// it may consult every role. ConsultedBy lists the roles with agents
	// that may consult it.
	MayConsult, MayConsultAbsent, ConsultedBy string
	Anyone                                    bool
	// Advisor is whom the optional consultation example addresses: an
	// agent the role may consult ("" when there is none).
	Advisor string
	// Story is the consultation the verdict examples follow (nil when the
	// role neither needs approvals nor may consult anyone).
	Story *story
	// Delegates are the other agents of the agent's role; Delegate is the
	// one the delegation example addresses.
	Delegates, Delegate string
	// HasQA: another agent has the role qa.
	HasQA bool
	// HandoffRules: mandatory rules hold a developer's handoff.
	HandoffRules bool
	// Decision is the decision type the decision example uses: the first of
	// the role's mandatory decisions other than a developer's code-complete.
	Decision      string
	Developer, QA bool
	DevName       string
	ReviewExample string
	Topics        []topic
	DefaultAnswer string
	Stall         string
	ProgressFile  string // the agent's progress file, relative to its folder
}

// Tool is teamlead's tool name as the agent's CLI shows it, in backticks.
func (d *data) Tool(name string) string {
	if d.ToolNames == "" {
		return "`" + name + "`"
	}
	return "`" + strings.ReplaceAll(d.ToolNames, "{tool}", name) + "`"
}

// build gathers what the primer says about agent.
func build(team *config.Team, agent string) (*data, error) {
	var me *config.Agent
	names := make([]string, 0, len(team.Agents))
	for i := range team.Agents {
		names = append(names, team.Agents[i].Name)
		if team.Agents[i].Name == agent {
			me = &team.Agents[i]
		}
	}
	if me == nil {
		return nil, fmt.Errorf("%w %q; the team has %s", ErrUnknownAgent, agent, strings.Join(names, ", "))
	}
	role := strings.ToLower(me.Role)
	d := &data{Version: ProtocolVersion, Name: me.Name, Role: role, Count: len(team.Agents),
		Developer: role == "developer", QA: strings.EqualFold(role, tasks.QARole), ReviewExample: strings.TrimRight(tasks.Example, "\n"),
		Stall: human(team.Progress.Stall), ProgressFile: progressFile(team, me)}
	if m := team.Resolved[me.Name].MCP; m.Any() {
		d.Tools, d.ToolNames = true, m.Names
	}
	byRole := map[string][]string{}
	for _, a := range team.Agents {
		r := strings.ToLower(a.Role)
		if a.Name != me.Name {
			byRole[r] = append(byRole[r], a.Name)
			d.Mates = append(d.Mates, mate{Name: a.Name, Role: r, Caps: strings.Join(a.Capabilities, ", ")})
		}
	}
	d.Delegates = strings.Join(byRole[role], ", ")
	d.Delegate = "<agent>"
	if ns := byRole[role]; len(ns) > 0 {
		d.Delegate = ns[0]
	}
	d.HasQA = len(byRole[tasks.QARole]) > 0
	agentsOf := func(r string) string {
		if r == "*" {
			return "any role"
		}
		if ns := byRole[r]; len(ns) > 0 {
			return "role " + r + " (" + strings.Join(ns, ", ") + ")"
		}
		return "role " + r + " (no agent has it now)"
	}

	rules := team.Consultations.Parsed
	needIdx := map[string]int{}
	var needRole []string // the first consulted role of each need
	for _, r := range rules.Mandatory {
		req, con := strings.ToLower(r.Requester), strings.ToLower(r.Consulted)
		if req == role {
			i, ok := needIdx[r.Decision]
			if !ok {
				i = len(d.Needs)
				needIdx[r.Decision] = i
				d.Needs = append(d.Needs, need{Decision: r.Decision, Handoff: d.Developer && r.Decision == "code-complete"})
				needRole = append(needRole, con)
			}
			who := agentsOf(con)
			if len(byRole[con]) == 0 {
				who = "role " + con + " (no agent has it: the decision stays blocked until one is added; tell team-lead with a blocker)"
			}
			d.Needs[i].Approvers = append(d.Needs[i].Approvers, who)
		}
		if con == role {
			timeout, chain := r.Timeout, r.EscalateTo
			if timeout == 0 {
				timeout = rules.Defaults.Timeout
			}
			if len(chain) == 0 {
				chain = rules.Defaults.EscalateTo
			}
			dl := ""
			if timeout > 0 {
				dl = "give your verdict within " + human(timeout)
				if len(chain) > 0 {
					steps := make([]string, len(chain))
					for i, c := range chain {
						steps[i] = escalationStep(c, role)
					}
					dl += ", else it escalates to " + strings.Join(steps, ", then ")
				}
			}
			d.Duties = append(d.Duties, duty{Decision: r.Decision, Requesters: agentsOf(req), Deadline: dl})
		}
	}
	for _, n := range d.Needs {
		d.HandoffRules = d.HandoffRules || n.Handoff
		if !n.Handoff {
			d.Decision = n.Decision
			break
		}
	}

	var may, absent []string
	for _, r := range rules.Matrix[role] {
		r = strings.ToLower(r)
		switch {
		case r == "*":
			d.Anyone = true
			if len(d.Mates) > 0 && d.Advisor == "" {
				d.Advisor = d.Mates[0].Name
			}
		case len(byRole[r]) > 0:
			may = append(may, agentsOf(r))
			if d.Advisor == "" {
				d.Advisor = byRole[r][0]
			}
		default:
			absent = append(absent, r)
		}
	}
	d.MayConsult = strings.Join(may, "; ")
	switch len(absent) {
	case 0:
	case 1:
		d.MayConsultAbsent = "role " + absent[0] + ", which no agent has now"
	default:
		d.MayConsultAbsent = "roles " + strings.Join(absent[:len(absent)-1], ", ") + " and " + absent[len(absent)-1] + ", which no agent has now"
	}
	var by []string
	for req, targets := range rules.Matrix {
		req = strings.ToLower(req)
		if req == role || len(byRole[req]) == 0 {
			continue
		}
		for _, t := range targets {
			if t == "*" || strings.EqualFold(t, role) {
				by = append(by, agentsOf(req))
				break
			}
		}
	}
	sort.Strings(by)
	d.ConsultedBy = strings.Join(by, "; ")
	switch {
	case d.Advisor != "":
		d.Story = &story{Judge: d.Advisor, Decision: "transport", Concern: "The proxy closes idle connections after 60 s.",
			Fix: "Added a 30 s heartbeat.", Resubmit: "SSE with a heartbeat and a polling fallback."}
	case len(d.Needs) > 0:
		judge := "role:" + needRole[0]
		if ns := byRole[needRole[0]]; len(ns) > 0 {
			judge = ns[0]
		}
		d.Story = &story{Judge: judge, Decision: d.Needs[0].Decision, Concern: "Without AUTH, Redis is open to anyone on the network.",
			Fix: "Redis now requires AUTH and TLS.", Resubmit: "Redis in a private subnet, with AUTH and TLS."}
		if d.Needs[0].Handoff {
			d.Story.Concern, d.Story.Fix, d.Story.Resubmit = "The retry loop in api/events.go never gives up.",
				"Retries now stop after 5 attempts.", "Reworked the retry loop; please look again."
		}
	}

	d.Peer = protocolTeamLead
	if d.Advisor != "" {
		d.Peer = d.Advisor
	} else if len(d.Mates) > 0 {
		d.Peer = d.Mates[0].Name
	}
	d.AckBody, d.AnsweredBy = "relayed m-41 to "+d.Peer, "agent/"+d.Peer
	if d.Peer == protocolTeamLead {
		d.AckBody, d.AnsweredBy = "received m-41", "human/requester"
	}
	d.DevName = "dev"
	if ns := byRole["developer"]; len(ns) > 0 {
		d.DevName = ns[0]
	}

	if err := d.topics(team, me); err != nil {
		return nil, err
	}
	return d, nil
}

// protocolTeamLead is the console's address.
const protocolTeamLead = "team-lead"

// topics lists the routes of the team's answerers.yaml with who answers
// each, so that the agent picks topics that reach the right answerer.
func (d *data) topics(team *config.Team, me *config.Agent) error {
	routes, err := questions.RoutesFrom(team.Questions.Answerers, team.OwnData)
	if err != nil {
		return fmt.Errorf("primer: %w", err)
	}
	caps := map[string][]string{}
	isAgent := map[string]bool{}
	for _, a := range team.Agents {
		isAgent[a.Name] = true
		for _, c := range a.Capabilities {
			caps[c] = append(caps[c], a.Name)
		}
	}
	who := func(rt questions.Route) string {
		a := rt.Answerer
		switch a.Kind {
		case questions.KindAgent:
			name := ""
			if isAgent[a.Name] {
				name = a.Name
			} else {
				if ns := caps[rt.Capability]; len(ns) > 0 {
					name = ns[0]
				}
			}
			switch {
			case name == me.Name:
				return "you"
			case name != "":
				return name
			}
			if rt.EscalateTo != nil {
				return "no agent now; goes on to " + rt.EscalateTo.String()
			}
			return "no agent now"
		case questions.KindHuman:
			return "the human (" + a.String() + ")"
		case questions.KindTeam:
			return "a human team (" + a.String() + ")"
		case questions.KindTool:
			return "a tool (" + a.String() + ")"
		}
		return a.String()
	}
	for _, rt := range routes.Routes {
		d.Topics = append(d.Topics, topic{Pattern: rt.Pattern, Who: who(rt)})
	}
	d.DefaultAnswer = who(routes.Default)
	return nil
}

// escalationStep says one step of an escalate_to chain in words.
func escalationStep(step, role string) string {
	switch {
	case step == consult.Human:
		return "the human"
	case strings.HasPrefix(step, "role:"):
		r := strings.TrimPrefix(step, "role:")
		if strings.EqualFold(r, role) {
			return "another agent of your role"
		}
		return "an agent of role " + r
	case strings.HasPrefix(step, "agent:"):
		return strings.TrimPrefix(step, "agent:")
	}
	return step
}

// human writes a duration the way people say it: 4h, 90m, 1h30m, 30s.
func human(dur time.Duration) string {
	if dur <= 0 {
		return ""
	}
	s := dur.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// progressFile is the agent's progress file, relative to its folder: its
// own name in a folder other agents share.
func progressFile(team *config.Team, me *config.Agent) string {
	if rel, err := filepath.Rel(me.Dir, progress.Paths(team.AgentDirs())[me.Name]); err == nil {
		return filepath.ToSlash(rel)
	}
	return progress.DefaultPath
}
