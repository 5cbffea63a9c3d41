// Package always is the approve-always chooser: how far the rule written
// for a permission request reaches (this exact action, its command prefix,
// its directory, or the whole tool), each with what it would let through,
// and whether it is for the requesting agent only or for every agent.
package always

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/tui/components/layout"
	"github.com/teamlead/teamlead/tui/style"
)

// KeyMap are the chooser's keys (enter and esc are the console's).
type KeyMap struct {
	// Up and Down choose the scope.
	Up, Down key.Binding
	// Toggle switches between this agent and every agent.
	Toggle key.Binding
	// Confirm and Cancel are only shown in the help line: the console
	// handles them.
	Confirm, Cancel key.Binding
}

// Option is one scope and what it would allow.
type Option struct {
	// Scope is exact, prefix, dir or tool.
	Scope string
	// Rule is the rule it would write, as far as the console can tell
	// without the agent's working folder ("" when it cannot say).
	Rule string
	// Says is what it allows in words.
	Says string
	// Broad marks a scope that lets a whole tool through.
	Broad bool
	// Unavailable says why the scope does not apply ("" when it does).
	Unavailable string
	// Why says, when the scope writes no rule, why none is needed (the
	// policy allows the action already): it is then approved once.
	Why string
	// Planned marks the console's own plan (SetPlans), made against the
	// policy in force and the agent's folder: Rule is what will be written.
	Planned bool
}

// Scopes are the scopes in the order they are offered, narrowest first.
var Scopes = []string{"exact", "prefix", "dir", "tool"}

// Options describes each scope for action. The rules are a preview: the
// engine writes the real ones against the agent's folder and the policy in
// force (parts of a compound command already allowed get no rule); the
// console's own plans (Planned, SetPlans) replace it when they come.
func Options(action string) []Option {
	a, err := permit.ParseAction(action)
	out := make([]Option, 0, len(Scopes))
	for _, s := range Scopes {
		o := Option{Scope: s}
		switch {
		case err != nil:
			o.Unavailable = "the action cannot be read: " + err.Error()
		case pathTool(a.Tool):
			o = pathOption(a, s)
		default:
			o = ruleOption(a, s)
		}
		out = append(out, o)
	}
	return out
}

// pathTool reports the file tools, whose rules depend on the agent's
// folder: they are described in words.
func pathTool(tool string) bool {
	switch tool {
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "NotebookRead", "Glob", "Grep", "LS":
		return true
	}
	return false
}

func pathOption(a permit.Action, scope string) Option {
	o := Option{Scope: scope}
	file := strings.TrimSpace(a.Arg)
	if scope == "tool" {
		o.Rule, o.Says, o.Broad = a.Tool, "every "+a.Tool+", of any file", true
		return o
	}
	if file == "" {
		o.Unavailable = a.Tool + " names no file; choose tool"
		return o
	}
	if scope == "exact" {
		o.Says = a.Tool + " of " + file + " only"
		return o
	}
	dir := path.Dir(file)
	if dir == "." {
		dir = "the agent's folder"
	} else {
		dir += "/"
	}
	o.Says = a.Tool + " of any file in " + dir + " and below"
	return o
}

// ruleOption previews the rule of a shell, web or other tool action. The
// working folder is taken as "/" so that no path counts as outside it:
// the floor is the request's to say, not the preview's.
func ruleOption(a permit.Action, scope string) Option {
	o := Option{Scope: scope}
	sc, _ := permit.ParseScope(scope)
	rules, err := permit.AlwaysRules(&permit.Policy{Default: permit.Ask}, a.String(), "", sc, permit.Env{Workdir: "/"})
	if err != nil {
		o.Unavailable = unavailable(a, scope, err)
		return o
	}
	o.Rule = strings.Join(rules, ", ")
	o.Says, o.Broad = says(a, scope, rules)
	return o
}

// unavailable says in a few words why scope does not apply to a.
func unavailable(a permit.Action, scope string, err error) string {
	switch {
	case errors.Is(err, permit.ErrFloor):
		return "on the destructive floor: asked every time"
	case errors.Is(err, permit.ErrScope) && scope == "dir" && a.Tool == "Bash":
		return "only for file tools (Read, Edit, Write…)"
	}
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, permit.ErrScope.Error()+": "); ok {
		msg = after
	}
	return msg
}

