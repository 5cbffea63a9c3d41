package permissions

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/golden"
	"github.com/teamlead/teamlead/tui/style"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// Fixture is a team's requests, newest first as the engine gives them.
func Fixture() []approvals.Request {
	return []approvals.Request{
		{ID: "p-6", Agent: "qa", Source: approvals.FromRoute, Action: "Bash(npm install left-pad)", Task: "T-2", Policy: "ask",
			Rule: "Bash(npm install:*) at /x/permissions.yaml:199", Risk: "medium", Why: "installs packages from the network",
			Status: approvals.Pending, Created: now.Add(-90 * time.Second), Deadline: now.Add(28 * time.Minute)},
		{ID: "p-5", Agent: "dev", Source: approvals.FromRoute, Action: "Bash(rm -rf /srv/data)", Task: "T-1", Policy: "ask",
			Rule: "floor delete-recursive-outside", Risk: "critical", Why: "rm of /srv/data: a recursive delete reaches outside the working directory",
			Floor: []string{"delete-recursive-outside"}, Status: approvals.Pending, Created: now.Add(-3 * time.Minute), Escalated: true},
		{ID: "p-4", Agent: "architect", Source: approvals.FromHook, Action: "Edit(/etc/hosts)", Policy: "ask", Rule: "floor edit-outside", Risk: "high",
			Why: "edits a file outside the working directory", Floor: []string{"edit-outside"}, Status: approvals.Withdrawn,
			Note: "the hook stopped waiting", Created: now.Add(-20 * time.Minute), Decided: now.Add(-19 * time.Minute)},
		{ID: "p-3", Agent: "qa", Source: approvals.FromDialog, Action: "Bash(npm install lodash)", Policy: "ask", Rule: "Bash(npm install:*) at /x/permissions.yaml:199",
			Risk: "medium", Status: approvals.Approved, DecidedBy: "human", Note: "approved always: Bash(npm install lodash:*) added to /x/permissions.yaml",
			Created: now.Add(-40 * time.Minute), Decided: now.Add(-39 * time.Minute)},
		{ID: "p-2", Agent: "architect", Source: approvals.FromRoute, Action: "Bash(git push --force origin main)", Task: "T-3", Policy: "ask",
			Rule: "floor git-force-push", Risk: "critical", Why: "rewrites the shared history", Floor: []string{"git-force-push"},
			Status: approvals.Denied, DecidedBy: "human", Note: "never on main", Created: now.Add(-time.Hour), Decided: now.Add(-50 * time.Minute)},
		{ID: "p-1", Agent: "dev", Source: approvals.FromDialog, Action: "Bash(go test ./...)", Task: "-", Policy: "allow",
			Rule: "Bash(go test:*) at /x/permissions.yaml:12", Risk: "low", Why: "runs the tests", Status: approvals.Approved, DecidedBy: "policy",
			Created: now.Add(-2 * time.Hour), Decided: now.Add(-2 * time.Hour)},
	}
}

func keys() KeyMap {
	b := func(k ...string) key.Binding { return key.NewBinding(key.WithKeys(k...)) }
	return KeyMap{Up: b("up", "k"), Down: b("down", "j"), PageUp: b("pgup"), PageDown: b("pgdown"), Detail: b("enter", "v"), Back: b("esc")}
}

func newBoard(noColor bool) Model {
	th, _ := themes.Load(themes.Default)
	m := New(style.New(th, noColor), keys(), func() time.Time { return now })
	m.Set(Fixture())
	return m
}

func press(m Model, msg tea.KeyMsg) Model {
	m, _ = m.Update(msg)
	return m
}

func TestOrderFilterAndSelection(t *testing.T) {
	m := newBoard(true)
	var ids []string
	for _, r := range m.Rows() {
		ids = append(ids, r.ID)
	}
	// Pending first, the longest waiting on top; then newest first.
	if got := strings.Join(ids, " "); got != "p-5 p-6 p-4 p-3 p-2 p-1" {
		t.Errorf("order %s", got)
	}
	if m.Pending() != 2 || m.Total() != 6 {
		t.Errorf("pending %d total %d", m.Pending(), m.Total())
	}
	m = press(m, tea.KeyMsg{Type: tea.KeyDown})
	m.SetFilter("qa")
	if r, _ := m.Selected(); m.Len() != 2 || r.ID != "p-6" {
		t.Errorf("filter qa: %d shown, selected %s", m.Len(), r.ID)
	}
	m.SetFilter("pending")
	if m.Len() != 2 {
		t.Errorf("filter pending: %d", m.Len())
	}
	m.SetFilter("critical human")
	if r, _ := m.Selected(); m.Len() != 1 || r.ID != "p-2" {
		t.Errorf("filter critical human: %d, %s", m.Len(), r.ID)
	}
	m.SetFilter("")
	if !m.Select("p-3") {
		t.Fatal("p-3 not shown")
	}
	m = press(m, tea.KeyMsg{Type: tea.KeyEnter})
	if !m.InDetail() {
		t.Fatal("enter opened no detail")
	}
	// The request leaves the list: its detail closes rather than show another's.
	m.SetFilter("pending")
	if m.InDetail() {
		t.Error("detail kept after its request left the list")
	}
}

// TestView draws the board wide (the rule column), narrow (two lines a
// row) and in colour, and the detail of a pending floor request and of a
// decided one.
func TestView(t *testing.T) {
	m := newBoard(true)
	m.SetFocused(true)
	m.SetSize(118, 10)
	golden.Assert(t, "wide", m.View())
	m.SetSize(66, 14)
	golden.Assert(t, "narrow", m.View())
	m.SetSize(66, 20)
	m = press(m, tea.KeyMsg{Type: tea.KeyEnter})
	golden.Assert(t, "detail-pending", m.View())
	m = press(m, tea.KeyMsg{Type: tea.KeyEsc})
	m.Select("p-3")
	m = press(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("v")})
	golden.Assert(t, "detail-approved-always", m.View())
	m.SetFilter("nobody")
	golden.Assert(t, "none-match", m.View())

	prof := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(prof)
	c := newBoard(false)
	c.SetSize(118, 8)
	golden.Assert(t, "wide-colour", c.View())
}

func TestFlatShowsLineBreaks(t *testing.T) {
	if got := Flat("Bash(cat <<EOF\nx  y\nEOF)"); got != "Bash(cat <<EOF↵x  y↵EOF)" {
		t.Errorf("Flat = %q", got)
	}
}

// Padding cannot push the rest of a command out of sight: a run of spaces
// is counted (red team 14a, finding 8).
func TestFlatCountsSpaceRuns(t *testing.T) {
	if got := Flat("Bash(go test ./..." + strings.Repeat(" ", 300) + "; rm -rf ~)"); got != "Bash(go test ./... ␣×300 ; rm -rf ~)" {
		t.Errorf("Flat = %q", got)
	}
	if got := Flat("Bash(echo 'a   b')"); got != "Bash(echo 'a   b')" {
		t.Errorf("three spaces: %q", got)
	}
}
