package tui

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is every action of the console and its keys. Each field's
// `action` tag is the name used to rebind it from config.
type KeyMap struct {
	Up        key.Binding `action:"up"`
	Down      key.Binding `action:"down"`
	NextPane  key.Binding `action:"next-pane"`
	PrevPane  key.Binding `action:"prev-pane"`
	Focus     key.Binding `action:"focus"`
	Unfocus   key.Binding `action:"unfocus"`
	PageUp    key.Binding `action:"page-up"`
	PageDown  key.Binding `action:"page-down"`
	Bottom    key.Binding `action:"bottom"`
	Answer    key.Binding `action:"answer"`
	Escalate  key.Binding `action:"escalate"`
	Filter    key.Binding `action:"filter"`
	Palette   key.Binding `action:"palette"`
	Help      key.Binding `action:"help"`
	Quit      key.Binding `action:"quit"`
	Agents    key.Binding `action:"show-agents"`
	Inbox     key.Binding `action:"show-inbox"`
	Questions key.Binding `action:"show-questions"`
	Progress  key.Binding `action:"toggle-progress"`
	Activity  key.Binding `action:"show-activity"`
	Cancel    key.Binding `action:"cancel"`
	Confirm   key.Binding `action:"confirm"`
	NextAgent key.Binding `action:"next-agent"`
	PrevAgent key.Binding `action:"prev-agent"`
	// Consults shows the consultations board (again: the agent's screen).
	Consults key.Binding `action:"show-consults"`
	// Tasks shows the tasks board (again: the agent's screen).
	Tasks key.Binding `action:"show-tasks"`
	// Detail opens the selected consultation's or task's whole record.
	Detail key.Binding `action:"detail"`
	// Acknowledge accepts the concerns raised on the selected consultation.
	Acknowledge key.Binding `action:"acknowledge"`
	// Drop closes the selected inbox item or question without answering
	// it (its asker has exited, say).
	Drop key.Binding `action:"drop"`
	// Reassign gives the selected consultation to another agent.
	Reassign key.Binding `action:"reassign"`
	// Permissions shows the permissions board (again: the agent's screen).
	Permissions key.Binding `action:"show-permissions"`
	// Approve approves a permission request once: the one selected in the
	// inbox or the permissions board, else the one the badge shows.
	Approve key.Binding `action:"approve"`
	// ApproveAlways opens the approve-always chooser for that request.
	ApproveAlways key.Binding `action:"approve-always"`
	// Deny denies that request.
	Deny key.Binding `action:"deny"`
	// DenyMessage denies it with a message to the agent.
	DenyMessage key.Binding `action:"deny-with-message"`
	// AllAgents switches the approve-always rule between the requesting
	// agent and every agent.
	AllAgents key.Binding `action:"toggle-all-agents"`
	// Diff shows what the selected agent changed in its worktree (again:
	// its screen).
	Diff key.Binding `action:"show-diff"`
	// Merge merges the agent whose diff is shown into your checkout:
	// pressed twice.
	Merge key.Binding `action:"merge"`
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	b := func(help string, keys ...string) key.Binding {
		desc, k, _ := strings.Cut(help, "|")
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(desc, k))
	}
	return KeyMap{
		Up:        b("↑/k|up", "up", "k"),
		Down:      b("↓/j|down", "down", "j"),
		NextPane:  b("tab|next pane", "tab"),
		PrevPane:  b("shift+tab|previous pane", "shift+tab"),
		Focus:     b("enter|type into agent", "enter"),
		Unfocus:   b("ctrl+]|leave agent", "ctrl+]"),
		PageUp:    b("pgup|scroll back", "pgup", "ctrl+b"),
		PageDown:  b("pgdn|scroll forward", "pgdown", "ctrl+f"),
		Bottom:    b("G|follow", "G", "end"),
		Answer:    b("a|answer", "a"),
		Escalate:  b("e|escalate now", "e"),
		Filter:    b("/|filter", "/"),
		Palette:   b(":|commands", ":", "ctrl+p"),
		Help:      b("?|help", "?"),
		Quit:      b("q|quit", "q", "ctrl+c"),
		Agents:    b("1|agents", "1"),
		Inbox:     b("2|inbox", "2"),
		Questions: b("4|questions", "4"),
		Progress:  b("5|workflow/screen", "5"),
		Consults:  b("6|consultations", "6"),
		Tasks:     b("7|tasks", "7"),
		Detail:    b("enter/v|details", "v", "enter"),
		// Not k: k moves up.
		Acknowledge: b("K|acknowledge concerns", "K"),
		Drop:        b("D|drop item", "D"),
		Reassign:    b("r|reassign", "r"),
		Permissions: b("8|permissions", "8"),
		// y and n as in a CLI's own dialog; the capitals do more.
		Approve:       b("y|approve once", "y"),
		ApproveAlways: b("A|approve always", "A"),
		Deny:          b("n|deny", "n"),
		DenyMessage:   b("N|deny with a message", "N"),
		AllAgents:     b("tab|this agent/every agent", "tab"),
		Activity:      b("3|activity", "3"),
		Cancel:        b("esc|cancel", "esc"),
		Confirm:       b("enter|confirm", "enter"),
		NextAgent:     b("]|next agent", "]"),
		PrevAgent:     b("[|previous agent", "["),
		Diff:          b("d|diff of the agent's worktree", "d"),
		Merge:         b("M|merge the diff shown (twice)", "M"),
	}
}