// says is what rules, written for a at scope, allow in words, and whether
// that is a whole tool.
func says(a permit.Action, scope string, rules []string) (string, bool) {
	rule := strings.Join(rules, ", ")
	switch {
	case len(rules) == 0:
		return "nothing more: every part is allowed already", false
	case scope == "tool" || rule == a.Tool && a.HasArg:
		if a.Tool == "Bash" {
			return "every shell command — anything at all", true
		}
		return "every " + a.Tool + " — anything it can do", true
	case a.Tool == "Bash" && scope == "exact":
		if len(rules) > 1 {
			return "each of these commands exactly", false
		}
		return "this command exactly", false
	case a.Tool == "Bash":
		if len(rules) == 1 {
			return "`" + strings.TrimSuffix(strings.TrimPrefix(rules[0], "Bash("), ":*)") + "` with any arguments", false
		}
		return "these commands with any arguments", false
	case a.Tool == "WebFetch":
		return "any page of " + strings.TrimSuffix(strings.TrimPrefix(rule, "WebFetch(domain:"), ")"), false
	case strings.HasPrefix(a.Tool, "mcp__") && rule != a.Tool:
		return "every tool of the " + strings.TrimPrefix(rule, "mcp__") + " server", false
	}
	return "this exactly", false
}

// Planned is the option of scope from the console's own plan for action:
// the rules it will write (none, and why, when the policy allows the
// action already), or why the scope does not apply.
func Planned(action, scope string, plan permit.AlwaysPlan, err error) Option {
	o := Option{Scope: scope, Planned: true}
	a, aerr := permit.ParseAction(action)
	switch {
	case aerr != nil:
		o.Unavailable = "the action cannot be read: " + aerr.Error()
	case err != nil:
		o.Unavailable = unavailable(a, scope, err)
	case len(plan.Rules) == 0:
		o.Why = plan.Why
		o.Says = "nothing to add: approved once"
	default:
		o.Rule = strings.Join(plan.Rules, ", ")
		o.Says, o.Broad = says(a, scope, plan.Rules)
		if pathTool(a.Tool) && scope != "tool" {
			o.Says = pathOption(a, scope).Says
		}
	}
	return o
}

// Model is the chooser.
type Model struct {
	id, agent, action, risk string
	opts                    []Option
	sel                     int
	forAll                  bool
	width                   int
	keys                    KeyMap
	st                      *style.Styles
}

// New returns a closed chooser.
func New(st *style.Styles, keys KeyMap) Model { return Model{st: st, keys: keys} }

// Open sets the chooser up for request id: agent wants action. The
// selection starts on prefix (dir for file tools), for this agent only.
func (m *Model) Open(id, agent, action, risk string) {
	m.id, m.agent, m.action, m.risk = id, agent, action, risk
	m.opts = Options(action)
	m.forAll = false
	want := "prefix"
	if a, err := permit.ParseAction(action); err == nil && pathTool(a.Tool) {
		want = "dir"
	}
	m.sel = -1
	for i, o := range m.opts { // the narrowest that applies...
		if o.Unavailable == "" && m.sel < 0 {
			m.sel = i
		}
	}
	for i, o := range m.opts { // ...unless the usual one does

		if o.Unavailable == "" && o.Scope == want {
			m.sel = i
		}
	}
	if m.sel < 0 {
		m.sel = 0
	}
}

// ID is the request the chooser is for.
func (m Model) ID() string { return m.id }

// Choice is the scope chosen and whether for every agent; ok is false
// when the selected scope does not apply.
func (m Model) Choice() (scope string, forAll, ok bool) {
	if m.sel >= len(m.opts) {
		return "", false, false
	}
	o := m.opts[m.sel]
	return o.Scope, m.forAll, o.Unavailable == ""
}

// Selected is the selected option.
func (m Model) Selected() Option {
	if m.sel < len(m.opts) {
		return m.opts[m.sel]
	}
	return Option{}
}

// SetPlans puts the console's own plans for request id (Planned) in place
// of the preview; the selection moves off a scope that no longer applies.
func (m *Model) SetPlans(id string, plans []Option) {
	if id != m.id {
		return
	}
	for _, p := range plans {
		for i := range m.opts {
			if m.opts[i].Scope == p.Scope {
				m.opts[i] = p
			}
		}
	}
	if m.sel < len(m.opts) && m.opts[m.sel].Unavailable != "" {
		if m.move(1); m.opts[m.sel].Unavailable != "" {
			m.move(-1)
		}
	}
}

// SetWidth sets the inner width.
func (m *Model) SetWidth(w int) { m.width = w }

// Update moves between the scopes that apply and toggles the agents.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil
	}
	switch {
	case key.Matches(k, m.keys.Up):
		m.move(-1)
	case key.Matches(k, m.keys.Down):
		m.move(1)
	case key.Matches(k, m.keys.Toggle):
		m.forAll = !m.forAll
	}
	return m, nil
}

func (m *Model) move(d int) {
	for i := m.sel + d; i >= 0 && i < len(m.opts); i += d {
		if m.opts[i].Unavailable == "" {
			m.sel = i
			return
		}
	}
}

// Title is the chooser's frame title.
func (m Model) Title() string {
	return fmt.Sprintf("Approve %s always — %s wants %s", m.id, m.agent, strings.ReplaceAll(m.action, "\n", "↵"))
}

// Height is the number of lines View draws.
func (m Model) Height() int { return len(m.opts) + 3 + len(m.writes(max(m.width, 20))) }

// writes are the lines that say what the selected scope writes into the
// policy: every rule in full, as it will be written, wrapped to w.
func (m Model) writes(w int) []string {
	if m.sel >= len(m.opts) {
		return nil
	}
	o := m.opts[m.sel]
	var text string
	switch {
	case o.Unavailable != "":
		text = "writes nothing: " + o.Unavailable
	case o.Rule == "" && o.Why != "":
		text = "writes nothing: " + o.Why + "; enter approves it once"
	case o.Rule == "":
		text = "writes  the rule for " + o.Says + ", worked out in " + m.agent + "'s folder"
	default:
		text = "writes  " + strings.Join(strings.Split(o.Rule, ", "), "\n")
	}
	if !o.Planned && o.Unavailable == "" {
		text += "  (preview)"
	}
	return layout.Wrap(text, w, "        ")
}

// View draws the scopes with what each allows, the agents choice and the keys.
func (m Model) View() string {
	w := max(m.width, 20)
	lines := []string{m.st.Muted.Render(ansi.Truncate("From now on, approve without asking:", w, "…"))}
	ruleW := 0
	for _, o := range m.opts {
		if o.Unavailable == "" {
			ruleW = max(ruleW, lipgloss.Width(o.Rule))
		}
	}
	ruleW = min(ruleW, max(w/2-10, 12))
	for i, o := range m.opts {
		mark := "  "
		if i == m.sel {
			mark = "▶ "
		}
		var text string
		switch {
		case o.Unavailable != "":
			text = fmt.Sprintf("%s%-7s — %s", mark, o.Scope, o.Unavailable)
		case o.Rule != "" && ruleW > 0:
			text = fmt.Sprintf("%s%-7s %s  %s", mark, o.Scope, layout.Pad(ansi.Truncate(o.Rule, ruleW, "…"), ruleW), o.Says)
		default:
			text = fmt.Sprintf("%s%-7s %s", mark, o.Scope, o.Says)
			if ruleW > 0 {
				text = fmt.Sprintf("%s%-7s %s  %s", mark, o.Scope, layout.Pad("", ruleW), o.Says)
			}
		}
		text = ansi.Truncate(text, w, "…")
		switch {
		case i == m.sel:
			text = m.st.Selected.Render(layout.Pad(text, w))
		case o.Unavailable != "":
			text = m.st.Muted.Render(text)
		case o.Broad:
			text = m.st.Warn.Render(text)
		default:
			text = m.st.Text.Render(text)
		}
		lines = append(lines, text)
	}
	for _, l := range m.writes(w) {
		lines = append(lines, m.st.Accent.Render(l))
	}
	this, every := "● "+m.agent+" only", "○ every agent"
	if m.forAll {
		this, every = "○ "+m.agent+" only", "● every agent"
	}
	lines = append(lines, ansi.Truncate(m.st.Text.Render("for  ")+m.st.Accent.Render(this)+"   "+m.st.Text.Render(every), w, "…"))
	if m.forAll {
		lines[len(lines)-1] = ansi.Truncate(m.st.Text.Render("for  "+this+"   ")+m.st.Accent.Render(every), w, "…")
	}
	lines = append(lines, m.st.Muted.Render(ansi.Truncate(fmt.Sprintf("%s %s choose · %s %s only or every agent · %s approve always · %s cancel",
		m.keys.Up.Help().Key, m.keys.Down.Help().Key, m.keys.Toggle.Help().Key, m.agent, m.keys.Confirm.Help().Key, m.keys.Cancel.Help().Key), w, "…")))
	return strings.Join(lines, "\n")
}