// Rebind sets keys by action name (for example {"quit": ["ctrl+q"]}); an
// unknown action is an error naming the known ones.
func (k *KeyMap) Rebind(overrides map[string][]string) error {
	v := reflect.ValueOf(k).Elem()
	byName := map[string]*key.Binding{}
	for i := 0; i < v.NumField(); i++ {
		byName[v.Type().Field(i).Tag.Get("action")] = v.Field(i).Addr().Interface().(*key.Binding)
	}
	for action, keys := range overrides {
		for _, ks := range keys {
			if _, ok := parseKey(ks); !ok {
				return fmt.Errorf("keys: %s: %q is not a key (examples: q, ctrl+q, alt+x, enter, tab, f5, pgup)", action, ks)
			}
		}
	}
	for action, keys := range overrides {
		b, ok := byName[action]
		if !ok {
			names := make([]string, 0, len(byName))
			for n := range byName {
				names = append(names, n)
			}
			sort.Strings(names)
			return fmt.Errorf("keys: unknown action %q; actions are %s", action, strings.Join(names, ", "))
		}
		if len(keys) == 0 {
			return fmt.Errorf("keys: action %q needs at least one key", action)
		}
		b.SetKeys(keys...)
		b.SetHelp(strings.Join(keys, "/"), b.Help().Desc)
	}
	return nil
}

// namedBinding is a binding with its action name.
type namedBinding struct {
	name string
	b    key.Binding
}

// bindings lists every binding with its action name, in field order.
func (k KeyMap) bindings() []namedBinding {
	v := reflect.ValueOf(k)
	out := make([]namedBinding, 0, v.NumField())
	for i := 0; i < v.NumField(); i++ {
		out = append(out, namedBinding{name: v.Type().Field(i).Tag.Get("action"), b: v.Field(i).Interface().(key.Binding)})
	}
	return out
}

// Actions lists every action's name and help, for the command palette.
func (k KeyMap) Actions() []Action {
	var out []Action
	for _, nb := range k.bindings() {
		out = append(out, Action{Name: nb.name, Keys: nb.b.Help().Key, Desc: nb.b.Help().Desc})
	}
	return out
}

// Action is one entry of the palette's action list.
type Action struct {
	Name, Keys, Desc string
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextPane, k.Focus, k.Answer, k.Palette, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.NextAgent, k.PrevAgent, k.NextPane, k.PrevPane},
		{k.Focus, k.Unfocus, k.PageUp, k.PageDown, k.Bottom},
		{k.Agents, k.Inbox, k.Activity, k.Questions, k.Progress, k.Consults, k.Tasks, k.Permissions},
		{k.Answer, k.Escalate, k.Drop, k.Filter, k.Detail, k.Acknowledge, k.Reassign},
		{k.Approve, k.ApproveAlways, k.Deny, k.DenyMessage, k.AllAgents},
		{k.Palette, k.Help, k.Cancel, k.Quit},
	}
}
